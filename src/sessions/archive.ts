// Archive Chat and Unarchive Chat. An archived chat leaves the Sessions view and Open Previous Session, until "Show
// Archived"; Search Chats still finds it, and opening it brings it back. Where the agent advertises archiving
// (unstable `session/archive`, `session/unarchive`), its own copy is archived too; otherwise only this computer
// keeps the mark, and nothing is said to the agent.
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';
import { summaryLabel } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import { withAgentCopy, type AgentCopyResult } from './agentCopy';
import { chatTarget, targetSession } from './chatTarget';
import type { SessionsView } from './sessionsView';

/** The context key the Sessions view's title menu reads: archived chats are shown. */
const SHOWING_ARCHIVED = 'acp.sessions.showingArchived';

export class ChatArchive implements vscode.Disposable {
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    private readonly agents: AgentManager,
    private readonly store: TranscriptStore,
    private readonly log: Logger,
    private readonly view: SessionsView,
  ) {
    this.disposables = new DisposableStore(
      vscode.commands.registerCommand('acp.archiveChat', (target?: unknown) => this.archive(target)),
      vscode.commands.registerCommand('acp.unarchiveChat', (target?: unknown) => this.unarchive(target)),
      vscode.commands.registerCommand('acp.sessions.showArchived', () => this.showArchived(true)),
      vscode.commands.registerCommand('acp.sessions.hideArchived', () => this.showArchived(false)),
    );
    void vscode.commands.executeCommand('setContext', SHOWING_ARCHIVED, false);
  }

  /** Archive Chat: an open chat closes. True when the chat was archived. */
  private async archive(value: unknown): Promise<boolean> {
    const target = await chatTarget(this.chats, this.store, value);
    if (!target) return false;
    const { agent, sessionId, cwd } = targetSession(target);
    if (sessionId === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('This chat has no session yet, so there is nothing to archive.'));
      return false;
    }
    let atAgent: AgentCopyResult<boolean>;
    if ('open' in target) {
      // Through the chat's own session: the agent frees it as it archives it, so it is not closed a second time.
      const session = target.open.session;
      try {
        atAgent = { value: session ? await session.archive() : false };
      } catch (error) {
        this.log.warn(`[history] ${agent} could not archive session ${sessionId}: ${errorMessage(error)}`);
        atAgent = { failed: 'call', error };
      }
      target.open.dispose();
    } else {
      atAgent = await withAgentCopy(this.agents, this.log, agent, cwd, `archive session ${sessionId}`, (client) =>
        client.setArchived(sessionId, true),
      );
    }
    await this.store.setArchived(agent, sessionId, true);
    this.report(agent, sessionId, atAgent, true);
    return true;
  }

  /** Unarchive Chat: the chat named, or one picked from the archived ones. True when one was brought back. */
  private async unarchive(value: unknown): Promise<boolean> {
    const summary =
      value === undefined
        ? await this.pickArchived()
        : await chatTarget(this.chats, this.store, value).then((t) => (t && 'kept' in t ? t.kept : undefined));
    if (!summary) return false;
    const { agent, sessionId, cwd } = summary;
    const atAgent = await withAgentCopy(this.agents, this.log, agent, cwd, `unarchive session ${sessionId}`, (client) =>
      client.setArchived(sessionId, false),
    );
    await this.store.setArchived(agent, sessionId, false);
    this.report(agent, sessionId, atAgent, false);
    return true;
  }

  private async pickArchived() {
    const archived = (await this.store.list()).filter((s) => s.archived);
    if (archived.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No chat of this workspace is archived.'));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      archived.map((summary) => ({ label: summaryLabel(summary), description: summary.agent, summary })),
      { title: vscode.l10n.t('Unarchive Chat'), placeHolder: vscode.l10n.t('Choose the chat to bring back') },
    );
    return pick?.summary;
  }

  /** One log line; a warning when the agent failed to do its part (this computer's mark stands). */
  private report(agent: string, sessionId: string, atAgent: AgentCopyResult<boolean>, archived: boolean): void {
    const done = archived ? 'archived' : 'unarchived';
    if (atAgent && 'failed' in atAgent) {
      void vscode.window.showWarningMessage(
        archived
          ? vscode.l10n.t('The chat was archived on this computer, but {0} did not archive its own copy: {1}', agent, failureText(atAgent.error))
          : vscode.l10n.t(
              'The chat was brought back on this computer, but {0} did not unarchive its own copy: {1}',
              agent,
              failureText(atAgent.error),
            ),
      );
      return;
    }
    const where = atAgent?.value ? `here and by ${agent}` : 'on this computer only';
    this.log.info(`[history] ${done} ${agent} session ${sessionId} ${where}`);
  }

  private async showArchived(show: boolean): Promise<void> {
    this.view.showArchived = show;
    await vscode.commands.executeCommand('setContext', SHOWING_ARCHIVED, show);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
