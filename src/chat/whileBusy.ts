// What a message written while a turn runs becomes: queued (sent when the turn ends), sent into the running turn
// (steering, for agents that advertise it), or sent once the turn has been stopped. One per chat panel.
import * as vscode from 'vscode';
import type { SteerOutcome } from '../acp/sessionHandle';
import { MAX_QUEUED, MessageQueue, type Queued, type WhileBusy } from './queue';
import type { QueueView } from './protocol';

export interface WhileBusyHost<A, R = unknown> {
  /** Sends a message as its own turn; resolves when the turn ends. */
  send(text: string, attachments: readonly A[]): Promise<R>;
  /** Sends a message into the running turn. */
  steer(text: string, attachments: readonly A[]): Promise<SteerOutcome>;
  /** Whether the agent takes messages into a running turn. */
  canSteer(): boolean;
  /** Whether a turn runs now. */
  busy(): boolean;
  /** Stops the running turn. */
  cancel(): Promise<void>;
  /** Puts a message back into the composer (its text and attachments), with why. */
  giveBack(text: string, attachments: readonly A[], reason: string): void;
  /** The queue changed: the view shows it again. */
  changed(): void;
  /** A quiet line in the chat. */
  tell(text: string): void;
}

/** `acp.chat.whileBusy`: what Enter does while a turn runs. */
function readWhileBusy(): WhileBusy {
  const value = vscode.workspace.getConfiguration('acp').get<string>('chat.whileBusy');
  return value === 'steer' || value === 'stopAndSend' ? value : 'queue';
}

export class WhileBusyMessages<A, R = unknown> {
  readonly queue = new MessageQueue<A>();
  private saidNoSteer = false;
  /** A message of ours is on its way or its turn runs: from the send until its turn has ended. */
  private sending = false;
  /** How the last turn ended, for the next message once ours has returned. */
  private lastEnded: { readonly stopReason?: string; readonly failed: boolean } = { stopReason: 'end_turn', failed: false };

  constructor(
    private readonly host: WhileBusyHost<A, R>,
    private readonly agentName: string,
  ) {}

  /**
   * A message written while a turn runs (or just as it ended), sent the way `mode` (or the setting) says. Returns
   * the send when it went now as its own turn; undefined when it was queued, steered or given back.
   */
  submit(text: string, attachments: readonly A[], mode: WhileBusy = readWhileBusy()): Promise<R> | undefined {
    if (!this.busy() && !this.queue.held && this.queue.all.length === 0) return this.sendNow({ id: 0, text, attachments });
    if (mode === 'steer' && this.host.busy()) {
      if (this.host.canSteer()) {
        void this.host.steer(text, attachments);
        return undefined;
      }
      if (!this.saidNoSteer) {
        this.saidNoSteer = true;
        this.host.tell(vscode.l10n.t('{0} cannot take a message during a turn, so yours is queued: it goes when the turn ends.', this.agentName));
      }
    }
    const queued = this.queue.add(text, attachments, { next: mode === 'stopAndSend' });
    if (!queued) {
      this.host.giveBack(text, attachments, vscode.l10n.t('{0} messages are waiting already; send or remove some first.', MAX_QUEUED));
      return undefined;
    }
    this.host.changed();
    if (mode === 'stopAndSend' && this.host.busy()) void this.host.cancel();
    // Nothing runs (the turn ended as this was written), and nothing holds the queue: it goes now.
    if (!this.busy() && !this.queue.held) this.next({ failed: false, stopReason: 'end_turn' });
    return undefined;
  }

  /** A turn runs, or a message of ours is on its way to becoming one. */
  private busy(): boolean {
    return this.sending || this.host.busy();
  }

  /** The running turn ended: the next message goes, or the queue is held (see MessageQueue.afterTurn). */
  turnEnded(ended: { readonly stopReason?: string; readonly failed: boolean }): void {
    this.lastEnded = ended;
    // Later: whoever waits for the turn's end hears of it before the next turn begins. A turn of ours goes on
    // from sendNow, once its send has returned.
    queueMicrotask(() => this.next(ended));
  }

  private next(ended: { readonly stopReason?: string; readonly failed: boolean }): void {
    if (this.busy()) return;
    const item = this.queue.afterTurn(ended);
    this.host.changed();
    if (item) void this.sendNow(item);
  }

  /** "Send": the user lets the held queue go. */
  sendHeld(): void {
    if (this.busy()) return;
    const item = this.queue.release();
    this.host.changed();
    if (item) void this.sendNow(item);
  }

  /** Takes a queued message back into the composer to edit it. */
  edit(id: number): void {
    const item = this.queue.remove(id);
    if (!item) return;
    this.host.changed();
    this.host.giveBack(item.text, item.attachments, '');
  }

  remove(id: number): void {
    if (this.queue.remove(id)) this.host.changed();
  }

  move(id: number, by: -1 | 1): void {
    if (this.queue.move(id, by)) this.host.changed();
  }

  /** The agent was restarted or the chat came back after a reload: what waits goes only when the user says so. */
  hold(): void {
    this.queue.hold();
    this.host.changed();
  }

  view(): QueueView {
    return {
      items: this.queue.all.map((item: Queued<A>) => ({
        id: item.id,
        text: item.text,
        attachments: item.attachments.length,
        ...(item.next ? { next: true } : {}),
      })),
      held: this.queue.held,
      whileBusy: readWhileBusy(),
      canSteer: this.host.canSteer(),
    };
  }

  /** Sends `item` as its own turn; once that has returned, the next message goes (or the queue holds). */
  private sendNow(item: Queued<A>): Promise<R> {
    this.sending = true;
    const sent = this.host.send(item.text, item.attachments);
    // Refused or failed: the send path already said why (and a refused message went back to the composer). The
    // turn's end was heard while ours was still returning: the next message goes now, or the queue holds.
    void sent.then(
      () => this.sent(false),
      () => this.sent(true),
    );
    return sent;
  }

  private sent(failed: boolean): void {
    this.sending = false;
    this.next(failed ? { ...this.lastEnded, failed: true } : this.lastEnded);
  }
}
