// The quick pick items that name agents: Select Agent and New Chat offer the same list.
import * as vscode from 'vscode';
import type { AgentConfig } from '../settings/config';

export type AgentItem = vscode.QuickPickItem & { agent?: AgentConfig };

/** Quick pick items for agents: the configured ones, those installed from the registry, then the presets, each with its command line. */
export function agentItems(agents: readonly AgentConfig[], current?: string): AgentItem[] {
  const item = (agent: AgentConfig): AgentItem => ({
    label: agent.name,
    description: agent.installed
      ? vscode.l10n.t('{0} from the ACP Registry', agent.installed.version) +
        (agent.installed.update ? ' · ' + vscode.l10n.t('{0} available', agent.installed.update) : '')
      : [agent.command, ...agent.args].join(' '),
    ...(agent.name === current ? { detail: vscode.l10n.t('$(check) New chats use this agent') } : {}),
    agent,
  });
  const group = (label: string, members: readonly AgentConfig[]): AgentItem[] =>
    members.length > 0 ? [{ label, kind: vscode.QuickPickItemKind.Separator }, ...members.map(item)] : [];
  return [
    ...group(
      vscode.l10n.t('Configured'),
      agents.filter((a) => !a.preset && !a.installed),
    ),
    ...group(
      vscode.l10n.t('Installed'),
      agents.filter((a) => a.installed),
    ),
    ...group(
      vscode.l10n.t('Presets'),
      agents.filter((a) => a.preset),
    ),
  ];
}
