// Inter-session messages (unstable: part of the `subagents` client capability of schema.unstable.json): what one
// session sends another, such as the task a parent gives a subagent and the subagent's reply. `session_message`
// upserts a message by id with patch semantics (omitted keeps, `null` clears; `content: null` or `[]` clears it, a
// non-empty array replaces it); `session_message_chunk` appends a block, and may come before its upsert. Read
// strictly, as subagents.ts reads `subagent_update`: a malformed one is skipped with a log line.
import { z } from 'zod';

const id = z.string().min(1).max(1000);
/** A content block as far as this client shows it: text; other blocks are named by type. */
const Block = z.looseObject({ type: z.string().max(100), text: z.string().optional() });

const SessionMessageUpdate = z.object({
  sessionUpdate: z.literal('session_message'),
  messageId: id,
  senderSessionId: id.nullable().optional(),
  recipientSessionId: id.nullable().optional(),
  content: z.array(Block).max(1000).nullable().optional(),
});
const SessionMessageChunkUpdate = z.object({
  sessionUpdate: z.literal('session_message_chunk'),
  messageId: id,
  content: Block,
});
export const InterSessionUpdate = z.discriminatedUnion('sessionUpdate', [SessionMessageUpdate, SessionMessageChunkUpdate]);
export type InterSessionUpdate = z.infer<typeof InterSessionUpdate>;

/** The kinds read here, so the reader can tell them from ACP v1's own (a list: see inbound.ts `unstableKind`). */
export const INTER_SESSION_KINDS: readonly string[] = ['session_message', 'session_message_chunk'];

/** Characters of one message's text kept; messages kept per session, the oldest dropped first. */
export const MESSAGE_TEXT_LIMIT = 64 * 1024;
const MAX_MESSAGES = 200;

/** One inter-session message as a session observed it: who sent it to whom, and its text. */
export interface SessionMessageState {
  readonly messageId: string;
  senderSessionId?: string;
  recipientSessionId?: string;
  text: string;
  /** The text went past MESSAGE_TEXT_LIMIT; the rest was dropped. */
  truncated?: boolean;
  /** Arrival order in the session, for "the latest". */
  seq: number;
}

/** The inter-session messages one session observed, by id. */
export class SessionMessages {
  private readonly byId = new Map<string, SessionMessageState>();
  private seq = 0;

  get all(): readonly SessionMessageState[] {
    return [...this.byId.values()];
  }

  apply(update: InterSessionUpdate): void {
    const message = this.byId.get(update.messageId) ?? this.add(update.messageId);
    message.seq = ++this.seq;
    if (update.sessionUpdate === 'session_message_chunk') {
      append(message, update.content);
      return;
    }
    if (update.senderSessionId !== undefined) message.senderSessionId = update.senderSessionId ?? undefined;
    if (update.recipientSessionId !== undefined) message.recipientSessionId = update.recipientSessionId ?? undefined;
    if (update.content !== undefined) {
      message.text = '';
      delete message.truncated;
      for (const block of update.content ?? []) append(message, block);
    }
  }

  /**
   * The latest message from `from` to `to`, as seen by the session `observer` holding these messages: an omitted
   * sender or recipient is the observer itself.
   */
  latest(observer: string, from: string, to: string): SessionMessageState | undefined {
    let found: SessionMessageState | undefined;
    for (const m of this.byId.values()) {
      const sender = m.senderSessionId ?? observer;
      const recipient = m.recipientSessionId ?? observer;
      if (sender === from && recipient === to && (!found || m.seq > found.seq)) found = m;
    }
    return found;
  }

  private add(messageId: string): SessionMessageState {
    if (this.byId.size >= MAX_MESSAGES) this.byId.delete(this.byId.keys().next().value as string);
    const message: SessionMessageState = { messageId, text: '', seq: 0 };
    this.byId.set(messageId, message);
    return message;
  }
}

function append(message: SessionMessageState, block: z.infer<typeof Block>): void {
  if (message.truncated) return;
  const text = block.type === 'text' ? (block.text ?? '') : `[${block.type}]`;
  const room = MESSAGE_TEXT_LIMIT - message.text.length;
  if (text.length > room) message.truncated = true;
  message.text += text.length > room ? text.slice(0, room) : text;
}
