// Forking a session at one of the agent's messages. ACP's `session/fork` (unstable) copies a whole session, and no
// schema names a message yet: the `messageId` draft was set aside for the session cursors RFD. Agents that can fork
// at a message take the point in the request's `_meta.jetbrains.air.fork` (version 1), an extension that
// claude-agent-acp and codex-acp read and others advertise (capabilities.ts `forkAtMessage`):
//   {version: 1, messageId, messageFingerprint: "sha256:<hex of the message's text>", messageOccurrence}
// `messageId` is one of the agent's own messages, as its `agent_message_chunk`s named it. The new session keeps the
// conversation up to and including that message (the cut is inclusive); an agent that cannot find the point answers
// -32602 and copies nothing. The fingerprint and its occurrence (1-based, among the agent's messages with that same
// text up to the point) let the agent find a message whose id it no longer knows, say after a compaction.
import { createHash } from 'node:crypto';
import type { Entry } from './sessionState';

/**
 * Where to fork: one of the agent's messages, found by its id and, failing that, by its text; its text is checked
 * either way. The occurrence is known only when the model holds the agent's whole history of the session: without
 * it, an agent that no longer knows the id answers -32602 rather than guess among replies with the same text.
 */
export interface MessageForkPoint {
  readonly messageId: string;
  readonly fingerprint: string;
  readonly occurrence?: number;
}

/** The longest message id that is sent back to the agent (ids are short; anything longer is not an id to trust). */
const MAX_MESSAGE_ID = 1000;

const textOf = (entry: Extract<Entry, { type: 'message' }>): string =>
  entry.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

/**
 * The point to fork at so that the new session holds the conversation before `entries[userIndex]` (a user message):
 * the agent's message that ends the turn before it. Undefined when that turn does not end with a message of the
 * agent's that has an id: a tool call after it (a turn stopped during one), or a reply without an id, since the cut
 * would lose part of that turn; and for the first user message, before which there is nothing to keep.
 * `wholeHistory`: the entries are the agent's whole history of the session, so the occurrence can be counted.
 */
export function messageForkPoint(entries: readonly Entry[], userIndex: number, wholeHistory: boolean): MessageForkPoint | undefined {
  let point: Extract<Entry, { type: 'message' }> | undefined;
  for (let i = userIndex - 1; i >= 0 && !point; i--) {
    const entry = entries[i];
    if (entry === undefined || (entry.type === 'message' && entry.role === 'thought')) continue;
    if (entry.type !== 'message' || entry.role === 'user') return undefined;
    point = entry;
  }
  if (!point?.messageId || point.messageId.length > MAX_MESSAGE_ID) return undefined;
  const text = textOf(point);
  const fingerprint = `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
  if (!wholeHistory) return { messageId: point.messageId, fingerprint };
  let occurrence = 0;
  for (const entry of entries) {
    if (entry.type === 'message' && entry.role === 'agent' && textOf(entry) === text) occurrence++;
    if (entry === point) break;
  }
  return { messageId: point.messageId, fingerprint, occurrence };
}

/** The `_meta` of a `session/fork` request that forks at `point`. */
export function messageForkMeta(point: MessageForkPoint): Record<string, unknown> {
  const fork = {
    version: 1,
    messageId: point.messageId,
    messageFingerprint: point.fingerprint,
    ...(point.occurrence === undefined ? {} : { messageOccurrence: point.occurrence }),
  };
  return { jetbrains: { air: { fork } } };
}
