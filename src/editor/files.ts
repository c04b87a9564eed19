// `fs/read_text_file` and `fs/write_text_file` through the editor, for one agent.
//
// Reads: an open document with unsaved edits is served from the buffer; otherwise from disk, so a read is never
// staler than the file (a clean buffer may lag behind a change a terminal command just made).
// Writes: one WorkspaceEdit (a single Undo restores the previous text), then the document is saved; missing files
// and folders are created. Unsaved edits the agent has not read are never dropped silently: the user decides.
// Paths: absolute, resolved (`..` and symlinks) and checked against the workspace folders; outside them the user
// is asked, or the `acp.files.outsideWorkspace` setting refuses; but a file the extension saved and the chat linked
// in a message (a conversation export, a pasted image) is read without a question.
import * as vscode from 'vscode';
import { workspaceRoots } from '../common/workspace';
import { AcpError, ErrorCodes } from '../acp/errors';
import type * as S from '../acp/schema.gen';
import { decodeUtf8, looksBinary, sliceLines } from '../acp/text';
import type { PathScope } from '../acp/clientHandler';
import { checkPath } from '../common/paths';
import type { EditReviews, ReviewDecision } from './review';

export type OutsideWorkspacePolicy = 'ask' | 'deny';

/** What the files adapter asks the user. */
export interface FilePrompts {
  /** May the agent read or write this path outside the workspace? Dismissing means no. */
  allowOutside(agent: string, operation: 'read' | 'write', path: string, outside?: 'workspace' | 'worktree' | 'subagent'): Promise<boolean>;
  /** The agent would overwrite unsaved edits it has not seen. True to overwrite them. */
  overwriteUnsaved(agent: string, path: string): Promise<boolean>;
  /** Review before write: the current text (null for a new file) against the proposed one. */
  reviewEdit(agent: string, path: string, current: string | null, proposed: string, signal?: AbortSignal): Promise<ReviewDecision>;
}

export type ReviewPolicy = 'ask' | 'off';

export interface EditorFilesOptions {
  /** The agent's display name, for prompts and errors. */
  readonly agent: string;
  /** Answer a read of a missing file with empty content instead of -32002: the agent's quirk (src/acp/quirks.ts). */
  readonly readMissingAsEmpty?: () => boolean;
  readonly outsideWorkspace: () => OutsideWorkspacePolicy;
  /** `acp.edits.review`: whether a write waits for the user's Accept. */
  readonly review: () => ReviewPolicy;
  readonly prompts: FilePrompts;
  /**
   * The folders where the extension keeps files it links in a chat's messages (conversation exports, pasted images):
   * such a file that the chat linked is read without a question. Nothing else outside the workspace is.
   */
  readonly ownFolders?: readonly string[];
}

export class EditorFiles {
  /** What the agent last saw of each file (full text), to tell whether the user has typed since. */
  private readonly seen = new Map<string, string>();

  constructor(private readonly options: EditorFilesOptions) {}

  /** `scope`: the chat's workspace (a worktree's, else the workspace folders), narrowed by a subagent's own roots. */
  async readTextFile(params: S.ReadTextFileRequest, scope: PathScope = {}): Promise<S.ReadTextFileResponse> {
    const path = await this.allowed(params.path, 'read', scope);
    const uri = vscode.Uri.file(path);
    const open = openDocument(uri);
    const text = open?.isDirty ? open.getText() : await this.readClean(uri, open);
    this.seen.set(path, text);
    return { content: sliceLines(text, params.line, params.limit) };
  }

  /** Disk first; a clean buffer of a file in another encoding is still right where UTF-8 decoding is not. */
  private async readClean(uri: vscode.Uri, open: vscode.TextDocument | undefined): Promise<string> {
    let text: string | undefined;
    try {
      text = await readDisk(uri);
    } catch (error) {
      if (error instanceof AcpError && error.code === ErrorCodes.ResourceNotFound && this.options.readMissingAsEmpty?.()) return '';
      throw error;
    }
    if (text !== undefined) return text;
    if (open) return open.getText();
    throw new AcpError(ErrorCodes.InvalidParams, `${uri.fsPath} is not a UTF-8 text file`);
  }

