// The agent's permission requests in one session, each state plus a resolver (the twin of elicitations.ts): the
// protocol side awaits `hold`, the user's answer settles it (`resolve`), and a cancel, a close or the agent's exit
// settles every one with `cancelled` (`cancelAll`). No UI here.
import type * as S from './schema.gen';
import type { PendingPermission } from './sessionState';

type Outcome = S.RequestPermissionOutcome;

export class PendingPermissions {
  private readonly pending = new Map<number, { request: PendingPermission; settle: (outcome: Outcome) => void }>();

  constructor(
    /** A request came (`settled` false) or went (true). */
    private readonly changed: (id: number, settled: boolean) => void,
    /** The id of the next request (shared with the session's other ids). */
    private readonly nextId: () => number,
  ) {}

  get all(): PendingPermission[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Holds a request until the user answers, `cancelAll`, or `signal` aborts (the agent cancelled it). Always settles. */
  hold(request: Omit<PendingPermission, 'id'>, signal?: AbortSignal): Promise<Outcome> {
    if (signal?.aborted) return Promise.resolve({ outcome: 'cancelled' });
    return new Promise<Outcome>((resolve) => {
      const id = this.nextId();
      const onAbort = () => this.settle(id, { outcome: 'cancelled' });
      const settle = (outcome: Outcome) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.pending.set(id, { request: { ...request, id }, settle });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.changed(id, false);
    });
  }

  /** The user chose an option. False when the request is gone (answered, cancelled) or the option unknown. */
  resolve(id: number, optionId: string): boolean {
    const pending = this.pending.get(id);
    if (!pending || !pending.request.options.some((o) => o.optionId === optionId)) return false;
    this.settle(id, { outcome: 'selected', optionId });
    return true;
  }

  /** Every request waiting is answered `cancelled`. */
  cancelAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { outcome: 'cancelled' });
  }

  private settle(id: number, outcome: Outcome): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.settle(outcome);
    this.changed(id, true);
  }
}
