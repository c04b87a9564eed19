// A chat whose tab closed while commands it had the client run still ran in the background (a dev server, a test
// watcher). VS Code cannot ask before a tab closes, so the session stays open with its commands until the user
// answers: Stop ends them with the session; Keep Running (or no answer) lets them run until they end or the agent
// stops, and the session closes then.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import { namedItems } from '../chat/backgroundConfirm';

/** The commands of the session that run in the background: what closing it would kill. */
export function backgroundCommands(session: AgentSession): string[] {
  return session.model.background.items.flatMap((item) => (item.terminalId === undefined ? [] : [item.title]));
}

/**
 * Asks what becomes of `session`'s background commands now that its chat (`title`) closed, and closes the session once
 * the user says Stop, or once nothing runs any more (or the agent is gone), whichever comes first.
 */
export async function closeAfterAsking(session: AgentSession, title: string, log: Logger): Promise<void> {
  const named = namedItems(backgroundCommands(session));
  const stop = vscode.l10n.t('Stop');
  const keep = vscode.l10n.t('Keep Running');
  const message =
    named.length === 1
      ? vscode.l10n.t('You closed "{0}", and {1} still runs in the background.', title, named[0]!)
      : vscode.l10n.t('You closed "{0}", and {1} still run in the background.', title, named.join(', '));
  let done: () => void = () => undefined;
  const ended = new Promise<'ended'>((resolve) => {
    const check = () => {
      if (backgroundCommands(session).length > 0 && !session.ended) return;
      done();
      resolve('ended');
    };
    const changes = session.model.onDidChange((change) => change.type === 'background' && check());
    const agentEnd = session.onDidEndAgent(check);
    done = () => {
      changes.dispose();
      agentEnd.dispose();
    };
  });
  const answer = vscode.window.showWarningMessage(message, stop, keep).then((choice) => (choice === stop ? 'stop' : 'keep'));
  // Keep Running (or no answer yet) waits for the commands; Stop, or their end, closes the session now.
  if ((await Promise.race([ended, answer])) === 'keep') {
    log.info(`[chats] "${title}" closed; its background commands run on until they end`);
    await ended;
  }
  done();
  await session.close();
}
