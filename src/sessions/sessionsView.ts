// The Sessions view in the ACP activity-bar container: each configured agent (running or not), under it its open
// chats and then its recent sessions kept on this computer (the archived ones only after "Show Archived"). Clicking
// a chat brings it forward; clicking a session opens it again (as "Open Previous Session" does). It refreshes as
// chats open, close and change title, and as the history changes.
import { readAgentUrl } from '../acp/agentUrl';
import * as vscode from 'vscode';
import type { AgentManager } from '../agents/manager';
import type { ChatPanel } from '../chat/panel';
import type { Chats } from '../chats/chats';
import type { Checkpoints } from '../checkpoints/checkpoints';
import type { Attention } from '../chat/attention';
import type { SessionTarget } from '../common/sessionTarget';
import { relativeTime } from './relativeTime';
import { summaryLabel, type TranscriptSummary } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import { DisposableStore } from '../common/disposables';
import type { WorktreeRecord, WorktreeRecords } from '../worktrees/records';

/** Sessions from the history shown under each agent. */
const HISTORY_SHOWN = 20;
/** The relative times are brought up to date this often while the view is visible. */
const REFRESH_MS = 60_000;

export type SessionNode =
  | { readonly kind: 'agent'; readonly name: string }
  /** A worktree made for chats, with its open chats of this agent under it. */
  | {
      readonly kind: 'worktree';
      readonly agent: string;
      readonly path: string;
      readonly record: WorktreeRecord;
      readonly panels: readonly ChatPanel[];
    }
  | { readonly kind: 'chat'; readonly panel: ChatPanel }
  | { readonly kind: 'history'; readonly summary: TranscriptSummary };

