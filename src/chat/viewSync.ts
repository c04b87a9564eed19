// Keeping the webview in step with the panel: changes are marked as they happen and flushed as one update at most
// once a frame (at most 20 times a second during a burst), not while the last one is still on its way (but for the
// end of a turn); a webview that (re)loads gets the whole state, a long chat's last entries first.
import type * as vscode from 'vscode';
import type { HostMessage, Part, StateFrom } from './protocol';

export type UpdateMessage = Extract<HostMessage, { type: 'update' }>;
export type StateMessage = Extract<HostMessage, { type: 'state' }>;
export type HeadMessage = Extract<HostMessage, { type: 'head' }>;

/** What the view shows, as the panel builds it: an update with what changed, or the whole state. */
export interface ViewSource {
  /** An update with the entries (by index) and the parts that changed. */
  update(entries: ReadonlySet<number>, parts: ReadonlySet<Part>): UpdateMessage;
  /** The whole state; with `seq`, a long chat's may carry only its last entries (its `from`), the rest in `head`. */
  state(seq?: number): StateMessage;
  head(from: StateFrom): HeadMessage;
}

const FRAME_MS = 16;
/**
 * Changes marked for one update beyond which the agent is sending faster than anyone reads (32 in a frame is about
 * 2,000 changes a second; a stream of tokens marks one or two a frame): the next update then waits BURST_MS after
 * this one, and the burst goes on while each update carries more than this (640 changes a second, at 50 ms apart).
 * An update held back by a slow delivery can carry that many at reading pace too; its successor then waits at most
 * 34 ms more, once.
 */
const BURST_CHANGES = 32;
/**
 * The least time between two updates during a burst. Each update costs the page a render, a layout and a paint, on
 * the CPU that the agent and the extension host need to get the burst through: measured in the UI benchmark's flood
 * (two cores), updates every frame kept the page's renderer busy throughout and took 19% more CPU in all, and the
 * flood 13% longer, than updates 50 ms apart; 100 ms apart saved no more.
 */
const BURST_MS = 50;
/** Longest wait for VS Code to hand an update to the webview before the next one is posted anyway. */
const DELIVERY_TIMEOUT_MS = 1000;
/** After a post the page did not take: the next one goes this much later, this many times at most in a row. */
const RETRY_MS = 250;
const MAX_RETRIES = 8;

export class ViewSync {
  private loaded = false;
  private disposed = false;
  private dirtyEntries = new Set<number>();
  private dirtyParts = new Set<Part>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** An update was posted and VS Code has not yet handed it to the webview. */
  private inFlight = false;
  /** The last update posted: only its delivery lets the next go. */
  private posted = 0;
  /** The last state posted: only its head follows it. */
  private states = 0;
  private lastPostAt = 0;
  /** Posts in a row the page did not take. */
  private retries = 0;
  /** Changes marked since the last update was made (a change marked twice counts twice). */
  private marks = 0;
  /** The least time from the last update to the next: longer after an update that carried a burst. */
  private gap = FRAME_MS;

  constructor(
    private webview: vscode.Webview,
    private readonly source: ViewSource,
  ) {}

