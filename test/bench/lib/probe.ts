// A probe that runs inside the chat webview's document (the `#active-frame`), so that what the UI benchmark
// measures is timed by the page's own clock rather than by playwright's polling:
//   - `sendAt`: the timeStamp of the Enter keydown that sends the message;
//   - `marks`: for each marker text, when a DOM mutation first put it into the document (`domAt`), and when the
//     frame after that mutation had been rendered (`paintAt`: a requestAnimationFrame callback, then a task after
//     it, so the frame's style, layout and paint are done), and whether the marker then had a box on screen;
//   - `clicks`: for each press on the page, its pointerdown timeStamp, when the click's handlers ran (the click
//     event, or pointerup when a control gives no click), and when the frame after them had been rendered;
//   - `frames`: requestAnimationFrame times, to find the longest stretch without a frame;
//   - `longTasks`: the Long Tasks API's entries, where the browser reports them.
// The functions passed to `evaluate` run in the page, so they use only what they declare here (the repository's
// TypeScript has no DOM library).

interface MarkTiming {
  domAt: number;
  paintAt: number | null;
  visible: boolean | null;
  /** The text from the marker on (up to 80 characters). */
  text: string;
}

interface ClickTiming {
  /** The pointerdown event's timeStamp: when the browser took the press. */
  down: number;
  /** When the pointerdown listener ran. */
  downRan: number;
  /** When the click listener ran (null when no click event came, e.g. on a disabled control). */
  clickRan: number | null;
  /** When the pointerup listener ran. */
  upRan: number | null;
  /** When the frame after the click had been rendered. */
  frameAt: number | null;
  /** What was clicked: its accessible label, or its tag. */
  target: string;
}

export interface ProbeSnapshot {
  /** The page's clock's zero, in the wall clock's milliseconds (`performance.timeOrigin`). */
  timeOrigin: number;
  installedAt: number;
  sendAt: number | null;
  marks: Record<string, MarkTiming>;
  clicks: ClickTiming[];
  frames: number[];
  longTasks: { start: number; duration: number }[];
  /** Elements in the document now. */
  elements: number;
}

// ---- what the in-page code uses, declared narrowly ----------------------------------------------------------------

