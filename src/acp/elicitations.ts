// The agent's questions to the user (`elicitation/create`) in one session: each is state plus a resolver. The
// protocol side awaits the answer; the UI resolves it (accept with content, decline, cancel); a stop, a close or the
// agent's exit answers `cancel`. A url elicitation the user agreed to stays until `elicitation/complete`.
import type * as S from './schema.gen';

/** A question as the session holds it: a form (its schema) or a url, with what it belongs to. */
export interface PendingElicitation {
  readonly id: number;
  readonly message: string;
  readonly toolCallId?: string;
  readonly form?: S.ElicitationSchema;
  readonly url?: { readonly elicitationId: string; readonly url: string };
  /** A url elicitation the user agreed to open: answered already, waiting for `elicitation/complete`. */
  readonly opened?: true;
}

export type ElicitationAnswer = S.CreateElicitationResponse;

/** At most this many questions wait in one session; more are declined at once (an agent cannot pile them up). */
export const MAX_PENDING_ELICITATIONS = 16;

export class Elicitations {
  private readonly pending = new Map<number, { question: PendingElicitation; settle?: (answer: ElicitationAnswer) => void }>();
  private nextId: number;

  /**
   * `firstId` keeps the ids of another set of questions apart (the client's own, shown beside the agent's).
   * `counted` says how many questions count against the bound: a subagent's count with its root session's.
   */
  constructor(
    private readonly changed: () => void,
    firstId = 1,
    private readonly counted: () => number = () => this.pending.size,
  ) {
    this.nextId = firstId;
  }

  /** How many questions are held (answered url ones included, until completed). */
  get size(): number {
    return this.pending.size;
  }

  get all(): readonly PendingElicitation[] {
    return [...this.pending.values()].map((p) => p.question);
  }

  /** How many questions wait for the user (a url one that was opened waits for the agent, not the user). */
  get waiting(): number {
    return this.all.filter((q) => !q.opened).length;
  }

  /** Holds a form or url question until the user answers, it is cancelled, or `signal` aborts. Always settles. */
  ask(question: Omit<PendingElicitation, 'id'>, signal?: AbortSignal): Promise<ElicitationAnswer> {
    if (signal?.aborted) return Promise.resolve({ action: 'cancel' });
    if (this.counted() >= MAX_PENDING_ELICITATIONS) return Promise.resolve({ action: 'decline' });
    return new Promise((resolve) => {
      const id = this.nextId++;
      const onAbort = () => this.answer(id, { action: 'cancel' });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        question: { ...question, id },
        settle: (answer) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      this.changed();
    });
  }

  /** The user's answer. False when the question is gone. A url question answered `accept` stays, opened, until completed. */
  answer(id: number, answer: ElicitationAnswer): boolean {
    const entry = this.pending.get(id);
    if (!entry?.settle) return false;
    const settle = entry.settle;
    if (entry.question.url && answer.action === 'accept') this.pending.set(id, { question: { ...entry.question, opened: true } });
    else this.pending.delete(id);
    settle(answer);
    this.changed();
    return true;
  }

  /** `elicitation/complete`: the url question it names is done. False when no such question waits. */
  complete(elicitationId: string): boolean {
    for (const [id, entry] of this.pending) {
      if (entry.question.url?.elicitationId !== elicitationId) continue;
      this.pending.delete(id);
      entry.settle?.({ action: 'cancel' });
      this.changed();
      return true;
    }
    return false;
  }

  /** Dismisses an opened url question the user no longer waits for. */
  dismiss(id: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    if (entry.settle) entry.settle({ action: 'cancel' });
    this.pending.delete(id);
    this.changed();
  }

  /** A stop, a close or the agent's exit: every question still waiting is answered `cancel`. */
  cancelAll(): void {
    if (this.pending.size === 0) return;
    for (const entry of this.pending.values()) entry.settle?.({ action: 'cancel' });
    this.pending.clear();
    this.changed();
  }
}
