// Archive Chat and Unarchive Chat. An archived chat leaves the Sessions view and Open Previous Session, until "Show
// Archived"; Search Chats still finds it, and opening it brings it back. This computer's mark comes first (the row
// goes at once); where the agent advertises archiving (unstable `session/archive`, `session/unarchive`) and runs, its
// own copy is archived too, bounded in time. No agent is started for it: a chat archived only here is unarchived at
// the agent when it is opened again (chats/reopen.ts), and the lists hide it by this computer's mark meanwhile.
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';
import { summaryLabel } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import { chatTarget, targetSession } from './chatTarget';
import type { SessionsView } from './sessionsView';

/** The context key the Sessions view's title menu reads: archived chats are shown. */
const SHOWING_ARCHIVED = 'acp.sessions.showingArchived';

/** What the agent did with its own copy: archived it, could not (why), or was not asked (it does not archive, or does not run). */
type AtAgent = 'done' | 'notAsked' | { readonly failed: unknown };

export class ChatArchive implements vscode.Disposable {
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    private readonly agents: AgentManager,
    private readonly store: TranscriptStore,
    private readonly log: Logger,
    private readonly view: SessionsView,
  ) {
    this.disposables = new DisposableStore();
    void vscode.commands.executeCommand('setContext', SHOWING_ARCHIVED, false);
  }

  /** Archive Chat: an open chat closes (a running turn stops, after the user agrees). True when the chat was archived. */
  async archive(value: unknown): Promise<boolean> {
    const target = await chatTarget(this.chats, this.store, value);
    if (!target) return false;
    const { agent, sessionId } = targetSession(target);
    if (sessionId === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('This chat has no session yet, so there is nothing to archive.'));
      return false;
    }
    let atAgent: AtAgent = 'notAsked';
    if ('open' in target) {
      const session = target.open.model.session;
      if (session && session.model.turn.phase !== 'idle' && !(await this.confirmStop(agent))) return false;
      // Through the chat's own session: the agent frees it as it archives it, so it is not closed a second time.
      try {
        if (session && (await session.archive())) atAgent = 'done';
      } catch (error) {
        atAgent = { failed: error };
      }
      target.open.dispose();
      await this.store.setArchived(agent, sessionId, true);
    } else {
      await this.store.setArchived(agent, sessionId, true);
      // Opened meanwhile: opening brings it back, so the agent's copy is left alone.
      if (!this.chats.showing(agent, sessionId)) atAgent = await this.atAgent(this.agents.client(agent), sessionId, true);
    }
    this.report(agent, sessionId, atAgent, true);
    return true;
  }

  /** Unarchive Chat: the chat named, or one picked from the archived ones. True when one was brought back. */
  async unarchive(value: unknown): Promise<boolean> {
    const summary =
      value === undefined
        ? await this.pickArchived()
        : await chatTarget(this.chats, this.store, value).then((t) => (t && 'kept' in t ? t.kept : undefined));
    if (!summary) return false;
    const { agent, sessionId } = summary;
    await this.store.setArchived(agent, sessionId, false);
    this.report(agent, sessionId, await this.atAgent(this.agents.client(agent), sessionId, false), false);
    return true;
  }

  private async atAgent(client: AgentClient | undefined, sessionId: string, archived: boolean): Promise<AtAgent> {
    if (!client || client.hasExited) return 'notAsked';
    try {
      return (await client.setArchived(sessionId, archived)) ? 'done' : 'notAsked';
    } catch (error) {
      return { failed: error };
    }
  }

  private async confirmStop(agent: string): Promise<boolean> {
    const archive = vscode.l10n.t('Stop and Archive');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} is still working in this chat. Archiving it stops the turn and closes the chat.', agent),
      { modal: true },
      archive,
    );
    return pick === archive;
  }

  private async pickArchived() {
    const archived = (await this.store.list()).filter((s) => s.archived);
    if (archived.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No chat of this workspace is archived.'));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      archived.map((summary) => ({ label: summaryLabel(summary), description: summary.agent, summary })),
      { ignoreFocusOut: true, title: vscode.l10n.t('Unarchive Chat'), placeHolder: vscode.l10n.t('Choose the chat to bring back') },
    );
    return pick?.summary;
  }

  /** One log line; a warning when the agent failed to do its part (this computer's mark stands). */
  private report(agent: string, sessionId: string, atAgent: AtAgent, archived: boolean): void {
    const done = archived ? 'archived' : 'unarchived';
    if (typeof atAgent === 'object') {
      this.log.warn(`[history] ${agent} could not ${archived ? 'archive' : 'unarchive'} session ${sessionId}: ${errorMessage(atAgent.failed)}`);
      void vscode.window.showWarningMessage(
        archived
          ? vscode.l10n.t('The chat was archived on this computer, but {0} did not archive its own copy: {1}', agent, failureText(atAgent.failed))
          : vscode.l10n.t(
              'The chat was brought back on this computer, but {0} did not unarchive its own copy: {1}',
              agent,
              failureText(atAgent.failed),
            ),
      );
      return;
    }
    this.log.info(`[history] ${done} ${agent} session ${sessionId} ${atAgent === 'done' ? `here and by ${agent}` : 'on this computer'}`);
  }

  async showArchived(show: boolean): Promise<void> {
    this.view.showArchived = show;
    await vscode.commands.executeCommand('setContext', SHOWING_ARCHIVED, show);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
