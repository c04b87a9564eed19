// A chat whose tab closed while commands it had the client run still ran in the background (a dev server, a test
// watcher). VS Code cannot ask before a tab closes, so the session stays open with its commands until the user
// answers: Stop ends them with the session; Keep Running (or no answer) lets them run until they end or the agent
// stops, and the session closes then. Opened again meanwhile (from the Sessions view or the history), the chat takes
// its live session back, commands and all, and nothing is closed.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import { namedItems } from '../chat/backgroundConfirm';
import { DisposableStore } from '../common/disposables';

/**
 * What of the session runs in the background that closing it would stop: the commands the client runs for it, and
 * (v2) all the agent lists, which `session/close` stops.
 */
export function backgroundCommands(session: AgentSession): string[] {
  return session.model.background.items.flatMap((item) => (item.terminalId === undefined && !item.listed ? [] : [item.title]));
}

/** The sessions kept open after their chats closed, each with what gives it back to a chat. */
export class KeptSessions {
  private readonly kept = new Map<AgentSession, () => void>();

  constructor(private readonly log: Logger) {}

  /**
   * Asks what becomes of `session`'s background commands now that its chat (`title`) closed, and closes the session
   * once the user says Stop, or once nothing runs any more (or the agent is gone), whichever comes first; unless a
   * chat takes it back first (`adopt`). Only an `adoptable` session is given back: one whose chat showed nothing above
   * it, so that the chat that takes it back shows all it showed (else the chat opens as any earlier session does).
   */
  async closeAfterAsking(session: AgentSession, title: string, adoptable: boolean): Promise<void> {
    const named = namedItems(backgroundCommands(session));
    const message =
      named.length === 1
        ? vscode.l10n.t('You closed "{0}", and {1} still runs in the background.', title, named[0]!)
        : vscode.l10n.t('You closed "{0}", and {1} still run in the background.', title, named.join(', '));
    const stop = vscode.l10n.t('Stop');
    const keep = vscode.l10n.t('Keep Running');
    const subscriptions = new DisposableStore();
    const ended = new Promise<'ended'>((resolve) => {
      const check = () => (backgroundCommands(session).length === 0 || session.ended) && resolve('ended');
      subscriptions.push(
        session.model.onDidChange((change) => change.type === 'background' && check()),
        session.onDidEndAgent(check),
      );
    });
    const adopted = new Promise<'adopted'>((resolve) => adoptable && this.kept.set(session, () => resolve('adopted')));
    const answer = vscode.window.showWarningMessage(message, stop, keep).then((choice) => (choice === stop ? 'stop' : 'keep'));
    try {
      // Keep Running (or no answer yet) waits for the commands; Stop, or their end, closes the session now.
      let outcome = await Promise.race([ended, adopted, answer]);
      if (outcome === 'keep') {
        this.log.info(`[chats] "${title}" closed; its background commands run on until they end`);
        outcome = await Promise.race([ended, adopted]);
      }
      // Once out of the list no chat can take it back: not while it closes, nor after it was taken meanwhile.
      if (outcome !== 'adopted' && (!adoptable || this.kept.delete(session))) await session.close();
    } finally {
      this.kept.delete(session);
      subscriptions.dispose();
    }
  }

  /** The kept session `sessionId` of the agent `client`, given back to a chat that opens it again; nothing closes it. */
  adopt(client: AgentSession['client'], sessionId: string): AgentSession | undefined {
    for (const [session, release] of this.kept) {
      if (session.client !== client || session.sessionId !== sessionId || session.ended) continue;
      this.kept.delete(session);
      release();
      return session;
    }
    return undefined;
  }
}
