// Messages written while a turn runs, waiting for it to end. Sent one at a time, each as its own turn, when a turn
// ends with end_turn; after a turn that ended any other way (stopped, refused, failed, the agent gone) the queue is
// held until the user says to send it. A message never goes on top of a running prompt. Pure: unit-tested in Node.

/** What Enter does while a turn runs: queue the message, send it into the running turn, or stop the turn and send it. */
export type WhileBusy = 'queue' | 'steer' | 'stopAndSend';

export interface Queued<A> {
  readonly id: number;
  readonly text: string;
  readonly attachments: readonly A[];
  /** Stop and Send: it goes as soon as the stopped turn has returned, however that turn ended. */
  readonly next?: true;
}

/** At most this many messages wait; more are refused with a sentence (the user's text goes back to the composer). */
export const MAX_QUEUED = 50;

export class MessageQueue<A> {
  private items: Queued<A>[] = [];
  private nextId = 1;
  /** A turn ended other than with end_turn: nothing goes until the user says so. */
  private isHeld = false;

  get all(): readonly Queued<A>[] {
    return this.items;
  }

  get held(): boolean {
    return this.isHeld && this.items.length > 0;
  }

  /** Adds a message at the end (or, for Stop and Send, in front). Undefined when the queue is full. */
  add(text: string, attachments: readonly A[], options: { next?: boolean } = {}): Queued<A> | undefined {
    if (this.items.length >= MAX_QUEUED) return undefined;
    const item: Queued<A> = { id: this.nextId++, text, attachments, ...(options.next ? { next: true as const } : {}) };
    // In front for Stop and Send; an earlier Stop and Send message behind it stays, as an ordinary one.
    this.items = options.next
      ? [item, ...this.items.map((i) => (i.next ? { id: i.id, text: i.text, attachments: i.attachments } : i))]
      : [...this.items, item];
    return item;
  }

  /** Takes a message out (to edit it, or to drop it). */
  remove(id: number): Queued<A> | undefined {
    const item = this.items.find((i) => i.id === id);
    if (item) this.items = this.items.filter((i) => i !== item);
    return item;
  }

  /** Moves a message up (-1) or down (+1); false when it cannot move. */
  move(id: number, by: -1 | 1): boolean {
    const from = this.items.findIndex((i) => i.id === id);
    const to = from + by;
    if (from < 0 || to < 0 || to >= this.items.length) return false;
    const items = [...this.items];
    [items[from], items[to]] = [items[to]!, items[from]!];
    this.items = items;
    return true;
  }

  /**
   * A turn ended: the message to send now, if any. After end_turn the next one goes; after any other end the queue
   * is held (unless its first message is a Stop and Send one, which was waiting for exactly that).
   */
  afterTurn(ended: { readonly stopReason?: string; readonly failed: boolean }): Queued<A> | undefined {
    const first = this.items[0];
    if (!first) {
      this.isHeld = false;
      return undefined;
    }
    if (first.next) return this.shift();
    if (ended.failed || ended.stopReason !== 'end_turn') this.isHeld = true;
    return this.isHeld ? undefined : this.shift();
  }

  /** The user said to send the held messages: the first one goes now, the rest after each end_turn. */
  release(): Queued<A> | undefined {
    this.isHeld = false;
    return this.shift();
  }

  /** Messages brought back (after a reload, or to a restarted agent): they wait for the user. */
  restore(items: readonly { readonly text: string; readonly attachments: readonly A[] }[]): void {
    for (const item of items.slice(0, MAX_QUEUED - this.items.length))
      this.items.push({ id: this.nextId++, text: item.text, attachments: item.attachments });
    if (this.items.length > 0) this.isHeld = true;
  }

  /** Holds what waits (the agent was restarted: nothing goes to it without asking). */
  hold(): void {
    if (this.items.length > 0) this.isHeld = true;
  }

  private shift(): Queued<A> | undefined {
    const [first, ...rest] = this.items;
    this.items = rest;
    return first;
  }
}
