// A question before a worktree action that changes what the user has: a quick pick whose first row does it, with
// what it would change listed below (so the question is read, in full, by a screen reader, and answered by keyboard).
import * as vscode from 'vscode';

/** Whether the user picked `act`; Escape, "Cancel" or a row of the list is a no. */
export async function confirmPick(title: string, act: string, detail: string, listed: readonly string[] = []): Promise<boolean> {
  const yes: vscode.QuickPickItem = { label: act, detail };
  const items: vscode.QuickPickItem[] = [
    yes,
    { label: vscode.l10n.t('Cancel') },
    ...(listed.length > 0 ? [{ label: vscode.l10n.t('What it concerns'), kind: vscode.QuickPickItemKind.Separator }] : []),
    ...listed.slice(0, 50).map((label) => ({ label })),
  ];
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: detail, ignoreFocusOut: true });
  return picked === yes;
}
