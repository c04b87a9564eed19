// The ids of requests in flight on one connection, in both directions.
//
// An agent's request id is opaque: a string, a number, or null, and a number may hold more digits than a JavaScript
// number keeps (2^60). vscode-jsonrpc keys its queues by `String(id)` (so `8` and `"8"` collide), cannot answer an id
// of null, and rounds big numbers. So the reader hands vscode-jsonrpc a fresh number for every request the agent
// makes, and the writer puts the agent's own id back, as the exact text the agent sent, into the answer.
//
// Our own requests are remembered until answered, so that the reader can tell an answer to one of them from an
// answer to nothing, and turn a malformed answer into an error for the request that waits for it.

/** How many of the agent's requests may wait for an answer at once; past it, a request is answered with an error. */
export const MAX_INCOMING_IN_FLIGHT = 1024;
/**
 * With this many waiting, the reader stops reading the agent until half of them are answered. vscode-jsonrpc serves
 * one message per macrotask while a read delivers hundreds: without this, a fast agent would have its requests
 * refused only because we read faster than we serve. The pipe's own backpressure then slows the agent down.
 */
const PAUSE_READING_AT = 256;
/**
 * How many of the agent's requests that wait on the user or on a command (a permission, a question, a command's
 * exit) may wait at once on the connection; past it, one is answered with an error at once. They are bounded apart
 * and never pause reading: they end only through what the agent sends next (its cancel, a release, a later update),
 * so reading must go on while they wait. Each session has a smaller bound of its own (inbound.ts), so that this one
 * is only a backstop: one chat's waits never keep out another chat's question.
 */
export const MAX_PARKED = 4096;

interface Incoming {
  /** The agent's id as JSON text, exactly as it will go back. */
  readonly raw: string;
  /** The key under which `$/cancel_request` finds it. */
  readonly key: string;
  /** It waits on the user or a command: counted apart, and never a reason to pause reading. */
  readonly parked: boolean;
}

export class RequestIds {
  private next = 1;
  private readonly incoming = new Map<number, Incoming>();
  private readonly byKey = new Map<string, number>();
  private readonly outgoing = new Set<string | number>();
  private drained: (() => void) | undefined;
  /** How many of `incoming` are parked. */
  private parked = 0;

  constructor(
    readonly maxIncoming = MAX_INCOMING_IN_FLIGHT,
    readonly maxParked = MAX_PARKED,
  ) {}

  /**
   * Takes in a request of the agent's: returns the id vscode-jsonrpc sees, or undefined when too many are in flight
   * (the caller answers it at once). `raw` is the id's JSON text when it differs from `JSON.stringify(id)`. A
   * `parked` request waits on the user or a command: it has a bound of its own and never pauses reading. An `ending`
   * one (a terminal's kill or release) is always taken in: it is what ends the parked ones.
   */
  admit(id: string | number | null, raw?: string, parked = false, ending = false): number | undefined {
    if (!ending && (parked ? this.parked >= this.maxParked : this.incoming.size - this.parked >= this.maxIncoming)) return undefined;
    const local = this.next++;
    const key = keyOf(id);
    this.incoming.set(local, { raw: raw ?? JSON.stringify(id), key, parked });
    if (parked) this.parked++;
    this.byKey.set(key, local);
    return local;
  }

  /** The local id of a request in flight that the agent now cancels, if it is still in flight. */
  forCancel(requestId: string | number): number | undefined {
    return this.byKey.get(keyOf(requestId));
  }

  /** The agent's id (JSON text) for the answer going out under `local`; forgets the request. */
  answered(local: unknown): string | undefined {
    if (typeof local !== 'number') return undefined;
    const entry = this.incoming.get(local);
    if (!entry) return undefined;
    this.incoming.delete(local);
    if (entry.parked) this.parked--;
    if (this.byKey.get(entry.key) === local) this.byKey.delete(entry.key);
    if (this.drained && this.incoming.size - this.parked <= PAUSE_READING_AT / 2) {
      const drained = this.drained;
      this.drained = undefined;
      drained();
    }
    return entry.raw;
  }

  /** True when so many requests wait that reading should pause; `resume` is called once half of them are answered. */
  shouldPause(resume: () => void): boolean {
    if (this.incoming.size - this.parked < PAUSE_READING_AT) return false;
    this.drained = resume;
    return true;
  }

  /** One of our requests went out. */
  sent(id: string | number): void {
    this.outgoing.add(id);
  }

  /** An answer for `id` arrived: true when it answers one of our requests in flight (which is then no longer). */
  takeAnswer(id: unknown): boolean {
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    return this.outgoing.delete(id);
  }

  get inFlight(): { readonly incoming: number; readonly parked: number; readonly outgoing: number } {
    return { incoming: this.incoming.size, parked: this.parked, outgoing: this.outgoing.size };
  }
}

function keyOf(id: string | number | null): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}
