// The messages of a session's conversation: the agent's chunks appended to the message they continue (by id where
// the agent gives one), whole messages put by id (ACP v2's upserts), and the user's own, with the agent's echoes of
// them dropped (echoes.ts). The session model owns one; entries are its list, shared with tool calls and the rest.
import { Echoes } from './echoes';
import type * as S from './schema.gen';
import { ownBlock, type Entry, type MessageRole, type SessionChange } from './sessionState';

export class MessageLog {
  private readonly byMessageId = new Map<string, number>();
  private readonly echoes = new Echoes();

  constructor(
    private readonly entries: Entry[],
    private readonly nextId: () => number,
    private readonly fire: (change: SessionChange) => void,
  ) {}

  /** A chunk of a message: appended to the message it continues, or a new one. */
  chunk(role: MessageRole, update: S.ContentChunk): void {
    const block = update.content;
    if ((block.type === 'text' && block.text === '') || (role === 'user' && this.echoes.swallows(this.entries, block))) return;
    const messageId = update.messageId ?? undefined;
    const lastIndex = this.entries.length - 1;
    const last = this.entries[lastIndex];
    let index: number | undefined;
    // The agent's chunk never goes into a message the user sent from this chat.
    if (last?.type === 'message' && last.role === role && !last.sent && (messageId === undefined || last.messageId === messageId)) {
      index = lastIndex; // the message goes on (the common case, no lookup)
    } else if (messageId !== undefined) {
      index = this.byMessageId.get(keyOf(role, messageId)); // a message resumed after something else
    }
    const entry = index === undefined ? undefined : this.entries[index];
    if (index === undefined || entry?.type !== 'message' || entry.role !== role || entry.sent) {
      this.add(role, [ownBlock(block)], messageId);
      return;
    }
    const tail = entry.content[entry.content.length - 1];
    if (block.type === 'text' && tail?.type === 'text' && tail.annotations == null && block.annotations == null) {
      tail.text += block.text; // the tail is the model's own copy (see add), never the agent's object
    } else {
      entry.content.push(ownBlock(block));
    }
    this.fire({ type: 'entry', index, added: false });
  }

  add(role: MessageRole, content: S.ContentBlock[], messageId?: string, sent?: true): void {
    const index = this.entries.length;
    this.entries.push({ id: this.nextId(), type: 'message', role, content, ...(messageId !== undefined && { messageId }), ...(sent && { sent }) });
    if (messageId !== undefined) this.byMessageId.set(keyOf(role, messageId), index);
    this.fire({ type: 'entry', index, added: true });
  }

  /**
   * A message whole, by id (ACP v2): its content replaces what the message held (null or none clears it; absent
   * leaves it). The user's message the agent took in (v2's echo of a prompt) names the message the user sent, which
   * keeps what the user wrote.
   */
  put(role: MessageRole, messageId: string, content: readonly S.ContentBlock[] | null | undefined): void {
    const index = this.byMessageId.get(keyOf(role, messageId));
    const entry = index === undefined ? undefined : this.entries[index];
    if (index !== undefined && entry?.type === 'message' && entry.role === role) {
      if (content === undefined || entry.sent) return;
      entry.content.splice(0, entry.content.length, ...(content ?? []).map(ownBlock));
      return this.fire({ type: 'entry', index, added: false });
    }
    if (role === 'user' && this.nameSent(messageId)) return;
    if (content?.length) this.add(role, content.map(ownBlock), messageId);
    else this.byMessageId.delete(keyOf(role, messageId)); // cleared before it was shown: the chunks after it start it
  }

  /** The message of entry `entryId` (one the user sent) is the agent's `messageId`. */
  name(entryId: number, messageId: string): void {
    for (let index = this.entries.length - 1; index >= 0; index--) {
      const entry = this.entries[index]!;
      if (entry.id !== entryId) continue;
      if (entry.type !== 'message' || entry.messageId !== undefined) return;
      this.entries[index] = { ...entry, messageId };
      this.byMessageId.set(keyOf('user', messageId), index);
      return;
    }
  }

  /** The latest message the user sent with no id yet gets `messageId`: true when there was one. */
  private nameSent(messageId: string): boolean {
    for (let index = this.entries.length - 1; index >= 0; index--) {
      const entry = this.entries[index]!;
      if (entry.type !== 'message' || !entry.sent) continue;
      if (entry.messageId !== undefined) return false;
      this.entries[index] = { ...entry, messageId };
      this.byMessageId.set(keyOf('user', messageId), index);
      return true;
    }
    return false;
  }
}

/** Each role's messages have ids of their own (v2: a thought and a message may share one). */
function keyOf(role: MessageRole, messageId: string): string {
  return `${role}\0${messageId}`;
}
