// `npm run bench:ui`: the chat view under load, in the real workbench (code-server) and headless Chromium.
// A benchmark, not a test: it prints figures against their budgets and exits 0 unless something broke.
//
//   1. Flood: a fixture agent streams 10,000 agent_message_chunks with 200 tool calls (600 tool updates) as fast
//      as the pipe takes them. Figure: Send (the Enter keydown) → the last chunk's marker rendered on screen, timed
//      inside the webview. Budget ≤ 1000 ms. Baseline: the same for a short 12-chunk reply. And the client's own
//      share: the agent wrote its last chunk → that chunk rendered (by the wall clock, which the agent and the page
//      share). Budget ≤ 300 ms: the rest of Send → visible is the agent writing its 10,600 updates.
//   2. Clicks during the flood (separate flood runs): the composer is clicked every ~40 ms while the flood streams.
//      Figure: the press (pointerdown timeStamp) → the click's handler ran, and → the next frame rendered; max and
//      median. Budget < 100 ms. Baseline: the same clicks in the same chat while idle, before Send.
//   4. A long chat: a chat whose agent replays LONG_CHAT_TURNS turns with tool calls and diffs (about 20 MB) on
//      session/load; the window is reloaded and the chat restores. Figure: the chat's page ready → the last message
//      visible (and the reload → visible). Budget ≤ 1 s. Then the webview's heap while the user scrolls to the top
//      (Show earlier messages until there are none) and back to the last message. Budget < 200 MB.
//   3. Heap: a chat whose agent replays a 50,000-update history on session/load; the window is reloaded, the chat
//      restores and replays, and then the webview's JS heap is read after forced GCs. Budget < 150 MB.
//      Baseline: an idle fresh chat's webview heap. When the webview runs in the workbench's renderer (it does in
//      code-server: same origin), V8 has one heap for both, so the webview's share is the page's heap with the chat
//      minus without it.
//
// Each send runs in a fresh chat. Environment: BENCH_RUNS (default 3) runs of each send; BENCH_ONLY=long-chat runs
// only [4]; BENCH_EXTENSION=<another checkout, built> measures that build with this benchmark (a baseline, side by side);
// BENCH_SNAPSHOT=<path prefix> writes heap snapshots of the page after the replay [3] and with the long chat shown from
// the top [4] (to compare builds by what their objects are);
// BENCH_PROFILE=<folder> writes a CPU profile of the page's renderer (workbench and chat) for each send, Enter → end mark;
// BENCH_CHROME_TRACE=<folder> writes a Chromium trace of the same (style, layout, paint, raster); BENCH_CPU=1 (Linux) prints
// the CPU time each kind of process of the run spent in each send (on two cores they take it from each other);
// BENCH_ONLY=flood runs only [1].
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Frame, FrameLocator, Page } from 'playwright-core';
import {
  FLOOD_CHUNKS,
  FLOOD_END,
  FLOOD_START,
  FLOOD_TOOL_CALLS,
  HISTORY_END,
  HISTORY_UPDATES,
  LONG_CHAT_END,
  LONG_CHAT_TURNS,
  REPLY_END,
} from '../fixtures/lib/benchScenarios';
import { EXTENSION_ID, fixtureAgents, openWorkbench, repoRoot, type Workbench } from '../ui/lib/workbench';
import { waitFor } from '../lib/wait';
import { countElements, installProbe, readProbe, stopProbe, type ProbeSnapshot } from './lib/probe';
import { cpuReadable, cpuSpent, readCpu, type CpuByKind } from './lib/cpu';
import { brokenExitCode, out, runBench } from './lib/run';

const RUNS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 3));
const CPU = process.env['BENCH_CPU'] === '1' && cpuReadable;
/** What BENCH_CHROME_TRACE records: the renderer's main-thread work (style, layout, paint) and the compositor's. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'v8'];
const BUDGET = { floodMs: 1000, floodLagMs: 300, clickMs: 100, heapMb: 150, longChatOpenMs: 1000, longChatHeapMb: 200 };
/** Updates in one flood: the chunks, and per tool call its announcement and two updates. */
const FLOOD_UPDATES = FLOOD_CHUNKS + 3 * FLOOD_TOOL_CALLS;
/** The pause between clicks during a flood. */
const CLICK_EVERY_MS = 40;
/** Bound on the whole benchmark, so it never hangs whatever breaks. */
const OVERALL_MS = 15 * 60_000;

const AGENTS = { reply: 'Bench Reply', flood: 'Bench Flood', history: 'Bench History', longChat: 'Bench Long Chat' } as const;

// ---- output -------------------------------------------------------------------------------------------------------

