// The quick pick items that name agents: Select Agent and New Chat offer the same list.
import * as vscode from 'vscode';
import type { AgentConfig } from '../settings/config';

export type AgentItem = vscode.QuickPickItem & { agent?: AgentConfig };

/**
 * Quick pick items for agents: the configured ones, those installed from the registry, then the presets, each with its
 * command line, and with `account`, the account a running agent is signed in with.
 */
export function agentItems(agents: readonly AgentConfig[], current?: string, account?: (name: string) => string | undefined): AgentItem[] {
  const item = (agent: AgentConfig): AgentItem => {
    const detail = [agent.name === current ? vscode.l10n.t('$(check) New chats use this agent') : undefined, account?.(agent.name)].filter(
      (part) => part !== undefined,
    );
    return {
      label: agent.name,
      description: agent.installed
        ? vscode.l10n.t('{0} from the ACP Registry', agent.installed.version) +
          (agent.installed.update ? ' · ' + vscode.l10n.t('{0} available', agent.installed.update) : '')
        : [agent.command, ...agent.args].join(' '),
      ...(detail.length > 0 ? { detail: detail.join(' · ') } : {}),
      agent,
    };
  };
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
