// `npm run bench:activation`: how long the extension takes to activate, as VS Code itself measures it.
// A benchmark, not a test: it prints figures against the budget and exits 0 unless something broke.
//
// The VSIX that `npm run package` builds (made from a staging copy, as the VSIX UI test does) is installed into a
// fresh code-server with --install-extension, next to a baseline: a trivial extension this bench writes, whose
// activate() only registers its command. Each run is a fresh window (a reload, so a new extension host), where both
// are activated the same way, once the window's start is over, by one of their commands from the palette (in turn,
// which one goes first), and then "Developer: Show Running Extensions" is read. Its "Activation: N ms" is VS Code's
// figure: the time to load the extension's code plus the time its activate() call took
// (activationTimes.codeLoadingTime + activateCallTime). "Developer: Startup Performance" gives the same times split
// up, and the time until activate()'s result resolved; they are printed per run.
//
// Environment: BENCH_RUNS (default 7) windows.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { packageFolder, packageVsix } from '../harness/lib/vsix';
import { waitFor } from '../lib/wait';
import { EXTENSION_ID, openWorkbench, repoRoot, type Workbench } from '../ui/lib/workbench';
import { brokenExitCode, out, runBench } from './lib/run';

const RUNS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 7));
const BUDGET_MS = 50;
const OVERALL_MS = 10 * 60_000;

const BASELINE = {
  publisher: 'acp-bench',
  name: 'baseline',
  displayName: 'Activation Baseline',
  command: 'acpBench.baseline',
  title: 'Bench: Activate the Baseline',
};
const BASELINE_ID = `${BASELINE.publisher}.${BASELINE.name}`;

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const ms = (x: number) => `${Number.isInteger(x) ? x : x.toFixed(1)} ms`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** The baseline extension's folder: a manifest and an activate() that registers its one command. */
function writeBaseline(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: BASELINE.name,
    displayName: BASELINE.displayName,
    publisher: BASELINE.publisher,
    description: 'The activation benchmark baseline: it only registers a command.',
    version: '0.0.1',
    license: 'MIT',
    engines: { vscode: '^1.90.0' },
    main: './extension.js',
    contributes: { commands: [{ command: BASELINE.command, title: BASELINE.title }] },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'README.md'), '# Activation baseline\n\nWritten by `npm run bench:activation`.\n');
  writeFileSync(
    join(dir, 'extension.js'),
    `const vscode = require('vscode');\nexports.activate = (context) => {\n  context.subscriptions.push(vscode.commands.registerCommand(${JSON.stringify(BASELINE.command)}, () => undefined));\n};\n`,
  );
}

interface Times {
  /** What Running Extensions shows: load code + call activate. */
  activation: number;
  load?: number;
  call?: number;
  finish?: number;
}

/**
 * "Activation: 12ms" per extension, from the Running Extensions editor. Its list is sorted slowest first and renders
 * only the rows in view, so it is paged through with the keyboard until every extension named was seen.
 */
async function runningExtensions(wb: Workbench, names: Record<string, string>): Promise<Record<string, number>> {
  await wb.runCommand('Developer: Show Running Extensions');
  const list = wb.page.locator('.runtime-extensions-editor .monaco-list');
  const rows = list.locator('.monaco-list-row');
  await rows.first().waitFor({ timeout: 30_000 });
  await rows.first().click();
  const found: Record<string, number> = {};
  for (let page = 0; page < 40 && Object.keys(found).length < Object.keys(names).length; page++) {
    for (const [id, name] of Object.entries(names)) {
      if (found[id] !== undefined) continue;
      const row = rows.filter({ has: wb.page.locator('.name', { hasText: name }) }).first();
      if ((await row.count()) === 0) continue;
      const text = await waitFor(
        async () => {
          const t = (await row.locator('.activation-time').textContent({ timeout: 1000 })) ?? '';
          return /Activation: \d+ms/.test(t) ? t : undefined;
        },
        { timeoutMs: 30_000, what: `${name}'s activation time in Running Extensions` },
      );
      found[id] = Number(/Activation: (\d+)ms/.exec(text)?.[1]);
    }
    await wb.page.keyboard.press('PageDown');
  }
  const missing = Object.entries(names)
    .filter(([id]) => found[id] === undefined)
    .map(([, name]) => name);
  if (missing.length) throw new Error(`Running Extensions does not list ${missing.join(' and ')} as activated`);
  return found;
}

/**
 * The "Extension Activation Stats" table of "Developer: Startup Performance" (a markdown document in an editor), read
 * through the clipboard: | Extension | Eager | Load Code | Call Activate | Finish Activate | Event | By |.
 */
async function startupPerformance(page: Page, wb: Workbench): Promise<Record<string, { load: number; call: number; finish: number }>> {
  await wb.runCommand('Developer: Startup Performance');
  const lines = page.locator('.editor-instance .monaco-editor .view-lines').first();
  await lines.getByText('System Info').first().waitFor({ timeout: 30_000 });
  await lines.click();
  // The document is filled in as the figures arrive: copy it until the activation table is in it.
  const clipboard = () =>
    page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
  const text = await waitFor(
    async () => {
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Control+C');
      const copied = await clipboard();
      return copied.includes('Extension Activation Stats') ? copied : undefined;
    },
    { timeoutMs: 30_000, what: 'the Extension Activation Stats in Startup Performance' },
  );
  const stats: Record<string, { load: number; call: number; finish: number }> = {};
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // ['', id, eager, load, call, finish, event, by, '']
    if (cells.length >= 8 && /^\d+$/.test(cells[3] ?? '') && cells[1]) {
      stats[cells[1].toLowerCase()] = { load: Number(cells[3]), call: Number(cells[4]), finish: Number(cells[5]) };
    }
  }
  return stats;
}

