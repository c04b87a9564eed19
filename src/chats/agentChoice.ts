// Which agent a new chat runs: the one asked for, else the default one, else the user's pick; and what is said when
// the settings name none or cannot be read.
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import { agentItems } from '../agents/pickers';
import { openAgentSettings, type AgentConfig, type AgentSettings } from '../settings/config';

/** The agent asked for, else the default one, else the one the user picks (undefined when there is none or they cancel). */
export async function chooseAgent(settings: AgentSettings, requested: string | undefined): Promise<AgentConfig | undefined> {
  const { agents, defaultAgent } = settings;
  if (requested !== undefined) {
    const found = agents.find((a) => a.name === requested);
    if (!found) void offerSettings(vscode.l10n.t('There is no agent named "{0}" in the "acp.agents" setting.', requested));
    return found;
  }
  if (defaultAgent !== undefined) {
    const found = agents.find((a) => a.name === defaultAgent);
    if (found) return found;
    void vscode.window.showWarningMessage(
      vscode.l10n.t('"acp.defaultAgent" names "{0}", which is neither in "acp.agents" nor a preset; choose an agent for this chat.', defaultAgent),
    );
  }
  if (agents.length === 1) return agents[0];
  const pick = await vscode.window.showQuickPick(agentItems(agents), {
    ignoreFocusOut: true,
    title: vscode.l10n.t('New Chat'),
    placeHolder: vscode.l10n.t('Choose the agent for this chat ("ACP: Select Agent…" sets the one New Chat uses)'),
  });
  return pick?.agent;
}

/** Logs what could not be read in the agent settings, and says it once with Open Settings. */
export function reportProblems(settings: AgentSettings, log: Logger): void {
  if (settings.problems.length === 0) return;
  for (const problem of settings.problems) log.warn(`[settings] ${problem}`);
  void offerSettings(settings.problems.join(' '));
}

/** An error with Open Settings (the user's `acp.agents`). */
export async function offerSettings(message: string): Promise<void> {
  const open = vscode.l10n.t('Open Settings');
  const pick = await vscode.window.showErrorMessage(message, open);
  if (pick === open) await openAgentSettings();
}