export class SessionsView implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables = new DisposableStore();
  private readonly chatIds = new WeakMap<ChatPanel, number>();
  private nextChatId = 1;
  private archivedShown = false;

  /** Archived chats are listed too ("Show Archived"), marked as such. */
  get showArchived(): boolean {
    return this.archivedShown;
  }

  set showArchived(show: boolean) {
    this.archivedShown = show;
    this.changeEmitter.fire();
  }

  constructor(
    private readonly chats: Chats,
    private readonly store: TranscriptStore,
    private readonly agents: AgentManager,
    private readonly checkpoints: Checkpoints,
    private readonly worktrees: WorktreeRecords,
  ) {
    const refresh = () => this.changeEmitter.fire();
    const stored = store.onDidChange(refresh);
    this.disposables.push(
      chats.onDidChange(refresh),
      checkpoints.onDidChange(refresh),
      agents.onDidChangeStatus(refresh),
      { dispose: () => stored.dispose() },
      agents.catalog.onDidChange(refresh),
      worktrees.onDidChange(refresh),
    );
  }

  /** Keeps "5 minutes ago" true while `view` is visible. */
  watch(view: vscode.TreeView<unknown>): void {
    let timer: NodeJS.Timeout | undefined;
    const update = () => {
      clearInterval(timer);
      timer = view.visible ? setInterval(() => this.changeEmitter.fire(), REFRESH_MS) : undefined;
    };
    update();
    this.disposables.push(view.onDidChangeVisibility(update), { dispose: () => clearInterval(timer) });
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    if (!node) {
      return this.agents.catalog.read().agents.map((agent) => ({ kind: 'agent', name: agent.name }));
    }
    if (node.kind === 'worktree') return node.panels.map((panel): SessionNode => ({ kind: 'chat', panel }));
    if (node.kind !== 'agent') return [];
    const chats = this.chats.all.filter((panel) => panel.agentName === node.name);
    const open = new Set(chats.flatMap((panel) => (panel.model.session ? [panel.model.session.sessionId] : [])));
    const history = (await this.store.list())
      .filter((summary) => summary.agent === node.name && !open.has(summary.sessionId) && (this.archivedShown || !summary.archived))
      .slice(0, HISTORY_SHOWN);
    return [...this.grouped(node.name, chats), ...history.map((summary): SessionNode => ({ kind: 'history', summary }))];
  }

  /** Open chats in order, those in a worktree made for chats under that worktree (where the first of them was). */
  private grouped(agent: string, chats: readonly ChatPanel[]): SessionNode[] {
    const nodes: SessionNode[] = [];
    const groups = new Map<string, ChatPanel[]>();
    for (const panel of chats) {
      const cwd = panel.model.session?.cwd ?? panel.model.restoreLater?.cwd;
      const record = cwd !== undefined ? this.worktrees.find(cwd) : undefined;
      if (!record) {
        nodes.push({ kind: 'chat', panel });
        continue;
      }
      const group = groups.get(record.path);
      if (group) group.push(panel);
      else {
        const panels = [panel];
        groups.set(record.path, panels);
        nodes.push({ kind: 'worktree', agent, path: record.path, record, panels });
      }
    }
    return nodes;
  }

  async getTreeItem(node: SessionNode): Promise<vscode.TreeItem> {
    switch (node.kind) {
      case 'agent': {
        // An agent with nothing under it has no twistie. The id changes with that, or VS Code would keep the agent
        // collapsed once it has chats.
        const children = await this.getChildren(node);
        const filled = children.length > 0;
        const item = new vscode.TreeItem(node.name, filled ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        const status = this.agents.status(node.name);
        item.id = `agent:${node.name}:${filled ? 'filled' : 'empty'}`;
        item.description =
          status.phase === 'running'
            ? vscode.l10n.t('running')
            : status.phase === 'starting'
              ? vscode.l10n.t('starting')
              : status.phase === 'failed'
                ? vscode.l10n.t('stopped with an error')
                : vscode.l10n.t('not running');
        if (status.phase === 'failed') item.tooltip = vscode.l10n.t('{0} stopped: {1}', node.name, status.error);
        const entry = this.agents.catalog.find(node.name);
        if (entry?.url !== undefined) item.description = `${item.description as string} · ${readAgentUrl(entry.url).host}`; // where it runs
        const account = this.agents.account(node.name);
        if (account) {
          item.description = `${item.description as string} · ${account}`;
          item.tooltip = vscode.l10n.t('{0}: {1}', node.name, account);
        }
        item.iconPath = new vscode.ThemeIcon(
          status.phase === 'running' ? 'vm-running' : 'vm-outline',
          status.phase === 'failed' ? new vscode.ThemeColor('errorForeground') : undefined,
        );
        const inBackground = workingInBackground(children);
        if (inBackground > 0) item.description = vscode.l10n.t('{0} · {1} in background', item.description as string, inBackground);
        const installed = entry?.installed;
        if (installed?.update) item.description = vscode.l10n.t('{0} · {1} available', item.description as string, installed.update);
        // `acp.agent.installed[.update]`: the menus match `acp.agent` as a prefix, and Update/Uninstall only installed agents.
        item.contextValue = installed ? `acp.agent.installed${installed.update ? '.update' : ''}` : 'acp.agent';
        return item;
      }
      case 'worktree': {
        const { record } = node;
        const item = new vscode.TreeItem(record.branch, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `worktree:${node.agent}:${record.path}`;
        const stats = this.worktrees.stats(record.path);
        if (stats) item.description = vscode.l10n.t('{0} ahead · +{1} −{2}', stats.ahead, stats.added, stats.removed);
        item.tooltip = vscode.l10n.t('The worktree {0}: branch {1}, from {2}', record.path, record.branch, record.base);
        item.iconPath = new vscode.ThemeIcon('git-branch');
        // The worktree's actions act on its folder (`path`).
        item.contextValue = 'acp.worktree';
        return item;
      }
      case 'chat': {
        const panel = node.panel;
        const item = new vscode.TreeItem(panel.title, vscode.TreeItemCollapsibleState.None);
        item.id = `chat:${this.chatId(panel)}`;
        const totals = panel.model.session ? this.checkpoints.of(panel.agentName, panel.model.session.sessionId)?.totals() : undefined;
        const state = attentionWords(panel.attention);
        item.description =
          totals && (totals.added > 0 || totals.removed > 0) ? vscode.l10n.t('{0} · +{1} −{2}', state, totals.added, totals.removed) : state;
        item.tooltip = vscode.l10n.t('{0}: an open chat with {1}', panel.title, panel.agentName);
        // A chat in a worktree is under it (which says its branch and figures); its menu has the worktree's actions.
        const worktree = panel.model.session ? this.worktrees.find(panel.model.session.cwd) : undefined;
        if (worktree) {
          item.description = state;
          item.tooltip = vscode.l10n.t(
            '{0}: an open chat with {1}, in the worktree {2} (branch {3}, from {4})',
            panel.title,
            panel.agentName,
            worktree.path,
            worktree.branch,
            worktree.base,
          );
        }
        item.iconPath =
          panel.attention === 'needsYou'
            ? new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('notificationsWarningIcon.foreground'))
            : panel.attention === 'failed'
              ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
              : new vscode.ThemeIcon(worktree ? 'git-branch' : 'comment-discussion');
        item.contextValue = worktree ? 'acp.chat.worktree' : 'acp.chat';
        item.command = { command: 'acp.sessions.revealChat', title: vscode.l10n.t('Show Chat'), arguments: [node] };
        return item;
      }
      case 'history': {
        const summary = node.summary;
        const label = summaryLabel(summary);
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.id = `history:${summary.agent}:${summary.sessionId}`;
        const when = relativeTime(summary.updatedAt, Date.now(), vscode.env.language);
        const words = [summary.archived ? vscode.l10n.t('archived') : undefined, when].filter((w) => w !== undefined);
        if (words.length > 0) item.description = words.join(' · ');
        item.tooltip = vscode.l10n.t(
          '{0}\nLast changed {1}, in {2}',
          label,
          new Date(summary.updatedAt).toLocaleString(vscode.env.language),
          summary.cwd,
        );
        item.iconPath = new vscode.ThemeIcon(summary.archived ? 'archive' : 'history');
        item.contextValue = summary.archived ? 'acp.history.archived' : 'acp.history';
        const target: SessionTarget = { agent: summary.agent, sessionId: summary.sessionId, cwd: summary.cwd };
        item.command = { command: 'acp.openPreviousSession', title: vscode.l10n.t('Open Previous Session'), arguments: [target] };
        return item;
      }
    }
  }

  private chatId(panel: ChatPanel): number {
    let id = this.chatIds.get(panel);
    if (id === undefined) this.chatIds.set(panel, (id = this.nextChatId++));
    return id;
  }

  dispose(): void {
    this.disposables.dispose();
    this.changeEmitter.dispose();
  }
}

/** The chats among `nodes` whose work outlived their turn: not done, though no turn runs. */
function workingInBackground(nodes: readonly SessionNode[]): number {
  const panels = nodes.flatMap((node) => (node.kind === 'chat' ? [node.panel] : node.kind === 'worktree' ? node.panels : []));
  return panels.filter((panel) => panel.attention === 'background').length;
}

/** A chat's state in words, for its row: what it asks of the user, else that it is open. */
function attentionWords(attention: Attention): string {
  switch (attention) {
    case 'needsYou':
      return vscode.l10n.t('needs you');
    case 'working':
      return vscode.l10n.t('working');
    case 'background':
      return vscode.l10n.t('working in background');
    case 'unseen':
      return vscode.l10n.t('done');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'none':
      return vscode.l10n.t('open');
  }
}
