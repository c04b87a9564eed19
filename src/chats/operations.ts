// What the chat commands do to one chat beyond opening it: Rename (kept here, and given to agents that store
// titles), Export as Markdown, and Send Feedback (a message with its own context, once the running turn has ended).
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { ChatPanel } from '../chat/panel';
import type { NewAttachment } from '../composer/prompt';
import type { EntryView } from '../chat/protocol';
import { entryView } from '../chat/view';
import type { SessionModel } from '../acp/sessionModel';
import type { StoredEntry } from '../history/format';
import { workspaceRoots } from '../common/workspace';
import { exportMarkdown } from '../history/exportMarkdown';
import { storedEntries } from '../history/format';
import type { Carried } from './chatSession';
import { failureText } from '../common/failureText';
import type { PlanUnderReview } from '../plans/planReviews';

const MAX_TITLE = 200;

/** Renames the chat; an agent that stores titles (unstable session/set_title) gets it too, and may normalize it. */
export async function renameChat(panel: ChatPanel, title: string, log: Logger): Promise<void> {
  const session = panel.model.session;
  if (!session) return;
  let stored = title.trim().slice(0, MAX_TITLE);
  if (stored === '') return;
  if (session.client.capabilities.supports('setSessionTitle')) {
    try {
      // The agent may normalize it: the chat shows what it stored.
      const answer = await session.client.process.connection.setSessionTitle({ sessionId: session.sessionId, title: stored });
      stored = answer.title.trim().slice(0, MAX_TITLE) || stored;
    } catch (error) {
      log.warn(`[chats] ${panel.agentName} did not store the title: ${errorMessage(error)}`);
      panel.model.tell(vscode.l10n.t('{0} did not store the title ({1}); it is kept on this computer.', panel.agentName, failureText(error)));
    }
  }
  session.model.rename(stored);
}

/** Export Chat as Markdown: the conversation kept above the session (`carried`, if any), then the session's own. */
export function chatMarkdown(panel: ChatPanel, carried: Carried | undefined): string {
  const session = panel.model.session;
  const own = session ? storedEntries(session.model).length : 0;
  const earlier = carried ? carried.entries.slice(0, Math.max(0, carried.entries.length - own)) : [];
  return exportMarkdown({
    title: panel.title,
    agent: panel.agentName,
    cwd: session?.cwd ?? workspaceRoots()[0] ?? '',
    exportedAt: new Date(),
    earlier,
    ...(session ? { model: session.model, turnEnds: session.model.turnEnds } : {}),
  });
}

/**
 * Sends a message with its own context (Send Feedback) in `panel`, once the turn running there has ended. Resolves
 * when the message has been sent; a chat that refuses it says why.
 */
export async function sendAfterTurn(panel: ChatPanel | undefined, text: string, context: readonly NewAttachment[]): Promise<void> {
  const session = panel?.model.session;
  if (!panel || !session) throw new Error(vscode.l10n.t('The chat these comments belong to is closed.'));
  if (session.model.turn.phase !== 'idle') {
    panel.model.tell(vscode.l10n.t('Your feedback will be sent when {0} has finished this turn.', panel.agentName));
    await new Promise<void>((resolve) => {
      const waiting = session.model.onDidChange((change) => {
        if (change.type === 'turn' && session.model.turn.phase === 'idle') {
          waiting.dispose();
          resolve();
        }
      });
    });
  }
  panel.reveal();
  const sent = panel.sendContext(text, context);
  sent.catch((error: unknown) => panel.model.tell(vscode.l10n.t('The feedback was not sent: {0}', failureText(error))));
}

/**
 * Send Feedback on Plan: the plan's approval, if it still waits, is answered "keep planning" (the agent's option for
 * it, else its first reject option: no agent takes feedback with its answer today), and the feedback goes as the next
 * message once the turn has ended.
 */
export async function sendPlanFeedback(panel: ChatPanel, approval: PlanUnderReview['approval'], feedback: string): Promise<void> {
  const model = approval && panel.model.modelOf(approval.sessionId);
  // The same request, not one that took its number since (a session opened again numbers its requests anew).
  const pending = model?.permissions.find((p) => p.id === approval?.permissionId && p.toolCallId === approval.toolCallId);
  if (model && pending) {
    const effects = model.quirks.planOptions;
    const keep =
      pending.options.find((o) => effects[o.optionId] === 'keepPlanning') ??
      pending.options.find((o) => o.kind === 'reject_once') ??
      pending.options.find((o) => o.kind === 'reject_always');
    if (keep)
      await panel.dispatch({
        type: 'permission',
        id: pending.id,
        optionId: keep.optionId,
        ...(approval.sessionId ? { sessionId: approval.sessionId } : {}),
      });
  }
  await sendAfterTurn(panel, feedback, []);
}

/**
 * Where Fork from Here starts: the conversation before `entryId` (a user message; the whole conversation without
 * one) as views and as what is kept, that message's text for the new composer, and whether later messages exist
 * (the agent's copy remembers them). Undefined when the message is not in the session.
 */
export function forkPoint(
  model: SessionModel,
  entryId: number | undefined,
  cwd: string,
  carried: Carried | undefined,
): { before: EntryView[]; kept: StoredEntry[]; draft: string; laterMessages: boolean } | undefined {
  const at = entryId === undefined ? -1 : model.entries.findIndex((e) => e.id === entryId && e.type === 'message' && e.role === 'user');
  if (entryId !== undefined && at < 0) return undefined;
  const upTo = at < 0 ? model.entries.length : at;
  const message = at < 0 ? undefined : model.entries[at];
  const draft = message?.type === 'message' ? message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') : '';
  const laterMessages = model.entries.slice(upTo + 1).some((e) => e.type === 'message' && e.role === 'user');
  const before = model.entries.slice(0, upTo).map((entry) => entryView(entry, cwd, model.terminals));
  const prefix = carried ? carried.entries.length - storedEntries(model).length : 0;
  const kept = [...(carried?.entries.slice(0, Math.max(0, prefix)) ?? []), ...storedEntries(model, upTo)];
  return { before, kept, draft, laterMessages };
}
