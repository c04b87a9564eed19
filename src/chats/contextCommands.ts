// "Add Selection to Chat" and "Add File to Chat": the editor's context goes to the chat the user last worked in
// (a new one when there is none), as a chip on the message being written.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Chats } from './chats';
import { workspaceRoots } from '../common/workspace';
import { checkPath } from '../common/paths';

/** Add Selection to Chat: the selection (or the file, when nothing is selected) as a chip. */
export async function addSelection(chats: Chats): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Select some text in an editor first, then choose Add Selection to Chat.'));
    return;
  }
  const doc = editor.document;
  const path = attachablePath(doc.uri);
  if (!path) return;
  const selection = editor.selection;
  if (selection.isEmpty) {
    // Nothing selected: the file is what the user means.
    await chats.addToChat({ kind: 'file', path, label: vscode.workspace.asRelativePath(doc.uri) });
    return;
  }
  // A selection that ends at the start of a line does not include that line.
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line - 1 : selection.end.line;
  const start = selection.start.line + 1;
  const end = endLine + 1;
  const label = `${vscode.workspace.asRelativePath(doc.uri)}:${start === end ? start : `${start}-${end}`}`;
  await chats.addToChat({ kind: 'selection', path, label, text: doc.getText(selection), startLine: start, endLine: end, languageId: doc.languageId });
}

/** Add File to Chat: the Explorer's clicked or selected files, or the active editor's. */
export async function addFiles(chats: Chats, uri: unknown, uris: unknown): Promise<void> {
  // From the explorer: the clicked file, or all the selected ones. From the palette: the active editor's file.
  const picked = Array.isArray(uris) && uris.every((u) => u instanceof vscode.Uri) ? (uris as vscode.Uri[]) : uri instanceof vscode.Uri ? [uri] : [];
  const targets = picked.length > 0 ? picked : vscode.window.activeTextEditor ? [vscode.window.activeTextEditor.document.uri] : [];
  if (targets.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a file, or choose Add File to Chat on a file in the Explorer.'));
    return;
  }
  for (const target of targets) {
    const path = attachablePath(target);
    if (!path) continue;
    const stat = await vscode.workspace.fs.stat(target).then(
      (s) => s,
      () => undefined,
    );
    if (!stat || !(stat.type & vscode.FileType.File)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} is a folder; add the files in it instead.', basename(path)));
      continue;
    }
    await chats.addToChat({ kind: 'file', path, label: vscode.workspace.asRelativePath(target) });
  }
}

/** A saved file inside the workspace, or undefined after telling the user why not. */
function attachablePath(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') {
    void vscode.window.showWarningMessage(
      uri.scheme === 'untitled'
        ? vscode.l10n.t('Save the file first: only saved files can be added to the chat.')
        : vscode.l10n.t('Files from {0}: cannot be added to the chat.', uri.scheme),
    );
    return undefined;
  }
  const verdict = checkPath(uri.fsPath, workspaceRoots());
  if (verdict.kind !== 'inside') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Only files inside the workspace can be added to the chat; {0} is not.', uri.fsPath));
    return undefined;
  }
  return uri.fsPath;
}