  async writeTextFile(params: S.WriteTextFileRequest, signal?: AbortSignal, scope: PathScope = {}): Promise<S.WriteTextFileResponse> {
    if (typeof params.content !== 'string') throw new AcpError(ErrorCodes.InvalidParams, 'content must be a string');
    const path = await this.allowed(params.path, 'write', scope);
    const uri = vscode.Uri.file(path);
    const open = openDocument(uri);
    if (this.options.review() === 'ask') {
      const current = open ? open.getText() : await currentText(uri);
      const decision = await this.options.prompts.reviewEdit(this.options.agent, path, current, params.content, signal);
      if (decision !== 'accepted') throw reviewRefusal(decision, path);
      // What the user accepted replaces what they saw; anything typed during the review is theirs to keep.
      await this.confirmOverwrite(path, openDocument(uri), current ?? '');
    } else {
      await this.confirmOverwrite(path, open, this.seen.get(path));
    }
    const target = openDocument(uri);
    if (target || (await exists(uri))) await replaceAndSave(target ?? (await openText(uri)), params.content);
    else await create(uri, params.content);
    this.seen.set(path, params.content);
    return {};
  }

  /** Unsaved edits that differ from what the agent (or the reviewing user) saw are never dropped without asking. */
  private async confirmOverwrite(path: string, open: vscode.TextDocument | undefined, seen: string | undefined): Promise<void> {
    if (!open?.isDirty || seen === open.getText()) return;
    if (await this.options.prompts.overwriteUnsaved(this.options.agent, path)) return;
    throw new AcpError(
      ErrorCodes.InvalidRequest,
      `the user has unsaved changes in ${path} that you have not read, and kept them; the file was not written. Read it again before writing.`,
    );
  }

  private async allowed(raw: unknown, operation: 'read' | 'write', { workspace, roots, linked }: PathScope): Promise<string> {
    const verdict = checkPath(raw, workspace ?? workspaceRoots());
    if (verdict.kind === 'invalid') throw new AcpError(ErrorCodes.InvalidParams, verdict.reason);
    // A subagent's own roots narrow the workspace, never widen it: outside them, the user is asked.
    if (verdict.kind === 'inside') {
      if (!roots || checkPath(verdict.path, roots).kind === 'inside') return verdict.path;
      if (await this.options.prompts.allowOutside(this.options.agent, operation, verdict.path, 'subagent')) return verdict.path;
      throw new AcpError(
        ErrorCodes.InvalidParams,
        `the user did not allow ${operation === 'read' ? 'reading' : 'writing'} ${verdict.path}, which is outside the folders named for this subagent`,
      );
    }
    // A file the extension saved and this chat linked (an export, a pasted image) is read without a question: by its
    // real path, inside the extension's own folders, so neither a link planted in a replayed message nor a symbolic
    // link reaches anything else.
    if (operation === 'read' && linked?.has(verdict.path) && checkPath(verdict.path, this.options.ownFolders ?? []).kind === 'inside') {
      return verdict.path;
    }
    const where = workspace ? "this chat's worktree" : 'the workspace folders';
    if (this.options.outsideWorkspace() === 'deny') {
      throw new AcpError(ErrorCodes.InvalidParams, `${verdict.path} is outside ${where}, and the acp.files.outsideWorkspace setting refuses that`);
    }
    if (await this.options.prompts.allowOutside(this.options.agent, operation, verdict.path, workspace ? 'worktree' : 'workspace')) {
      return verdict.path;
    }
    throw new AcpError(
      ErrorCodes.InvalidParams,
      `the user did not allow ${operation === 'read' ? 'reading' : 'writing'} ${verdict.path}, which is outside ${where}`,
    );
  }
}

