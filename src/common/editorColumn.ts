// Where something the chat opens goes: an editor group other than the chat's, so the chat stays in view.
import * as vscode from 'vscode';

/**
 * An editor group other than the chat's: the active editor's, another visible one's, or a new one beside. A chat
 * that has just opened may not know its column yet; then the active group counts as the chat's when a webview is
 * in front there.
 */
export function editorColumn(chatColumn: vscode.ViewColumn | undefined): vscode.ViewColumn {
  const activeGroup = vscode.window.tabGroups.activeTabGroup;
  const avoid = chatColumn ?? (activeGroup.activeTab?.input instanceof vscode.TabInputWebview ? activeGroup.viewColumn : undefined);
  const candidates = [vscode.window.activeTextEditor?.viewColumn, ...vscode.window.visibleTextEditors.map((e) => e.viewColumn)];
  const other = candidates.find((c) => c !== undefined && c !== avoid);
  if (other !== undefined) return other;
  if (avoid === undefined) return vscode.ViewColumn.Beside;
  return avoid === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
}
