// Save as Default for the chat's agent (`acp.saveAgentDefaults`): the chat's mode, model, config options and
// permission level become what new chats with that agent start with (acp.agentDefaults, in the user's settings).
// What a level sets in the agent itself (claude-agent-acp's acceptEdits, Copilot CLI's allow_all) is saved as the
// level, never as a mode or an option.
import * as vscode from 'vscode';
import { currentChoices, withoutLevelSettings } from '../acp/choices';
import type { Logger } from '../acp/log';
import { levelSettings, modeName } from '../acp/quirks';
import { levelName, type PermissionLevels } from '../permissions/levels';
import { saveAgentDefaults } from '../settings/agentDefaults';
import { failureText } from '../common/failureText';
import type { Chats } from './chats';

/** Save as Default for the chat the user works in. */
export async function saveDefaultsOfChat(chats: Chats, levels: PermissionLevels, log: Logger): Promise<boolean> {
  const panel = chats.target;
  const session = panel?.model.session;
  if (!panel || !session) {
    void vscode.window.showInformationMessage(
      panel
        ? vscode.l10n.t('This chat has no session yet, so it has no choices to save.')
        : vscode.l10n.t('Open a chat first: its choices become the defaults for its agent.'),
    );
    return false;
  }
  const agent = panel.agentName;
  const choices = withoutLevelSettings(
    currentChoices(session.model, modeName(session.client.quirks)),
    levelSettings(session.client.initialized.agentInfo),
  );
  const permissionLevel = levels.get({ agent, sessionId: session.sessionId });
  try {
    await saveAgentDefaults(agent, { ...choices, permissionLevel });
  } catch (error) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The defaults for {0} were not saved: {1}', agent, failureText(error)));
    return false;
  }
  log.info(`[settings] saved the chat's choices as the defaults for ${agent} (acp.agentDefaults)`);
  const parts = [
    choices.model ? vscode.l10n.t('model {0}', choices.model) : undefined,
    choices.mode ? vscode.l10n.t('mode {0}', choices.mode) : undefined,
    ...Object.entries(choices.options ?? {}).map(([id, value]) => `${id} ${String(value)}`),
    vscode.l10n.t('permission level {0}', levelName(permissionLevel)),
  ].filter((part) => part !== undefined);
  const open = vscode.l10n.t('Open Settings');
  void vscode.window.showInformationMessage(vscode.l10n.t('New chats with {0} will start with: {1}.', agent, parts.join(', ')), open).then((pick) => {
    if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'acp.agentDefaults');
  });
  return true;
}