const ms = (x: number) => `${x.toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const max = (xs: readonly number[]) => Math.max(...xs);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'OVER');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const sleep = (t: number) => new Promise<void>((resolve) => setTimeout(resolve, t));

// ---- driving the chat -----------------------------------------------------------------------------------------------

class Bench {
  constructor(readonly wb: Workbench) {}

  get page(): Page {
    return this.wb.page;
  }

  async newChat(agent: string): Promise<FrameLocator> {
    await this.wb.runCommand('ACP: New Chat');
    await this.wb.pick(agent);
    const chat = this.wb.chat();
    await this.message(chat).waitFor({ timeout: 30_000 });
    // The composer is disabled until the host's first state arrives.
    await waitFor(() => this.message(chat).isEnabled(), { timeoutMs: 30_000, what: 'the composer to be enabled' });
    return chat;
  }

  message(chat: FrameLocator) {
    return chat.getByRole('textbox', { name: 'Message' });
  }

  async closeChats(): Promise<void> {
    await this.wb.runCommand('View: Close All Editors');
    await this.page.locator('iframe.webview.ready').first().waitFor({ state: 'detached', timeout: 30_000 });
  }

  async probe(chat: FrameLocator, markers: string[]): Promise<void> {
    await chat.locator(':root').evaluate(installProbe, markers);
  }

  async read(chat: FrameLocator): Promise<ProbeSnapshot> {
    const snapshot = await chat.locator(':root').evaluate(readProbe, undefined, { timeout: 30_000 });
    if (!snapshot) throw new Error('the probe is gone from the chat webview (it reloaded its document)');
    return snapshot;
  }

  /** Waits, polling the probe, until `marker` was rendered; playwright's own check confirms it is visible. */
  async waitForMark(chat: FrameLocator, marker: string, timeoutMs: number): Promise<ProbeSnapshot> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const snapshot = await this.read(chat);
      if (snapshot.marks[marker]?.paintAt != null) {
        await chat.getByText(marker).first().waitFor({ state: 'visible', timeout: 10_000 });
        return snapshot;
      }
      if (Date.now() > deadline) throw new Error(`"${marker}" did not appear in the chat within ${timeoutMs / 1000} s`);
      await sleep(25);
    }
  }

  /**
   * Waits until the chat's DOM stops changing (its element count is the same for half a second): the view renders
   * a burst of entries newest first and fills in the older ones after, and the figures after a send (elements,
   * heap) are meant for the finished page.
   */
  async settled(chat: FrameLocator, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    let since = Date.now();
    while (Date.now() < deadline) {
      const count = await chat.locator(':root').evaluate(countElements);
      if (count !== last) {
        last = count;
        since = Date.now();
      } else if (Date.now() - since >= 500) {
        return;
      }
      await sleep(100);
    }
  }

  /** Waits until the turn is over: the Send button is back. */
  async turnEnded(chat: FrameLocator): Promise<void> {
    await chat.getByRole('button', { name: 'Send' }).waitFor({ timeout: 60_000 });
  }

  /** The composer's centre in page coordinates, for clicks that do not wait for the page to be idle. */
  async composerPoint(chat: FrameLocator): Promise<{ x: number; y: number }> {
    const box = await this.message(chat).boundingBox();
    if (!box) throw new Error('the composer has no box on screen');
    return { x: box.x + box.width / 2, y: box.y + Math.min(box.height / 2, 12) };
  }

  /**
   * A press and release at the point through CDP, as a user's click: unlike locator.click() it does not first wait
   * for the page to answer playwright's actionability checks, so a busy page cannot delay the click itself.
   */
  async clickAt(point: { x: number; y: number }): Promise<void> {
    await this.page.mouse.click(point.x, point.y);
  }
}

// ---- 1 and 2: reply baseline, flood, clicks -------------------------------------------------------------------------

interface SendRun {
  /** Send → the end marker in the DOM. */
  dom: number;
  /** Send → the frame after that rendered: the figure. */
  visible: number;
  /** Send → the first chunk rendered. */
  first: number | null;
  /** What the agent said about its writing time, when it did. */
  agentWriteMs: number | null;
  /** The agent wrote its last chunk (by the wall clock, which both sides share) → that chunk visible. */
  lastWrittenToVisible: number | null;
  longestFrameGap: number;
  longTasks: { count: number; longest: number; total: number };
  clicks: ClickStats | null;
  idleClicks: ClickStats | null;
  elements: number;
  /** With BENCH_CPU: the CPU time the run's processes spent from Enter until the end marker was seen on screen. */
  cpu: { total: number; byKind: CpuByKind } | null;
}

interface ClickStats {
  handler: number[];
  frame: number[];
  offTarget: number;
}

function clickStats(snapshot: ProbeSnapshot, from: number, until: number): ClickStats {
  const clicks = snapshot.clicks.filter((c) => c.down >= from && c.down < until);
  const handler: number[] = [];
  const frame: number[] = [];
  let offTarget = 0;
  for (const c of clicks) {
    if (c.target !== 'Message') offTarget++;
    const ran = c.clickRan ?? c.upRan ?? c.downRan;
    handler.push(ran - c.down);
    if (c.frameAt !== null) frame.push(c.frameAt - c.down);
  }
  return { handler, frame, offTarget };
}

async function sendRun(bench: Bench, agent: string, startMarker: string | null, endMarker: string, clicks: boolean): Promise<SendRun> {
  const chat = await bench.newChat(agent);
  try {
    await bench.probe(chat, startMarker ? [startMarker, endMarker] : [endMarker]);
    const point = await bench.composerPoint(chat);
    // Idle clicks first: the baseline, in the very same chat.
    let idleClicks: ClickStats | null = null;
    if (clicks) {
      for (let i = 0; i < 6; i++) {
        await bench.clickAt(point);
        await sleep(100);
      }
      await sleep(200); // let the last one's frame land
      const idle = await bench.read(chat);
      idleClicks = clickStats(idle, 0, Infinity);
    }
    const message = bench.message(chat);
    await message.fill(`Run ${agent}, please.`);
    const profile = process.env['BENCH_PROFILE'] ? await bench.page.context().newCDPSession(bench.page) : undefined;
    if (profile) {
      await profile.send('Profiler.enable');
      await profile.send('Profiler.start');
    }
    const traceDir = process.env['BENCH_CHROME_TRACE'];
    const tracer = traceDir ? bench.page.context().browser() : null;
    if (tracer) await tracer.startTracing(bench.page, { categories: TRACE_CATEGORIES });
    const cpuBefore = CPU ? readCpu() : undefined;
    let cpu: SendRun['cpu'] = null;
    // Clicks go on while the reply streams, each a press and release through CDP, ~CLICK_EVERY_MS apart; only those
    // the page took between the Enter keydown and the end marker entering the DOM count as "during".
    let clicking = clicks;
    let clicker: Promise<void> | undefined;
    try {
      await message.press('Enter');
      clicker = (async () => {
        while (clicking) {
          await bench.clickAt(point);
          await sleep(CLICK_EVERY_MS);
        }
      })();
      await bench.waitForMark(chat, endMarker, 60_000);
    } finally {
      clicking = false;
      await clicker;
      if (cpuBefore) cpu = cpuSpent(cpuBefore, readCpu());
      if (tracer) {
        const trace = await tracer.stopTracing();
        mkdirSync(traceDir!, { recursive: true });
        writeFileSync(join(traceDir!, `${endMarker}-${Date.now()}.json`), trace);
      }
      if (profile) {
        const { profile: taken } = await profile.send('Profiler.stop');
        mkdirSync(process.env['BENCH_PROFILE']!, { recursive: true });
        writeFileSync(join(process.env['BENCH_PROFILE']!, `${endMarker}-${Date.now()}.cpuprofile`), JSON.stringify(taken));
        await profile.detach();
      }
    }
    await bench.turnEnded(chat);
    await sleep(300); // frames after the flood, for the frame-gap figure's end
    await bench.settled(chat);
    const final = await bench.read(chat);
    await chat.locator(':root').evaluate(stopProbe);
    const sendAt = final.sendAt;
    if (sendAt === null) throw new Error('the probe saw no Enter keydown');
    const end = final.marks[endMarker];
    if (!end || end.paintAt === null) throw new Error(`the probe lost the "${endMarker}" mark`);
    if (end.visible === false) throw new Error(`"${endMarker}" was put into the DOM but had no box on screen`);
    const written = /written in (\d+) ms/.exec(end.text);
    const lastAt = /the last at (\d+)/.exec(end.text);
    const frames = final.frames.filter((t) => t >= sendAt && t <= end.paintAt! + 50);
    let gap = 0;
    for (let i = 1; i < frames.length; i++) gap = Math.max(gap, (frames[i] as number) - (frames[i - 1] as number));
    if (frames.length > 0) gap = Math.max(gap, (frames[0] as number) - sendAt, end.paintAt - (frames[frames.length - 1] as number));
    const tasks = final.longTasks.filter((t) => t.start + t.duration >= sendAt && t.start <= end.paintAt!);
    const first = startMarker ? final.marks[startMarker] : undefined;
    return {
      dom: end.domAt - sendAt,
      visible: end.paintAt - sendAt,
      first: first?.paintAt != null ? first.paintAt - sendAt : null,
      agentWriteMs: written ? Number(written[1]) : null,
      lastWrittenToVisible: lastAt ? final.timeOrigin + end.paintAt - Number(lastAt[1]) : null,
      longestFrameGap: gap,
      longTasks: {
        count: tasks.length,
        longest: tasks.length ? max(tasks.map((t) => t.duration)) : 0,
        total: tasks.reduce((s, t) => s + t.duration, 0),
      },
      clicks: clicks ? clickStats(final, sendAt, end.domAt) : null,
      idleClicks,
      elements: final.elements,
      cpu,
    };
  } finally {
    await bench.closeChats();
  }
}

// ---- 3: heap ---------------------------------------------------------------------------------------------------------

interface HeapReading {
  used: number;
  /** What the reading covers. */
  scope: string;
}

/** The webview's frames: the outer `iframe.webview` document and its `#active-frame`. */
async function webviewFrames(page: Page): Promise<Frame[]> {
  const frames: Frame[] = [];
  const outer = await page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).first().elementHandle({ timeout: 10_000 });
  const outerFrame = await outer?.contentFrame();
  if (!outerFrame) return frames;
  frames.push(outerFrame);
  const inner = await outerFrame.locator('#active-frame').elementHandle({ timeout: 10_000 });
  const innerFrame = await inner?.contentFrame();
  if (innerFrame) frames.push(innerFrame);
  return frames;
}

