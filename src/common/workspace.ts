// The workspace as the agents see it: folders on this machine's disk, by path.
import * as vscode from 'vscode';

/** The workspace folders that are on disk here (not virtual or remote file systems), as paths. */
export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
