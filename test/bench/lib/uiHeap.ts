// bench:ui's heap figures: a restored chat's webview heap after a long session/load replay, and a long chat opened,
// scrolled to the top and back: parts [3] and [4] of test/bench/ui.ts.
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CDPSession, Frame, Page } from 'playwright-core';
import { HISTORY_END, LONG_CHAT_END } from '../../fixtures/lib/benchScenarios';
import { EXTENSION_ID } from '../../ui/lib/workbench';
import { countElements } from './probe';
import { AGENTS, type Bench } from './uiChat';
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

export interface HeapResult {
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

export async function heapPart(bench: Bench): Promise<HeapResult> {
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

export interface LongChatResult {
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

export async function longChatPart(bench: Bench): Promise<LongChatResult> {
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