/**
 * Waits until the window's own start is over: Running Extensions shows no extension still activating, and its rows
 * stay the same for 2 s. The built-in extensions that start with the window would otherwise share the extension host
 * (and the CPUs) with the activations measured.
 */
async function quiet(wb: Workbench): Promise<void> {
  await wb.runCommand('Developer: Show Running Extensions');
  const rows = wb.page.locator('.runtime-extensions-editor .monaco-list-row');
  await rows.first().waitFor({ timeout: 30_000 });
  let last = '';
  let since = Date.now();
  await waitFor(
    async () => {
      const now = (await rows.allInnerTexts()).join('\n');
      if (now !== last || now.includes('Activating')) {
        last = now;
        since = Date.now();
        return false;
      }
      return Date.now() - since >= 2000;
    },
    { timeoutMs: 60_000, what: 'the extensions that start with the window to finish activating' },
  );
  await wb.runCommand('View: Close All Editors');
}

async function oneRun(wb: Workbench, run: number, acpFirst: boolean): Promise<Record<string, Times>> {
  if (run > 0) {
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
  }
  await quiet(wb);
  const order = acpFirst ? ['ACP: Show Log', BASELINE.title] : [BASELINE.title, 'ACP: Show Log'];
  for (const title of order) await wb.runCommand(title);
  const shown = await runningExtensions(wb, { [EXTENSION_ID]: 'ACP Client', [BASELINE_ID]: BASELINE.displayName });
  const split = await startupPerformance(wb.page, wb).catch((error: unknown) => {
    out(`    (Startup Performance could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    return {} as Record<string, { load: number; call: number; finish: number }>;
  });
  await wb.runCommand('View: Close All Editors');
  const times: Record<string, Times> = {};
  for (const id of [EXTENSION_ID, BASELINE_ID]) times[id] = { activation: shown[id] as number, ...split[id.toLowerCase()] };
  return times;
}

function describe(t: Times): string {
  const parts = t.load !== undefined ? ` (load code ${ms(t.load)}, call activate ${ms(t.call!)}, finish activate ${ms(t.finish!)})` : '';
  return `${ms(t.activation)}${parts}`;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const workDir = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'bench-activation-packages');
  out(`bench:activation — activation time as VS Code measures it (Running Extensions), ${RUNS} fresh windows`);
  const vsix = await packageVsix(repoRoot, join(workDir, 'acp'));
  const baselineDir = join(workDir, 'baseline');
  writeBaseline(baselineDir);
  const baselineVsix = join(workDir, 'baseline.vsix');
  await packageFolder(repoRoot, baselineDir, baselineVsix);
  const host = vsix.entries.find((e) => e.name === 'extension/dist/extension.js');
  out(
    `packaged the VSIX (${(vsix.bytes / 1024).toFixed(0)} KB; dist/extension.js ${host ? (host.size / 1024).toFixed(0) : '?'} KB) and the baseline`,
  );

  const wb = await openWorkbench('bench-activation', { user: {} }, { vsix: [vsix.file, baselineVsix] });
  await wb.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  out(`workbench up with both installed in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; load average ${load()}`);
  const runs: Record<string, Times>[] = [];
  const broken: string[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      try {
        const acpFirst = i % 2 === 0;
        const r = await oneRun(wb, i, acpFirst);
        runs.push(r);
        out(
          `  window ${i + 1} (${acpFirst ? 'ACP Client' : 'baseline'} activated first): ACP Client ${describe(r[EXTENSION_ID]!)}; baseline ${describe(r[BASELINE_ID]!)}`,
        );
      } catch (error) {
        const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
        broken.push(`window ${i + 1}: ${message}`);
        out(`  window ${i + 1} BROKE: ${message}`);
        const dir = await wb.saveFailure(`bench-activation window ${i + 1}`).catch(() => undefined);
        if (dir) out(`  (screenshot and logs in ${dir})`);
      }
    }
  } finally {
    await wb.close();
  }

  out();
  out('Summary (median of the windows; each in brackets; the budget is reported, not enforced):');
  if (runs.length) {
    const figure = (id: string, pick: (t: Times) => number | undefined) => runs.map((r) => pick(r[id]!)).filter((x): x is number => x !== undefined);
    const acp = figure(EXTENSION_ID, (t) => t.activation);
    const base = figure(BASELINE_ID, (t) => t.activation);
    out(`  ACP Client activation: ${ms(median(acp))} [${acp.join(', ')}] — budget < ${BUDGET_MS} ms: ${median(acp) < BUDGET_MS ? 'PASS' : 'OVER'}`);
    out(`  baseline (a trivial extension): ${ms(median(base))} [${base.join(', ')}]`);
    for (const [label, id] of [
      ['ACP Client', EXTENSION_ID],
      ['baseline', BASELINE_ID],
    ] as const) {
      const l = figure(id, (t) => t.load);
      if (l.length) {
        out(
          `  ${label}, split: load code ${ms(median(l))}, call activate ${ms(median(figure(id, (t) => t.call)))}, ` +
            `finish activate ${ms(median(figure(id, (t) => t.finish)))} (medians, Developer: Startup Performance)`,
        );
      }
    }
  } else {
    out('  no window completed');
  }
  out(`  (Noise: code-server and Chromium share this machine's CPUs with whatever else runs; load average now ${load()}.`);
  out(`  ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all.)`);
  return brokenExitCode(broken);
}

runBench('bench:activation', OVERALL_MS, main);