/** The questions as editor notifications (and, for reviews, the diff editor). Dismissing a question is a no. */
export function notificationPrompts(reviews: EditReviews): FilePrompts {
  return {
    async allowOutside(agent, operation, path, outside = 'workspace') {
      const message =
        outside === 'subagent'
          ? operation === 'read'
            ? vscode.l10n.t("{0}'s subagent wants to read {1}, which is outside the folders named for it.", agent, path)
            : vscode.l10n.t("{0}'s subagent wants to write {1}, which is outside the folders named for it.", agent, path)
          : outside === 'worktree'
            ? operation === 'read'
              ? vscode.l10n.t("{0} wants to read {1}, which is outside this chat's worktree.", agent, path)
              : vscode.l10n.t("{0} wants to write {1}, which is outside this chat's worktree.", agent, path)
            : operation === 'read'
              ? vscode.l10n.t('{0} wants to read {1}, which is outside the workspace folders.', agent, path)
              : vscode.l10n.t('{0} wants to write {1}, which is outside the workspace folders.', agent, path);
      const allowOnce = vscode.l10n.t('Allow Once');
      const pick = await vscode.window.showWarningMessage(message, allowOnce, vscode.l10n.t('Deny'));
      return pick === allowOnce;
    },
    async overwriteUnsaved(agent, path) {
      const name = vscode.workspace.asRelativePath(path);
      const overwrite = vscode.l10n.t('Overwrite My Changes');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t('{0} wants to overwrite {1}, which has unsaved changes it has not read.', agent, name),
        overwrite,
        vscode.l10n.t('Keep My Changes'),
      );
      return pick === overwrite;
    },
    reviewEdit: (agent, path, current, proposed, signal) => reviews.review(agent, path, current, proposed, signal),
  };
}

function reviewRefusal(decision: Exclude<ReviewDecision, 'accepted'>, path: string): AcpError {
  switch (decision) {
    case 'rejected':
      return new AcpError(ErrorCodes.InvalidRequest, `the user rejected the edit to ${path}; the file was not changed`);
    case 'closed':
      return new AcpError(ErrorCodes.InvalidRequest, `the user closed the diff of ${path} without accepting the edit; the file was not changed`);
    case 'withdrawn':
      return new AcpError(ErrorCodes.RequestCancelled, `the edit to ${path} was withdrawn before the user decided; the file was not changed`);
  }
}

/** The text a review compares against: the file on disk, or null when there is none yet. */
async function currentText(uri: vscode.Uri): Promise<string | null> {
  try {
    return (await readDisk(uri)) ?? '';
  } catch (error) {
    if (error instanceof AcpError && error.code === ErrorCodes.ResourceNotFound) return null;
    throw error;
  }
}

/** The workspace folders on disk, which bound what agents may touch without asking. */

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === key);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function openText(uri: vscode.Uri): Promise<vscode.TextDocument> {
  try {
    return await vscode.workspace.openTextDocument(uri);
  } catch (error) {
    throw new AcpError(ErrorCodes.InvalidParams, `${uri.fsPath} cannot be edited as text: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function replaceAndSave(doc: vscode.TextDocument, content: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), content);
  if (!(await vscode.workspace.applyEdit(edit))) throw new AcpError(ErrorCodes.InternalError, `the editor refused the edit to ${doc.uri.fsPath}`);
  if (!(await doc.save())) throw new AcpError(ErrorCodes.InternalError, `${doc.uri.fsPath} was edited but could not be saved`);
}

async function create(uri: vscode.Uri, content: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(uri, { contents: new TextEncoder().encode(content), ignoreIfExists: false });
  if (!(await vscode.workspace.applyEdit(edit))) throw new AcpError(ErrorCodes.InternalError, `could not create ${uri.fsPath}`);
}

/** The file's text, or undefined when its bytes are not UTF-8 text. Missing files and folders throw AcpErrors. */
async function readDisk(uri: vscode.Uri): Promise<string | undefined> {
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
  return looksBinary(bytes) ? undefined : decodeUtf8(bytes);
}