class Heap {
  private pageSession: CDPSession | undefined;

  constructor(private readonly page: Page) {}

  private async session(): Promise<CDPSession> {
    this.pageSession ??= await this.page.context().newCDPSession(this.page);
    return this.pageSession;
  }

  /** Forces full GCs, then reads the used JS heap of the given CDP session. */
  private async collectAndRead(session: CDPSession): Promise<number> {
    for (let i = 0; i < 3; i++) await session.send('HeapProfiler.collectGarbage');
    const usage = (await session.send('Runtime.getHeapUsage')) as { usedSize: number };
    return usage.usedSize;
  }

  /**
   * The webview's heap. When its frame runs out of process, its renderer is asked directly. Otherwise it shares the
   * workbench's renderer, and so one V8 heap, with the workbench; then the caller measures with and without the chat.
   */
  async webview(): Promise<HeapReading | 'shared'> {
    const frames = await webviewFrames(this.page);
    const inner = frames[frames.length - 1];
    if (!inner) throw new Error('no chat webview to measure');
    try {
      const session = await this.page.context().newCDPSession(inner);
      try {
        return { used: await this.collectAndRead(session), scope: "the webview's own renderer process (an out-of-process frame)" };
      } finally {
        await session.detach().catch(() => {});
      }
    } catch (error) {
      if (error instanceof Error && /out-of-process|OOPIF|does not have a separate/i.test(error.message)) return 'shared';
      throw error;
    }
  }