  /**
   * Posts to `webview` from now on (the chat moved): nothing goes until it has loaded and said so, and then it gets
   * the whole state. An update still on its way to the old one no longer holds the flushes back.
   */
  rebind(webview: vscode.Webview): void {
    this.webview = webview;
    this.loaded = false;
    this.inFlight = false;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  /** The webview has loaded and takes messages. */
  get ready(): boolean {
    return this.loaded;
  }

  /** The webview (re)loaded: it gets the whole state, a long chat's last entries first and the rest after them. */
  load(): void {
    this.loaded = true;
    this.postState(true);
  }

  entryChanged(index: number): void {
    this.dirtyEntries.add(index);
    this.marks++;
    this.schedule();
  }

  /**
   * A part changed. `now` (the end of a turn) posts at once, even while the last update is on its way: it is the
   * stream's last update, so it cannot start a backlog, and the turn's last words then do not wait for a round trip
   * to the page (measured in the UI benchmark's flood: 60-70 ms of the 200 ms between the agent's answer and its last
   * chunk on screen).
   */
  changed(part: Part, now = false): void {
    this.dirtyParts.add(part);
    this.marks++;
    if (now && this.loaded && !this.disposed) {
      clearTimeout(this.flushTimer);
      this.flush();
    } else this.schedule();
  }

  /**
   * Posts the whole state now, in place of what was waiting to be flushed. `inParts` (a page that has just loaded
   * and shows nothing yet) lets a long chat's state carry its last entries only, the rest following in a head; a page
   * that shows the chat already gets it whole, so that it keeps what its user scrolled to or found.
   */
  postState(inParts = false): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.clear();
    const seq = ++this.states;
    const state = this.source.state(inParts ? seq : undefined);
    const from = state.from;
    void this.post(state).then((delivered) => {
      // A long chat's earlier entries, once its last ones are on their way; never for a state since replaced.
      if (from && delivered && seq === this.states && this.loaded && !this.disposed) void this.post(this.source.head(from));
    });
  }

  post(message: HostMessage): Thenable<boolean> {
    return this.webview.postMessage(message);
  }

  /**
   * Flushes what changed within a frame (16 ms), at least a frame after the last update (BURST_MS after one that
   * carried a burst), and never while the last update is still on its way. When the webview's renderer is busy, VS
   * Code hands posts over late: measured in the UI benchmark's flood, posts made every frame reached the webview one
   * every 100–250 ms, the last 1.4 s after it was made, and the webview received and rendered each of them in turn.
   * Waiting for delivery instead makes each post carry everything that changed meanwhile, so no backlog builds up
   * (the flood now takes about ten posts).
   */
  private schedule(delay = FRAME_MS): void {
    if (!this.loaded || this.flushTimer || this.inFlight || this.disposed) return;
    // Never longer than the gap itself: a wall clock set back must not hold the view still.
    this.flushTimer = setTimeout(() => this.flush(), Math.max(delay, Math.min(this.gap, this.lastPostAt + this.gap - Date.now())));
  }

  private get dirty(): boolean {
    return this.dirtyEntries.size > 0 || this.dirtyParts.size > 0;
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.disposed) return;
    const { dirtyEntries: entries, dirtyParts: parts } = this;
    const update = this.source.update(entries, parts);
    this.gap = this.marks > BURST_CHANGES ? BURST_MS : FRAME_MS;
    this.marks = 0;
    this.inFlight = true;
    this.lastPostAt = Date.now();
    const post = ++this.posted;
    let timeout: NodeJS.Timeout | undefined;
    const delivered = (ok: boolean) => {
      clearTimeout(timeout);
      // Not taken (the page was hidden or reloading as it went): what it carried is marked again and goes again a
      // while later, a few times at most (a hidden page answers every post so, and one that reloads gets the whole
      // state), else with the next update; or the page would show a conversation with holes.
      if (!ok && !this.disposed) {
        for (const index of entries) this.dirtyEntries.add(index);
        for (const part of parts) this.dirtyParts.add(part);
      }
      if (this.inFlight && post === this.posted) this.inFlight = false;
      else if (ok || this.inFlight) return;
      this.retries = ok ? 0 : this.retries + 1;
      // What changed meanwhile goes at once, though a frame (or BURST_MS) after the last post at the earliest.
      if (this.dirty && ok) this.schedule(0);
      else if (this.dirty && this.retries <= MAX_RETRIES) this.schedule(RETRY_MS);
    };
    timeout = setTimeout(() => delivered(true), DELIVERY_TIMEOUT_MS);
    // A post that throws (a message that cannot be sent) is not retried: it would fail every later update with it.
    this.post(update).then(delivered, () => delivered(true));
    this.clear();
  }

  private clear(): void {
    this.dirtyEntries = new Set();
    this.dirtyParts = new Set();
    this.marks = 0;
  }

  /** Stops the flushes: what is still marked is never posted. */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.flushTimer);
  }
}
