// The editor as checkpoints see it: what the user sees of a file now (unsaved edits included), and putting files
// back through the editor, in one WorkspaceEdit, so that one Undo in the editor takes a restore back.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { ABSENT, type FileState, type TrackedFile } from './points';
import type { WorkspaceIO } from './tracker';

export function uriOf(file: TrackedFile): vscode.Uri {
  return vscode.Uri.file(join(file.folder, ...file.rel.split('/')));
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

export const editorIO: WorkspaceIO = {
  async current(file) {
    const uri = uriOf(file);
    const open = openDocument(uri);
    if (open?.isDirty) return { exists: true, bytes: Buffer.from(open.getText(), 'utf8') };
    try {
      return { exists: true, bytes: await readFile(uri.fsPath) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return ABSENT;
      throw error;
    }
  },

  async apply(writes) {
    if (writes.length === 0) return;
    const edit = new vscode.WorkspaceEdit();
    const toSave: vscode.Uri[] = [];
    for (const { file, state } of writes) {
      const uri = uriOf(file);
      const open = openDocument(uri);
      if (!state.exists) {
        edit.deleteFile(uri, { ignoreIfNotExists: true });
      } else if (open && !open.isClosed) {
        const text = Buffer.from(state.bytes).toString('utf8');
        edit.replace(uri, new vscode.Range(0, 0, open.lineCount, 0), text);
        toSave.push(uri);
      } else {
        await mkdir(dirname(uri.fsPath), { recursive: true });
        edit.createFile(uri, { overwrite: true, contents: state.bytes });
      }
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('VS Code did not apply the changes.'));
    for (const uri of toSave) await openDocument(uri)?.save();
  },
};

/** A file state's text, for a document (UTF-8; checkpoints keep text files only). */
export function stateText(state: FileState): string {
  return state.exists ? Buffer.from(state.bytes).toString('utf8') : '';
}