  /** Writes a heap snapshot of the whole page renderer to `file` (to compare two builds by what their objects are). */
  async snapshot(file: string): Promise<void> {
    const session = await this.session();
    const parts: string[] = [];
    const take = (event: { chunk: string }) => parts.push(event.chunk);
    session.on('HeapProfiler.addHeapSnapshotChunk', take);
    try {
      await session.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      session.off('HeapProfiler.addHeapSnapshotChunk', take);
    }
    writeFileSync(file, parts.join(''));
  }

  /** The whole page renderer's heap (the workbench and every in-process frame). */
  async whole(): Promise<number> {
    return this.collectAndRead(await this.session());
  }

  async dispose(): Promise<void> {
    await this.pageSession?.detach().catch(() => {});
    this.pageSession = undefined;
  }
}

/**
 * The chat webview's heap in the current window, after GC: measured directly when it is out of process, or else as
 * the page's heap with the chat open minus the page's heap once every chat is closed (both after GC).
 */
async function chatHeap(bench: Bench, heap: Heap): Promise<{ used: number; how: string; page?: number; without?: number }> {
  const direct = await heap.webview();
  if (direct !== 'shared') return { used: direct.used, how: direct.scope };
  const withChat = await heap.whole();
  await bench.closeChats();
  await sleep(1000); // let the closed frames go
  const without = await heap.whole();
  return {
    used: withChat - without,
    how: "the webview shares the workbench's renderer (one V8 heap): page heap with the chat open minus with no chat open, both after GC",
    page: withChat,
    without,
  };
}

async function reloadWindow(bench: Bench): Promise<void> {
  const page = bench.page;
  const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 60_000 });
  // The command, not page.reload(): it shuts the workbench down in order, so the editors' state is saved first.
  await bench.wb.runCommand('Developer: Reload Window');
  await navigated;
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
}

