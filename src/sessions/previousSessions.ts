// "ACP: Open Previous Session…": the agent's earlier sessions in the workspace folders (`session/list`, every page)
// when it lists them, or else the sessions kept on this computer; the one chosen opens in a chat (see
// Chats.openPrevious).
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import { ConnectionClosedError, errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import { openAgentSettings, type AgentConfig } from '../settings/config';
import type { SessionTarget } from '../common/sessionTarget';
import { workspaceRoots } from '../common/workspace';
import { relativeTime } from './relativeTime';
import { summaryLabel } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import { failureText } from '../common/failureText';

/** One earlier session, as the list shows it. */
export interface PreviousSessionItem extends SessionTarget {
  readonly title: string;
  readonly updatedAt?: string;
  /** Where it was listed from: the agent's `session/list`, or the history kept on this computer. */
  readonly source: 'agent' | 'local';
  /** Archived (listed only when archived sessions are asked for). */
  readonly archived?: boolean;
}

/** Whether archived sessions are listed too. */
export interface ListOptions {
  readonly archived?: boolean;
}

interface Listing {
  readonly items: PreviousSessionItem[];
  /** The agent started for the listing, to stop again when nothing is opened. */
  readonly client?: AgentClient;
  /** Why the list is the local one although the agent lists sessions. */
  readonly problem?: string;
}

export class PreviousSessions {
  constructor(
    private readonly chats: Chats,
    private readonly agents: AgentManager,
    private readonly store: TranscriptStore,
    private readonly log: Logger,
  ) {}

  /** The agent's earlier sessions, newest first (the agent is stopped again if no chat uses it). */
  async list(agentName: string, options: ListOptions = {}): Promise<PreviousSessionItem[]> {
    const agent = this.agents.catalog.find(agentName);
    if (!agent) return this.local(agentName, options);
    const listing = await this.listing(agent, options);
    this.stopIdle(listing.client);
    return listing.items;
  }

  /**
   * The quick pick: the agent (when more than one is configured), then its sessions; the one chosen opens. Its last
   * row, "Show Archived Sessions", lists them again with the archived ones.
   */
  async pick(): Promise<void> {
    const agent = await this.chooseAgent();
    if (!agent) return;
    const quickPick = vscode.window.createQuickPick<vscode.QuickPickItem & { item?: PreviousSessionItem; showArchived?: true }>();
    quickPick.title = vscode.l10n.t('Open Previous Session with {0}', agent.name);
    quickPick.ignoreFocusOut = true;
    quickPick.placeholder = vscode.l10n.t('Loading the sessions…');
    quickPick.matchOnDescription = true;
    quickPick.matchOnDetail = true;
    quickPick.busy = true;
    let chosen: PreviousSessionItem | undefined;
    const listings: Promise<Listing>[] = [];
    const show = (options: ListOptions) => {
      quickPick.busy = true;
      const listed = this.listing(agent, options);
      listings.push(listed);
      void listed.then((result) => {
        if (listed !== listings.at(-1)) return;
        quickPick.busy = false;
        const more = options.archived
          ? []
          : [{ label: `$(archive) ${vscode.l10n.t('Show Archived Sessions')}`, alwaysShow: true, showArchived: true as const }];
        quickPick.items = [...result.items.map((item) => this.quickPickItem(item)), ...more];
        quickPick.placeholder =
          result.items.length === 0
            ? vscode.l10n.t('{0} has no earlier sessions in this workspace.', agent.name)
            : (result.problem ?? vscode.l10n.t('Choose a session to open'));
      });
    };
    const done = new Promise<void>((resolve) => {
      quickPick.onDidAccept(() => {
        const selected = quickPick.selectedItems[0];
        if (selected?.showArchived) return show({ archived: true });
        chosen = selected?.item;
        if (chosen) quickPick.hide();
      });
      quickPick.onDidHide(() => resolve());
    });
    quickPick.show();
    show({});
    await done;
    quickPick.dispose();
    // An archived one is brought back as it reopens (chats/reopen.ts), here and at the agent.
    if (chosen) await this.chats.openPrevious(agent.name, { sessionId: chosen.sessionId, cwd: chosen.cwd });
    // Also when the pick closed before the agent had started.
    for (const listed of listings) void listed.then((result) => this.stopIdle(result.client));
  }

  private quickPickItem(item: PreviousSessionItem): vscode.QuickPickItem & { item: PreviousSessionItem } {
    const roots = workspaceRoots();
    const when = relativeTime(item.updatedAt, Date.now(), vscode.env.language);
    const open = this.chats.showing(item.agent, item.sessionId) ? vscode.l10n.t('open') : undefined;
    const archived = item.archived ? vscode.l10n.t('archived') : undefined;
    return {
      label: item.title,
      description: [archived, when, open].filter((part) => part !== undefined).join(' · '),
      ...(item.cwd !== roots[0] ? { detail: vscode.l10n.t('in {0}', basename(item.cwd)) } : {}),
      item,
    };
  }

  /** From the agent when it lists sessions; from this computer's history otherwise, or when listing fails. */
  private async listing(agent: AgentConfig, options: ListOptions): Promise<Listing> {
    const roots = workspaceRoots();
    if (roots.length === 0) return { items: [] };
    // An agent whose last chat is closing stops as the close completes: if it stopped under the listing, a second
    // attempt starts it again.
    for (let attempt = 1; ; attempt++) {
      let client: AgentClient;
      try {
        client = await this.agents.connect(agent, roots[0] ?? '');
      } catch (error) {
        this.log.warn(`[history] could not start ${agent.name} to list its sessions: ${errorMessage(error)}`);
        return {
          items: await this.local(agent.name, options),
          problem: vscode.l10n.t('{0} could not start ({1}); these are the sessions kept on this computer.', agent.name, failureText(error)),
        };
      }
      if (!client.capabilities.supports('listSessions')) return { items: await this.local(agent.name, options), client };
      try {
        return { items: await this.listed(agent, client, roots, options), client };
      } catch (error) {
        if ((client.hasExited || error instanceof ConnectionClosedError) && attempt === 1) {
          this.log.info(`[history] ${agent.name} stopped while listing its sessions (${errorMessage(error)}); starting it again`);
          continue;
        }
        this.log.warn(`[history] ${agent.name} could not list its sessions: ${errorMessage(error)}`);
        return {
          items: await this.local(agent.name, options),
          client,
          problem: vscode.l10n.t(
            '{0} could not list its sessions ({1}); these are the sessions kept on this computer.',
            agent.name,
            failureText(error),
          ),
        };
      }
    }
  }

  /** Every page of the agent's sessions in each workspace folder, titled from the local history where the agent has no title. */
  private async listed(agent: AgentConfig, client: AgentClient, roots: readonly string[], options: ListOptions): Promise<PreviousSessionItem[]> {
    const kept = new Map((await this.store.list()).filter((s) => s.agent === agent.name).map((s) => [s.sessionId, s]));
    const seen = new Set<string>();
    const items: PreviousSessionItem[] = [];
    for (const root of roots) {
      for (const info of await client.listSessions(root, undefined, options.archived ? 'include' : undefined)) {
        if (seen.has(info.sessionId)) continue;
        seen.add(info.sessionId);
        const local = kept.get(info.sessionId);
        // Archived by the agent (SessionInfo.archived, unstable) or here; hidden unless archived ones were asked for.
        const archived = (info as { archived?: unknown }).archived === true || local?.archived === true;
        if (archived && !options.archived) continue;
        const title = info.title?.trim() || (local ? summaryLabel(local) : vscode.l10n.t('Untitled session'));
        const updatedAt = info.updatedAt ?? local?.updatedAt;
        items.push({
          agent: agent.name,
          sessionId: info.sessionId,
          cwd: info.cwd,
          title,
          ...(updatedAt ? { updatedAt } : {}),
          source: 'agent',
          ...(archived ? { archived } : {}),
        });
      }
    }
    return items.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  }

  /** The sessions kept on this computer for the agent, newest first. */
  private async local(agentName: string, options: ListOptions): Promise<PreviousSessionItem[]> {
    return (await this.store.list())
      .filter((s) => s.agent === agentName && (options.archived || !s.archived))
      .map((s) => ({
        agent: s.agent,
        sessionId: s.sessionId,
        cwd: s.cwd,
        title: summaryLabel(s),
        updatedAt: s.updatedAt,
        source: 'local' as const,
        ...(s.archived ? { archived: true } : {}),
      }));
  }

  /** An agent started only to list its sessions stops again once nothing uses it. */
  private stopIdle(client: AgentClient | undefined): void {
    if (client) void this.agents.release(client);
  }

  private async chooseAgent(): Promise<AgentConfig | undefined> {
    const { agents } = this.agents.catalog.read();
    if (agents.length === 0) {
      const open = vscode.l10n.t('Open Settings');
      const pick = await vscode.window.showErrorMessage(vscode.l10n.t('No agents are configured. Add one to the "acp.agents" setting.'), open);
      if (pick === open) await openAgentSettings();
      return undefined;
    }
    if (agents.length === 1) return agents[0];
    const pick = await vscode.window.showQuickPick(
      agents.map((agent) => ({ label: agent.name, description: [agent.command, ...agent.args].join(' '), agent })),
      { ignoreFocusOut: true, title: vscode.l10n.t('Open Previous Session'), placeHolder: vscode.l10n.t('Choose the agent whose sessions to list') },
    );
    return pick?.agent;
  }
}
