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

/** Asks what becomes of `session`'s background commands now that its chat (`title`) closed, then closes it. */
export async function closeAfterAsking(session: AgentSession, title: string, log: Logger): Promise<void> {
  const named = namedItems(backgroundCommands(session));
  const stop = vscode.l10n.t('Stop');
  const keep = vscode.l10n.t('Keep Running');
  const message =
    named.length === 1
      ? vscode.l10n.t('You closed "{0}", and {1} still runs in the background.', title, named[0]!)
      : vscode.l10n.t('You closed "{0}", and {1} still run in the background.', title, named.join(', '));
  const choice = await vscode.window.showWarningMessage(message, stop, keep);
  if (choice !== stop && backgroundCommands(session).length > 0 && !session.ended) {
    log.info(`[chats] "${title}" closed; its background commands run on until they end`);
    await new Promise<void>((resolve) => {
      const check = () => {
        if (backgroundCommands(session).length > 0 && !session.ended) return;
        changes.dispose();
        ended.dispose();
        resolve();
      };
      const changes = session.model.onDidChange((change) => change.type === 'background' && check());
      const ended = session.onDidEndAgent(check);
    });
  }
  await session.close();
}
