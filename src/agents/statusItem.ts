// The status bar item for the current agent (the active chat's, else the one New Chat uses) and its state:
// not running, starting, ready, busy (a turn runs in one of its chats), or failed. A click opens Select Agent.
// The entry point shows it at once (the agent New Chat uses, not running); the core connects it to the agents and
// chats when it loads. It imports no schemas, so it costs the entry point nothing.
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import type { AgentManager } from './manager';
import type { Chats } from '../chats/chats';
import { SECTION } from '../ids';
import { DisposableStore } from '../common/disposables';
import { accountWords } from './account';

export class AgentStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('acp.agent', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables = new DisposableStore();
  private sources: { readonly agents: AgentManager; readonly chats: Chats } | undefined;
  /** Watchers of the shown agent's sessions (their turns make it busy). */
  private watched: { client: AgentClient; subscription: DisposableStore } | undefined;

  constructor() {
    this.item.name = vscode.l10n.t('ACP Agent');
    this.item.command = 'acp.selectAgent';
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.defaultAgent`) || event.affectsConfiguration(`${SECTION}.agents`)) this.update();
      }),
    );
    this.update();
    this.item.show();
  }

  /** From now on the item follows the agents' states and the active chat. */
  connect(agents: AgentManager, chats: Chats): void {
    this.sources = { agents, chats };
    this.disposables.push(
      agents.onDidChangeStatus(() => this.update()),
      chats.onDidChange(() => this.update()),
    );
    this.update();
  }

  private update(): void {
    const defaultAgent = vscode.workspace.getConfiguration(SECTION).get<string>('defaultAgent')?.trim() || undefined;
    const name = this.sources?.chats.target?.agentName ?? defaultAgent;
    if (!name) {
      this.watch(undefined);
      this.show('$(hubot)', vscode.l10n.t('Select Agent'), vscode.l10n.t('No agent chosen yet.'));
      return;
    }
    const status = this.sources?.agents.status(name) ?? { phase: 'stopped' };
    this.watch(status.phase === 'running' ? status.client : undefined);
    switch (status.phase) {
      case 'starting':
        this.show('$(loading~spin)', name, vscode.l10n.t('{0} is starting.', name));
        break;
      case 'failed':
        this.show('$(error)', name, vscode.l10n.t('{0} stopped: {1}', name, status.error), true);
        break;
      case 'stopped':
        this.show('$(hubot)', name, vscode.l10n.t('{0} is not running; it starts with a chat.', name));
        break;
      case 'running': {
        const sessions = status.client.openSessions;
        const busy = sessions.some((s) => s.model.turn.phase !== 'idle');
        const chats = sessions.length === 1 ? vscode.l10n.t('1 open chat') : vscode.l10n.t('{0} open chats', sessions.length);
        const state = busy ? vscode.l10n.t('{0} is busy ({1}).', name, chats) : vscode.l10n.t('{0} is ready ({1}).', name, chats);
        const account = accountWords(status.client.auth.status);
        this.show(busy ? '$(sync~spin)' : '$(hubot)', name, account ? `${state}\n${account}` : state);
        break;
      }
    }
  }

  private show(icon: string, label: string, state: string, error = false): void {
    this.item.text = `${icon} ${label}`;
    this.item.tooltip = `${state}\n${vscode.l10n.t('Click to choose the agent for new chats.')}`;
    this.item.accessibilityInformation = { label: vscode.l10n.t('ACP agent: {0}', state) };
    this.item.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  /** Follows the turns of `client`'s sessions, so the item shows busy while one runs. */
  private watch(client: AgentClient | undefined): void {
    if (this.watched?.client === client) return;
    this.watched?.subscription.dispose();
    this.watched = undefined;
    if (!client) return;
    const sessions = new DisposableStore();
    const watchSessions = () => {
      sessions.clear();
      for (const session of client.openSessions) {
        sessions.push(session.model.onDidChange((change) => change.type === 'turn' && this.update()));
      }
    };
    const subscription = new DisposableStore(
      client.onDidChangeSessions(() => {
        watchSessions();
        this.update();
      }),
      sessions,
    );
    watchSessions();
    this.watched = { client, subscription };
  }

  dispose(): void {
    this.disposables.dispose();
    this.watched?.subscription.dispose();
    this.item.dispose();
  }
}