interface PageNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly parentElement: PageElement | null;
}
interface PageElement extends PageNode {
  getAttribute(name: string): string | null;
  readonly tagName: string;
  getClientRects(): { readonly length: number };
  getElementsByTagName(name: string): { readonly length: number };
}
interface PageEvent {
  readonly timeStamp: number;
  readonly target: unknown;
  readonly key?: string;
  readonly shiftKey?: boolean;
}
interface MutationRecordLike {
  readonly type: string;
  readonly target: PageNode;
  readonly addedNodes: ArrayLike<PageNode>;
}
interface PageWindow {
  readonly performance: { now(): number; readonly timeOrigin: number };
  readonly document: { readonly documentElement: PageElement };
  addEventListener(type: string, listener: (event: PageEvent) => void, capture: boolean): void;
  removeEventListener(type: string, listener: (event: PageEvent) => void, capture: boolean): void;
  requestAnimationFrame(callback: (time: number) => void): number;
  cancelAnimationFrame(handle: number): void;
  setTimeout(callback: () => void, ms: number): number;
  MutationObserver: new (callback: (records: MutationRecordLike[]) => void) => {
    observe(target: PageElement, options: { subtree: boolean; childList: boolean; characterData: boolean }): void;
    disconnect(): void;
  };
  PerformanceObserver?: new (callback: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => {
    observe(options: { type: string; buffered?: boolean }): void;
    disconnect(): void;
  };
  __acpBenchProbe?: { snapshot(): ProbeSnapshot; stop(): void };
}

/** Installs (or replaces) the probe in the page it runs in. For `locator.evaluate`; the element is unused. */
export function installProbe(_element: unknown, markers: string[]): void {
  const g = globalThis as unknown as PageWindow;
  g.__acpBenchProbe?.stop();
  const now = () => g.performance.now();
  const state: ProbeSnapshot = {
    timeOrigin: g.performance.timeOrigin,
    installedAt: now(),
    sendAt: null,
    marks: {},
    clicks: [],
    frames: [],
    longTasks: [],
    elements: 0,
  };
  const pending = new Set(markers);
  /** rAF, then a task: by then the frame that the rAF started has been styled, laid out and painted. */
  const afterNextFrame = (done: () => void) => g.requestAnimationFrame(() => g.setTimeout(done, 0));

  const found = (marker: string, node: PageNode, text: string, at: number) => {
    pending.delete(marker);
    const mark: MarkTiming = { domAt: at, paintAt: null, visible: null, text: text.slice(text.indexOf(marker), text.indexOf(marker) + 80) };
    state.marks[marker] = mark;
    const element = node.nodeType === 1 ? (node as PageElement) : node.parentElement;
    afterNextFrame(() => {
      mark.paintAt = now();
      mark.visible = element ? element.getClientRects().length > 0 : false;
    });
  };
  const observer = new g.MutationObserver((records) => {
    if (pending.size === 0) return;
    const at = now();
    for (const record of records) {
      const nodes = record.type === 'characterData' ? [record.target] : Array.from(record.addedNodes);
      for (const node of nodes) {
        const text = node.textContent ?? '';
        for (const marker of pending) if (text.includes(marker)) found(marker, node, text, at);
      }
    }
  });
  observer.observe(g.document.documentElement, { subtree: true, childList: true, characterData: true });

  const label = (target: unknown) => {
    const element = target as PageElement | null;
    return element && typeof element.getAttribute === 'function'
      ? (element.getAttribute('aria-label') ?? element.tagName.toLowerCase())
      : String(target);
  };
  const onKey = (event: PageEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && state.sendAt === null) state.sendAt = event.timeStamp;
  };
  const onDown = (event: PageEvent) => {
    state.clicks.push({ down: event.timeStamp, downRan: now(), clickRan: null, upRan: null, frameAt: null, target: label(event.target) });
  };
  const onUp = () => {
    const click = state.clicks[state.clicks.length - 1];
    if (!click || click.upRan !== null) return;
    click.upRan = now();
    // The click event follows pointerup in the same task; the frame after both is the one that shows the result.
    afterNextFrame(() => (click.frameAt = now()));
  };
  const onClick = () => {
    const click = state.clicks[state.clicks.length - 1];
    if (click && click.clickRan === null) click.clickRan = now();
  };
  g.addEventListener('keydown', onKey, true);
  g.addEventListener('pointerdown', onDown, true);
  g.addEventListener('pointerup', onUp, true);
  g.addEventListener('click', onClick, true);

  let running = true;
  let handle = 0;
  const frame = (time: number) => {
    if (state.frames.length < 100_000) state.frames.push(time);
    if (running) handle = g.requestAnimationFrame(frame);
  };
  handle = g.requestAnimationFrame(frame);

  let tasks: { disconnect(): void } | undefined;
  try {
    if (g.PerformanceObserver) {
      const o = new g.PerformanceObserver((list) => {
        for (const e of list.getEntries()) state.longTasks.push({ start: e.startTime, duration: e.duration });
      });
      o.observe({ type: 'longtask' });
      tasks = o;
    }
  } catch {
    // No Long Tasks API here: the frame gaps still tell.
  }

  g.__acpBenchProbe = {
    snapshot: () => ({ ...state, elements: g.document.documentElement.getElementsByTagName('*').length }),
    stop: () => {
      running = false;
      g.cancelAnimationFrame(handle);
      observer.disconnect();
      tasks?.disconnect();
      g.removeEventListener('keydown', onKey, true);
      g.removeEventListener('pointerdown', onDown, true);
      g.removeEventListener('pointerup', onUp, true);
      g.removeEventListener('click', onClick, true);
    },
  };
}

/** The probe's measurements so far; null when the page has no probe (it was reloaded). For `locator.evaluate`. */
export function readProbe(): ProbeSnapshot | null {
  const g = globalThis as unknown as PageWindow;
  return g.__acpBenchProbe ? JSON.parse(JSON.stringify(g.__acpBenchProbe.snapshot())) : null;
}

/** Stops the probe (its observers and rAF loop). For `locator.evaluate`. */
export function stopProbe(): void {
  const g = globalThis as unknown as PageWindow;
  g.__acpBenchProbe?.stop();
}

/** Elements in the document. For `locator.evaluate`. */
export function countElements(): number {
  const g = globalThis as unknown as PageWindow;
  return g.document.documentElement.getElementsByTagName('*').length;
}
