// `fs/read_text_file` from the editor: an open document's text (unsaved edits included) first, the disk otherwise.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AcpError, ErrorCodes } from './acp/errors';
import type * as S from './acp/schema.gen';
import { decodeUtf8, looksBinary, sliceLines } from './acp/text';

export class EditorFiles {
  async read(params: S.ReadTextFileRequest): Promise<S.ReadTextFileResponse> {
    const uri = fileUri(params.path);
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.scheme === 'file' && samePath(doc.uri.fsPath, uri.fsPath));
    const text = open ? open.getText() : await readDisk(uri);
    return { content: sliceLines(text, params.line, params.limit) };
  }
}

function fileUri(p: string): vscode.Uri {
  if (typeof p !== 'string' || !path.isAbsolute(p)) {
    throw new AcpError(ErrorCodes.InvalidParams, `the path must be absolute: ${JSON.stringify(p)}`);
  }
  return vscode.Uri.file(path.normalize(p));
}

function samePath(a: string, b: string): boolean {
  return process.platform === 'win32' || process.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

async function readDisk(uri: vscode.Uri): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') {
      throw new AcpError(ErrorCodes.ResourceNotFound, `file not found: ${uri.fsPath}`);
    }
    if (error instanceof vscode.FileSystemError && error.code === 'FileIsADirectory') {
      throw new AcpError(ErrorCodes.InvalidParams, `${uri.fsPath} is a folder, not a file`);
    }
    throw new AcpError(ErrorCodes.InternalError, `could not read ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = looksBinary(bytes) ? undefined : decodeUtf8(bytes);
  if (text === undefined) throw new AcpError(ErrorCodes.InvalidParams, `${uri.fsPath} is not a UTF-8 text file`);
  return text;
}