interface HeapResult {
  idle?: { used: number; how: string; page?: number; without?: number };
  idleError?: string;
  history?: { used: number; how: string; page?: number; without?: number; restoreMs: number; elements: number };
  historyError?: string;
}

/** A chat with `agent` that says hello, then a window reload (the chat restores by session/load); returns when the reload began. */
async function greetThenReload(bench: Bench, agent: string): Promise<number> {
  const chat = await bench.newChat(agent);
  const message = bench.message(chat);
  await message.fill('Hello there.');
  await message.press('Enter');
  await chat.getByText('Hello', { exact: true }).first().waitFor({ timeout: 30_000 });
  await bench.turnEnded(chat);
  const started = Date.now();
  await reloadWindow(bench);
  return started;
}

async function historyHeap(bench: Bench): Promise<Pick<HeapResult, 'history' | 'historyError'>> {
  const started = await greetThenReload(bench, AGENTS.history);
  const restored = bench.wb.chat();
  try {
    await bench.page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).first().waitFor({ timeout: 60_000 });
  } catch {
    return {
      historyError:
        'after the window reload no chat webview came back within 60 s: the chat panel was not restored (is there a webview serializer for it?)',
    };
  }
  try {
    await restored.getByText(HISTORY_END).first().waitFor({ state: 'visible', timeout: 120_000 });
  } catch (error) {
    const text = await restored
      .locator('body')
      .innerText({ timeout: 5000 })
      .catch(() => '(unreadable)');
    return {
      historyError:
        `the chat webview came back after the reload, but the replayed history's last text "${HISTORY_END}" was not visible within 120 s ` +
        `(${error instanceof Error ? error.message.split('\n')[0] : String(error)}). The webview shows: ${JSON.stringify(text.slice(0, 300))}`,
    };
  }
  const restoreMs = Date.now() - started;
  await sleep(1000); // let the replay's last posts settle
  await bench.settled(restored);
  const elements = await restored.locator(':root').evaluate(countElements);
  const heap = new Heap(bench.page);
  try {
    if (process.env['BENCH_SNAPSHOT']) await heap.snapshot(`${process.env['BENCH_SNAPSHOT']}-history.heapsnapshot`);
    return { history: { ...(await chatHeap(bench, heap)), restoreMs, elements } };
  } finally {
    await heap.dispose();
  }
}

async function heapPart(bench: Bench): Promise<HeapResult> {
  const result: HeapResult = {};
  // Baseline: an idle fresh chat.
  try {
    await bench.newChat(AGENTS.reply);
    await sleep(1000);
    const heap = new Heap(bench.page);
    try {
      result.idle = await chatHeap(bench, heap);
    } finally {
      await heap.dispose();
    }
  } catch (error) {
    result.idleError = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
  }
  if (await bench.page.locator('iframe.webview.ready').count()) await bench.closeChats();
  // The long history: a chat with one message, then a window reload; the chat should restore and replay.
  try {
    Object.assign(result, await historyHeap(bench));
  } catch (error) {
    result.historyError = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
  }
  return result;
}

interface LongChatResult {
  /** The chat's page ready after the reload → the last message visible. */
  openMs: number;
  /** The reload command → the last message visible. */
  reloadMs: number;
  /** The webview's heap at the last message, at the top, and back at the last message. */
  heap: { bottom: number; top: number; back: number; how: string };
  earlierClicks: number;
  elements: { bottom: number; top: number };
}

/** The webview's heap now: its own renderer's (final), or the whole page's (shared: the caller subtracts the page without it). */
async function heapNow(heap: Heap): Promise<{ used: number; shared: boolean; how: string }> {
  const direct = await heap.webview();
  if (direct !== 'shared') return { used: direct.used, shared: false, how: direct.scope };
  return { used: await heap.whole(), shared: true, how: "the page's heap minus the same page's heap once the chat is closed, both after GC" };
}

