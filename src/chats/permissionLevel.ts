// The permission level outside the chat: a status bar item that shows the level of the chat the user works in, and
// ACP: Set Permission Level… (`acp.setPermissionLevel`) for that chat. The chat's header shows and sets the same.
import * as vscode from 'vscode';
import type { PermissionLevelView } from '../chat/protocol';
import { levelName, type LevelKey, type PermissionLevel, type PermissionLevels } from '../permissions/levels';
import type { Chats } from './chats';

function keyOf(chats: Chats): LevelKey | undefined {
  const panel = chats.target;
  const sessionId = panel?.model.session?.sessionId;
  return panel && sessionId ? { agent: panel.agentName, sessionId } : undefined;
}

/** What `level` means, and for an agent with a mode of its own for it, that mode in the agent's words. */
function describe(level: PermissionLevel, agent: string, modes: PermissionLevelView['modes']): string {
  const mode = modes?.[level];
  const own = mode ? ` ${vscode.l10n.t('{0} runs in its mode "{1}".', agent, mode)}` : '';
  switch (level) {
    case 'ask':
      return vscode.l10n.t('The agent asks you before it edits files or runs commands.') + own;
    case 'autoApproveEdits':
      return vscode.l10n.t('Edits to files inside the workspace are allowed once; everything else asks you.') + own;
    case 'agentDecides':
      return vscode.l10n.t('The agent decides by itself what to ask you; what it asks still asks you.') + own;
    case 'allowAll':
      return vscode.l10n.t('Every permission request is allowed, except plan approvals and the paths it names outside the workspace.') + own;
  }
}

/** The status bar item that shows the level of the chat the user works in. */
export function permissionLevelItem(chats: Chats, levels: PermissionLevels): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem('acp.permissionLevel', vscode.StatusBarAlignment.Left, 99);
  item.name = vscode.l10n.t('ACP Permission Level');
  item.command = 'acp.setPermissionLevel';
  const update = () => {
    const key = keyOf(chats);
    if (!key) {
      item.hide();
      return;
    }
    const level = levels.get(key);
    const modes = chats.target?.model.shown('permissionLevel').modes;
    item.text = `$(shield) ${levelName(level)}`;
    item.tooltip = vscode.l10n.t('Permission level of the chat with {0}: {1} {2}', key.agent, levelName(level), describe(level, key.agent, modes));
    item.accessibilityInformation = { label: vscode.l10n.t('Permission level: {0}', levelName(level)) };
    // The levels where the agent approves by itself stand out.
    item.backgroundColor = level === 'allowAll' || level === 'agentDecides' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
  };
  update();
  return [item, chats.onDidChange(update), levels.onDidChange(update), vscode.workspace.onDidGrantWorkspaceTrust(update)];
}

/** ACP: Set Permission Level…: `given`, when the chat offers it, else the level the user picks. */
export async function setPermissionLevel(chats: Chats, levels: PermissionLevels, given?: unknown): Promise<PermissionLevel | undefined> {
  const key = keyOf(chats);
  if (!key) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a chat first: a permission level belongs to one chat.'));
    return undefined;
  }
  const view = chats.target?.model.shown('permissionLevel');
  const offered: readonly PermissionLevel[] = levels.available ? (view?.offered ?? ['ask']) : ['ask'];
  let level = typeof given === 'string' ? offered.find((l) => l === given) : undefined;
  if (level === undefined) {
    const current = levels.get(key);
    const items = offered.map((l) => ({
      label: levelName(l),
      description: l === current ? vscode.l10n.t('current') : undefined,
      detail: describe(l, key.agent, view?.modes),
      level: l,
    }));
    const picked = await vscode.window.showQuickPick(items, {
      ignoreFocusOut: true,
      title: vscode.l10n.t('Permission level of the chat with {0}', key.agent),
      placeHolder: levels.available ? undefined : vscode.l10n.t('Restricted Mode: every permission request asks you'),
    });
    level = picked?.level;
  }
  if (level === undefined) return undefined;
  return (await levels.choose(key, level)) ? level : undefined;
}
