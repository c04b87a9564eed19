// bench:ui's chat, driven as a user drives it in the workbench (code-server and headless Chromium), and one send
// measured from the Enter keydown to the reply's last chunk on screen: parts [1] and [2] of test/bench/ui.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CDPSession, FrameLocator, Page } from 'playwright-core';
import type { Workbench } from '../../ui/lib/workbench';
import { waitFor } from '../../lib/wait';
import { countElements, installProbe, readProbe, stopProbe, type ProbeSnapshot } from './probe';
import { cpuReadable, cpuSpent, readCpu, type CpuByKind, type CpuReading } from './cpu';

/** The fixture agents the benchmark configures, by their names in the agent picker. */
export const AGENTS = { reply: 'Bench Reply', flood: 'Bench Flood', history: 'Bench History', longChat: 'Bench Long Chat' } as const;
/** The pause between clicks during a flood. */
export const CLICK_EVERY_MS = 40;
const CPU = process.env['BENCH_CPU'] === '1' && cpuReadable;
/** What BENCH_CHROME_TRACE records: the renderer's main-thread work (style, layout, paint) and the compositor's. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'v8'];

// ---- driving the chat -----------------------------------------------------------------------------------------------

export class Bench {
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

export interface SendRun {
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

export interface ClickStats {
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

/** What records a send besides the probe, as the environment asks: a CPU profile, a Chromium trace, the CPU read. */
class Recorders {
  cpu: SendRun['cpu'] = null;
  private profile: CDPSession | undefined;
  private tracing = false;
  private cpuBefore: CpuReading | undefined;

  constructor(private readonly page: Page) {}

  async start(): Promise<void> {
    if (process.env['BENCH_PROFILE']) {
      this.profile = await this.page.context().newCDPSession(this.page);
      await this.profile.send('Profiler.enable');
      await this.profile.send('Profiler.start');
    }
    const tracer = process.env['BENCH_CHROME_TRACE'] ? this.page.context().browser() : null;
    if (tracer) {
      await tracer.startTracing(this.page, { categories: TRACE_CATEGORIES });
      this.tracing = true;
    }
    if (CPU) this.cpuBefore = readCpu();
  }

  /** Stops what started, each part even when another failed: a trace left on would break every later send. */
  async stop(name: string): Promise<void> {
    const failures: unknown[] = [];
    const step = async (work: () => unknown) => {
      try {
        await work();
      } catch (error) {
        failures.push(error);
      }
    };
    const { cpuBefore, profile, tracing } = this;
    this.cpuBefore = this.profile = undefined;
    this.tracing = false;
    if (cpuBefore) await step(() => (this.cpu = cpuSpent(cpuBefore, readCpu())));
    if (tracing) await step(async () => save('BENCH_CHROME_TRACE', `${name}-${Date.now()}.json`, await this.page.context().browser()!.stopTracing()));
    if (profile) {
      await step(async () =>
        save('BENCH_PROFILE', `${name}-${Date.now()}.cpuprofile`, JSON.stringify((await profile.send('Profiler.stop')).profile)),
      );
      await step(() => profile.detach());
    }
    if (failures.length) throw failures[0];
  }
}

/** Writes a recording into the folder that the environment variable `variable` names. */
function save(variable: string, file: string, data: string | Buffer): void {
  const dir = process.env[variable]!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), data);
}

export async function sendRun(bench: Bench, agent: string, startMarker: string | null, endMarker: string, clicks: boolean): Promise<SendRun> {
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
    const recorders = new Recorders(bench.page);
    // Clicks go on while the reply streams, each a press and release through CDP, ~CLICK_EVERY_MS apart; only those
    // the page took between the Enter keydown and the end marker entering the DOM count as "during".
    let clicking = clicks;
    let clicker: Promise<void> | undefined;
    try {
      await recorders.start();
      await message.press('Enter');
      clicker = (async () => {
        while (clicking) {
          await bench.clickAt(point);
          await sleep(CLICK_EVERY_MS);
        }
      })();
      clicker.catch(() => {}); // awaited below: a click that failed fails the run there
      await bench.waitForMark(chat, endMarker, 60_000);
    } finally {
      clicking = false;
      try {
        await clicker;
      } finally {
        await recorders.stop(endMarker);
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
        longest: tasks.length ? Math.max(...tasks.map((t) => t.duration)) : 0,
        total: tasks.reduce((s, t) => s + t.duration, 0),
      },
      clicks: clicks ? clickStats(final, sendAt, end.domAt) : null,
      idleClicks,
      elements: final.elements,
      cpu: recorders.cpu,
    };
  } finally {
    await bench.closeChats();
  }
}