async function longChatPart(bench: Bench): Promise<LongChatResult> {
  const page = bench.page;
  await bench.closeChats();
  const started = await greetThenReload(bench, AGENTS.longChat);
  await page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).first().waitFor({ timeout: 60_000 });
  const ready = Date.now();
  const restored = bench.wb.chat();
  await restored.getByText(LONG_CHAT_END).first().waitFor({ state: 'visible', timeout: 120_000 });
  const shown = Date.now();
  await bench.settled(restored);
  const heap = new Heap(page);
  try {
    const atBottom = await heapNow(heap);
    const elementsBottom = await restored.locator(':root').evaluate(countElements);
    // To the top, as a user scrolls there: the page keeps a window of entries, and "Show earlier messages" brings more.
    const earlier = restored.locator('button.show-earlier');
    let clicks = 0;
    while (clicks < 500 && (await earlier.count()) > 0) {
      await earlier.click();
      clicks++;
    }
    await restored.getByRole('log').evaluate((log) => (log.scrollTop = 0));
    await bench.settled(restored);
    const atTop = await heapNow(heap);
    if (process.env['BENCH_SNAPSHOT']) await heap.snapshot(`${process.env['BENCH_SNAPSHOT']}-long-chat.heapsnapshot`);
    const elementsTop = await restored.locator(':root').evaluate(countElements);
    // And back to the last message.
    await restored.getByRole('log').evaluate((log) => (log.scrollTop = log.scrollHeight));
    await restored.getByText(LONG_CHAT_END).first().waitFor({ state: 'visible' });
    await bench.settled(restored);
    const back = await heapNow(heap);
    // A shared heap is measured against the same page with the chat closed: the page before the reload was another
    // workbench, whose own heap differed from this one's by megabytes from run to run.
    let without = 0;
    if (atBottom.shared) {
      await bench.closeChats();
      await sleep(1000);
      without = await heap.whole();
    }
    return {
      openMs: shown - ready,
      reloadMs: shown - started,
      heap: { bottom: atBottom.used - without, top: atTop.used - without, back: back.used - without, how: atBottom.how },
      earlierClicks: clicks,
      elements: { bottom: elementsBottom, top: elementsTop },
    };
  } finally {
    await heap.dispose();
  }
}

// ---- main -------------------------------------------------------------------------------------------------------------

function clicksLine(label: string, s: ClickStats): string {
  const frame = s.frame.length ? `; → next frame median ${ms(median(s.frame))}, max ${ms(max(s.frame))}` : '';
  const off = s.offTarget ? ` (${s.offTarget} landed off the composer)` : '';
  return `${label}: ${s.handler.length} clicks; press → handler median ${ms(median(s.handler))}, max ${ms(max(s.handler))}${frame}${off}`;
}

