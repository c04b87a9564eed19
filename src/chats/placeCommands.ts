// Where a chat lives: Move Chat to Side Bar (from a chat's tab) and Move Chat to Editor (from
// the side bar's chat view). A move keeps the conversation, the draft and a running turn (see ChatPanel.moveTo).
import * as vscode from 'vscode';
import type { Chats } from './chats';
import { failureText } from '../common/failureText';

/** Move Chat to Side Bar: the active chat tab (the command is on its title bar), else the chat last worked in. */
export async function moveChatToSideBar(chats: Chats): Promise<void> {
  const panel = chats.all.find((p) => p.active && p.location === 'editor') ?? chats.target;
  if (!panel || panel.location === 'sideBar') {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a chat in an editor tab first, then move it to the side bar.'));
    return;
  }
  try {
    await chats.moveToSideBar(panel);
  } catch (error) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The chat was not moved: {0}', failureText(error)));
  }
}

/** Move Chat to Editor: the side bar's chat goes to an editor tab. */
export function moveChatToEditor(chats: Chats): void {
  const panel = chats.inSideBar;
  if (!panel) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There is no chat in the side bar to move.'));
    return;
  }
  chats.moveToEditor(panel);
}