async function main(): Promise<number> {
  const broken: string[] = [];
  const workDir = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'bench-ui');
  const { settings } = fixtureAgents(workDir, {
    [AGENTS.reply]: 'short-reply',
    [AGENTS.flood]: 'flood',
    [AGENTS.history]: 'long-history',
    [AGENTS.longChat]: 'long-chat',
  });
  out(`bench:ui — the chat view in code-server + headless Chromium; ${RUNS} run(s) of each send, each in a fresh chat`);
  const startedAt = Date.now();
  const wb = await openWorkbench('bench-ui', { machine: { 'acp.agents': settings }, user: { 'acp.followAgent': false } });
  out(`workbench up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; load average ${load()}`);
  const bench = new Bench(wb);
  const failed = async (what: string, error: unknown) => {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    broken.push(`${what}: ${message}`);
    out(`  ${what} BROKE: ${message}`);
    const dir = await wb.saveFailure(`bench-ui ${what}`).catch(() => undefined);
    if (dir) out(`  (screenshot and logs in ${dir})`);
    await bench.closeChats().catch(() => {});
  };
  /** Runs `run` RUNS times, printing each; a run that breaks is reported and the others go on. */
  const repeat = async (what: string, run: () => Promise<SendRun>, print: (r: SendRun) => string[]) => {
    const runs: SendRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      try {
        const r = await run();
        runs.push(r);
        print(r).forEach((line, n) => out(`${n === 0 ? `  ${what} run ${i + 1}: ` : '    '}${line}`));
      } catch (error) {
        await failed(`${what} run ${i + 1}`, error);
      }
    }
    return runs;
  };
  const cpuLine = (r: SendRun) =>
    r.cpu
      ? [
          `CPU, Enter → marker seen: ${ms(r.cpu.total)} (${Object.entries(r.cpu.byKind)
            .map(([kind, spent]) => `${kind} ${ms(spent)}`)
            .join(', ')})`,
        ]
      : [];
  const floodDetails = (r: SendRun) =>
    `first chunk ${r.first === null ? 'never shown (newer entries render first, and they pushed its entry out of the window before its turn)' : `visible at ${ms(r.first)}`}; the agent wrote its ${FLOOD_UPDATES.toLocaleString('en-US')} updates in ` +
    `${r.agentWriteMs ?? '?'} ms, and its last chunk was visible ${r.lastWrittenToVisible === null ? '?' : ms(r.lastWrittenToVisible)} later; longest gap between frames ${ms(r.longestFrameGap)}; ${r.longTasks.count} long tasks` +
    `${r.longTasks.count ? ` (longest ${ms(r.longTasks.longest)}, ${ms(r.longTasks.total)} in all)` : ''}; ${r.elements} elements in the chat after`;

  let replies: SendRun[] = [];
  let floods: SendRun[] = [];
  let clicked: SendRun[] = [];
  let heap: HeapResult | undefined;
  let longChat: LongChatResult | undefined;
  const only = process.env['BENCH_ONLY'];
  try {
    if (only !== 'long-chat') {
      out();
      out(`[1] Send → visible, timed inside the chat webview: from the Enter keydown's timeStamp to the frame rendered after`);
      out(`    the reply's last chunk (its marker) entered the DOM (requestAnimationFrame, then a task), checked visible.`);
      replies = await repeat(
        'short reply (12 chunks)',
        () => sendRun(bench, AGENTS.reply, null, REPLY_END, false),
        (r) => [`${ms(r.visible)} (in the DOM at ${ms(r.dom)})`, ...cpuLine(r)],
      );
      floods = await repeat(
        `flood (${FLOOD_CHUNKS.toLocaleString('en-US')} chunks + ${FLOOD_TOOL_CALLS} tool calls)`,
        () => sendRun(bench, AGENTS.flood, FLOOD_START, FLOOD_END, false),
        (r) => [`${ms(r.visible)} (in the DOM at ${ms(r.dom)}); ${floodDetails(r)}`, ...cpuLine(r)],
      );
    }
    if (only !== 'long-chat' && only !== 'flood') {
      out();
      out(`[2] Clicks on the composer: a press and release through CDP every ~${CLICK_EVERY_MS} ms while the flood streams (separate`);
      out(`    runs, so the clicking does not weigh on [1]). Timed in the webview from the pointerdown's timeStamp (when the`);
      out(`    browser took the press) to the click's handler running, and to the frame rendered after it. Baseline: 6 clicks`);
      out(`    in the same chat, idle, before Send.`);
      clicked = await repeat(
        'flood with clicks',
        () => sendRun(bench, AGENTS.flood, FLOOD_START, FLOOD_END, true),
        (r) => [`flood visible at ${ms(r.visible)}`, clicksLine('idle, before Send', r.idleClicks!), clicksLine('during the flood', r.clicks!)],
      );
      out();
      out(`[3] The chat webview's JS heap after forced GCs (CDP HeapProfiler.collectGarbage ×3, then Runtime.getHeapUsage).`);
      try {
        heap = await heapPart(bench);
        if (heap.idle)
          out(
            `  idle fresh chat: ${mb(heap.idle.used)}${heap.idle.page !== undefined ? ` (page ${mb(heap.idle.page)} − without the chat ${mb(heap.idle.without!)})` : ''}`,
          );
        if (heap.history) {
          const h = heap.history;
          out(
            `  restored chat after the ${HISTORY_UPDATES.toLocaleString('en-US')}-update session/load replay: ${mb(h.used)}` +
              `${h.page !== undefined ? ` (page ${mb(h.page)} − without the chat ${mb(h.without!)})` : ''}; ` +
              `reload → "${HISTORY_END}" visible in ${(h.restoreMs / 1000).toFixed(1)} s; ${h.elements} elements in the chat`,
          );
        }
        const how = heap.history?.how ?? heap.idle?.how;
        if (how) out(`  measured as: ${how}`);
        if (heap.idleError) {
          broken.push(`heap of an idle chat: ${heap.idleError}`);
          out(`  heap of an idle chat BROKE: ${heap.idleError}`);
        }
        if (heap.historyError) {
          broken.push(`heap after the session/load replay: ${heap.historyError}`);
          out(`  heap after the replay BROKE: ${heap.historyError}`);
          const dir = await wb.saveFailure('bench-ui heap after replay').catch(() => undefined);
          if (dir) out(`  (screenshot and logs in ${dir})`);
        }
      } catch (error) {
        await failed('heap', error);
      }
    }
    if (only !== 'flood') {
      out();
      out(
        `[4] A long chat: ${LONG_CHAT_TURNS.toLocaleString('en-US')} turns with tool calls and diffs, replayed on session/load after a window reload.`,
      );
      try {
        longChat = await longChatPart(bench);
        const h = longChat.heap;
        out(`  page ready → "${LONG_CHAT_END}" visible: ${ms(longChat.openMs)}; reload → visible: ${ms(longChat.reloadMs)}`);
        out(
          `  webview heap: at the last message ${mb(h.bottom)}, at the top ${mb(h.top)} (after ${longChat.earlierClicks} × Show earlier), back at the last ${mb(h.back)}; ` +
            `${longChat.elements.bottom} elements at the last message, ${longChat.elements.top} at the top`,
        );
        out(`  measured as: ${h.how}`);
      } catch (error) {
        await failed('long chat', error);
      }
    }
  } finally {
    await wb.close();
  }

  // ---- summary ----
  out();
  out('Summary (median of the runs, each run in brackets; budgets are reported, not enforced):');
  const list = (xs: readonly number[]) => `[${xs.map(ms).join(', ')}]`;
  if (floods.length) {
    const v = floods.map((r) => r.visible);
    const base = replies.length ? median(replies.map((r) => r.visible)) : undefined;
    out(`  flood, Send → last chunk visible: ${ms(median(v))} ${list(v)} — budget ≤ ${BUDGET.floodMs} ms: ${verdict(median(v) <= BUDGET.floodMs)}`);
    if (base !== undefined)
      out(`    baseline, short reply: ${ms(base)} ${list(replies.map((r) => r.visible))}; flood ÷ reply = ${(median(v) / base).toFixed(1)}×`);
    const spent = floods.flatMap((r) => (r.cpu ? [r.cpu.total] : []));
    if (spent.length) out(`    CPU of all the run's processes, Enter → the marker seen on screen: ${ms(median(spent))} ${list(spent)}`);
    const lag = floods.flatMap((r) => (r.lastWrittenToVisible === null ? [] : [r.lastWrittenToVisible]));
    if (lag.length)
      out(
        `  flood, the agent's last chunk written → visible: ${ms(median(lag))} ${list(lag)} — budget ≤ ${BUDGET.floodLagMs} ms: ${verdict(median(lag) <= BUDGET.floodLagMs)}`,
      );
  } else {
    out('  flood, Send → last chunk visible: no run completed');
  }
  const during = clicked.flatMap((r) => r.clicks?.handler ?? []);
  const duringFrame = clicked.flatMap((r) => r.clicks?.frame ?? []);
  const idle = clicked.flatMap((r) => r.idleClicks?.handler ?? []);
  const idleFrame = clicked.flatMap((r) => r.idleClicks?.frame ?? []);
  if (during.length) {
    out(
      `  click during the flood, press → handler: max ${ms(max(during))}, median ${ms(median(during))} (${during.length} clicks in ${clicked.length} runs) — ` +
        `budget < ${BUDGET.clickMs} ms (max): ${verdict(max(during) < BUDGET.clickMs)}`,
    );
    if (idle.length)
      out(
        `    baseline, idle: max ${ms(max(idle))}, median ${ms(median(idle))}; during ÷ idle (medians) = ${(median(during) / Math.max(median(idle), 0.1)).toFixed(1)}×`,
      );
    if (duringFrame.length) {
      out(
        `  click during the flood, press → next frame: max ${ms(max(duringFrame))}, median ${ms(median(duringFrame))}` +
          (idleFrame.length ? `; idle: max ${ms(max(idleFrame))}, median ${ms(median(idleFrame))}` : ''),
      );
    }
  } else {
    out(
      `  click during the flood: ${clicked.length ? 'no click landed while the flood streamed' : only ? `not run (BENCH_ONLY=${only})` : 'no run completed'}`,
    );
  }
  if (heap?.history) {
    const h = heap.history.used;
    out(
      `  webview heap after the ${HISTORY_UPDATES.toLocaleString('en-US')}-update replay: ${mb(h)} — budget < ${BUDGET.heapMb} MB: ${verdict(h < BUDGET.heapMb * 1024 * 1024)}`,
    );
    if (heap.idle) out(`    baseline, idle fresh chat: ${mb(heap.idle.used)}; replayed ÷ idle = ${(h / heap.idle.used).toFixed(1)}×`);
  } else {
    out(
      `  webview heap after the replay: ${only ? `not run (BENCH_ONLY=${only})` : 'NOT MEASURED (see above)'}${heap?.idle ? `; idle fresh chat ${mb(heap.idle.used)}` : ''}`,
    );
  }
  if (longChat) {
    const peak = Math.max(longChat.heap.bottom, longChat.heap.top, longChat.heap.back);
    out(
      `  long chat (${LONG_CHAT_TURNS} turns), page ready → last message visible: ${ms(longChat.openMs)} — budget ≤ ${BUDGET.longChatOpenMs} ms: ${verdict(longChat.openMs <= BUDGET.longChatOpenMs)}`,
    );
    out(
      `  long chat, webview heap at its peak (to the top and back): ${mb(peak)} — budget < ${BUDGET.longChatHeapMb} MB: ${verdict(peak < BUDGET.longChatHeapMb * 1024 * 1024)}`,
    );
  } else {
    out(`  long chat: ${only === 'flood' ? 'not run (BENCH_ONLY=flood)' : 'NOT MEASURED (see above)'}`);
  }
  out(`  (Noise: the agent, code-server and Chromium share this machine's CPUs with whatever else runs; load average now ${load()}.`);
  out(`  ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all.)`);
  return brokenExitCode(broken);
}

runBench('bench:ui', OVERALL_MS, main);
