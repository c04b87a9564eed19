// A hostile agent cannot hurt the editor (issue 13). The "hostile" fixture agent plays every attack of the issue in
// one prompt turn, in the real extension host: huge paths, deeply nested JSON, a terminal flood, a write through a
// dangling symlink, background jobs, hostile ids, the client's internal message, 100k updates for unknown sessions,
// invalid params, and a malformed answer to session/prompt. The scenario runs once (in `before`); each `it` checks
// one property and says what it protects. The agent's own observations (answers, round trips, pids) come from its
// results file; the heap is sampled here, in the extension host itself.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HostileConfig, HostileResults, RequestRecord } from '../fixtures/lib/hostileScenarios';
import { waitFor } from '../lib/wait';
import { alive, closeAllChats, newChat, useFixtureAgent, workspaceFolder } from './lib/fixture';

/** How much the extension host's heap may grow over its level before the prompt. */
const HEAP_BOUND_BYTES = 400 * 1024 * 1024;
/** What the flooding terminal prints: enough that keeping it whole, or re-slicing it, shows. */
const FLOOD_BYTES = 64 * 1024 * 1024;
/** No attack starts after this long (the agent's own budget); the ones that did not start count as a failure. */
const BUDGET_MS = 45_000;
/** The whole turn, attacks included, whatever happens. */
const TURN_BOUND_MS = 90_000;
/** Once the agent has answered the prompt, the turn must end within this. */
const TURN_END_GRACE_MS = 5_000;
/** After the chat is closed, every process the agent started through us must be gone within this. */
const PROCESS_BOUND_MS = 5_000;
const MB = 1024 * 1024;

interface Run {
  /** How the turn ended: its stop reason, its error, or still pending at the bound. */
  readonly turn: { readonly outcome: 'stopped' | 'failed' | 'pending'; readonly detail: string; readonly ms: number };
  readonly results: HostileResults | undefined;
  readonly heap: { readonly baseline: number; readonly peak: number; readonly samples: number; readonly afterClose: number };
  readonly closeError: string | undefined;
  /** Exceptions and rejections that escaped into the extension host while the agent played. */
  readonly escaped: string[];
  /** Background job pids still running after the chat was closed and the bound passed. */
  readonly survivors: Record<string, number>;
  readonly outside: string;
  readonly target: string;
}

/** Alive and not a zombie: a killed job whose parent has not reaped it yet is gone for every purpose here. */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux' && alive(pid);
  }
}

/**
 * Collects what escapes into the extension host while `body` runs, instead of letting mocha fail the hook at the
 * first one: the rest of the scenario still has to run for the other checks. The host's own listeners (mocha's
 * among them) are put back afterwards.
 */
async function collectingEscapes<T>(escaped: string[], body: () => Promise<T>): Promise<T> {
  const collect = (error: unknown) =>
    escaped.push(error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error).slice(0, 200));
  const uncaught = process.listeners('uncaughtException');
  const unhandled = process.listeners('unhandledRejection');
  process.removeAllListeners('uncaughtException').on('uncaughtException', collect);
  process.removeAllListeners('unhandledRejection').on('unhandledRejection', collect);
  try {
    return await body();
  } finally {
    process.off('uncaughtException', collect).off('unhandledRejection', collect);
    for (const listener of uncaught) process.on('uncaughtException', listener);
    for (const listener of unhandled) process.on('unhandledRejection', listener);
  }
}

function readResults(file: string): HostileResults | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HostileResults;
  } catch {
    return undefined; // not written yet, or being rewritten
  }
}

const describeRequest = (r: RequestRecord) =>
  `${r.attack}: ${r.method} id ${r.sent} → ${r.answers.length === 0 ? 'no answer' : r.answers.map((a) => `id ${a.id}${a.error ? ` error ${String(a.error.code)}` : ''} after ${a.ms} ms`).join(', ')}`;

describe('a hostile agent', function () {
  this.timeout(TURN_BOUND_MS + 60_000);
  let run: Run;
  let dir: string;
  let pidDir: string;
  let recordFile: string;
  let resultsFile: string;

  before(async () => {
    dir = join(workspaceFolder(), `hostile-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    const probeFile = join(dir, 'small.txt');
    writeFileSync(probeFile, 'a small file the agent reads between attacks\n');
    const outside = mkdtempSync(join(tmpdir(), 'acp-hostile-outside-'));
    const target = join(outside, 'planted.txt');
    // As a cloned repository can carry: a link inside the workspace to a file outside that does not exist yet.
    symlinkSync(target, join(dir, 'dangling'));
    pidDir = mkdtempSync(join(tmpdir(), 'acp-hostile-pids-'));
    // Next to the extension host's logs, which the harness keeps for a failed run.
    resultsFile = join(process.env['ACP_TEST_LOGS'] ?? tmpdir(), `hostile-results-${randomUUID().slice(0, 8)}.json`);
    // `deny`, so that every outside path (the long ones, the symlink's target) is refused by the path policy; with
    // the default `ask` the refusal would be a question no one answers here.
    await vscode.workspace.getConfiguration('acp').update('files.outsideWorkspace', 'deny', vscode.ConfigurationTarget.Global);
    ({ recordFile } = await useFixtureAgent('hostile', {
      env: {
        ACP_HOSTILE_RESULTS: resultsFile,
        ACP_HOSTILE_BUDGET_MS: String(BUDGET_MS),
        ACP_FIXTURE_MAX_LIFETIME_MS: String(TURN_BOUND_MS + 30_000),
      },
    }));
    const chat = await newChat();

    const escaped: string[] = [];
    const played = await collectingEscapes(escaped, async () => {
      const baseline = process.memoryUsage().heapUsed;
      let peak = baseline;
      let samples = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
        samples++;
      }, 50);
      const config: HostileConfig = { probeFile, danglingLink: join(dir, 'dangling'), pidDir, floodBytes: FLOOD_BYTES };
      const start = Date.now();
      let turn: Run['turn'] | undefined;
      chat.send(JSON.stringify(config)).then(
        (stop) => (turn = { outcome: 'stopped', detail: stop ?? 'queued', ms: Date.now() - start }),
        (error: unknown) => (turn = { outcome: 'failed', detail: error instanceof Error ? error.message : String(error), ms: Date.now() - start }),
      );
      // Until the turn ends; or, once the agent has answered the prompt (malformed), for the grace period at most.
      let answeredAt: number | undefined;
      await waitFor(
        () => {
          if (turn) return true;
          if (answeredAt === undefined && readResults(resultsFile)?.finished) answeredAt = Date.now();
          return answeredAt !== undefined && Date.now() - answeredAt > TURN_END_GRACE_MS;
        },
        { timeoutMs: TURN_BOUND_MS, what: 'the hostile turn' },
      ).catch(() => undefined);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      const results = readResults(resultsFile);
      const answered = results?.answeredAt;
      const ended = turn ?? {
        outcome: 'pending' as const,
        detail: answered ? `still pending ${Date.now() - answered} ms after the agent answered` : 'the agent had not answered yet',
        ms: Date.now() - start,
      };

      return { baseline, peak, samples, ended, results, start };
    });
    const { baseline, peak, samples, ended, results } = played;
    let closeError: string | undefined;
    await closeAllChats().catch((error: unknown) => (closeError = error instanceof Error ? error.message : String(error)));
    const pids = results?.pids ?? {};
    await waitFor(() => Object.values(pids).every((pid) => !running(pid)), { timeoutMs: PROCESS_BOUND_MS }).catch(() => undefined);
    const survivors = Object.fromEntries(Object.entries(pids).filter(([, pid]) => running(pid)));
    run = {
      turn: ended,
      results,
      heap: { baseline, peak, samples, afterClose: process.memoryUsage().heapUsed },
      closeError,
      escaped,
      survivors,
      outside,
      target,
    };

    // The figures, for whoever reads the run.
    const probes = results?.probes.map((p) => `${p.attack} ${p.ms ?? 'none'}`).join(', ');
    console.log(`    hostile: turn ${ended.outcome} after ${ended.ms} ms (${ended.detail.slice(0, 200)})`);
    console.log(
      `    hostile: heap ${(baseline / MB).toFixed(0)} MB → peak ${(peak / MB).toFixed(0)} MB (${samples} samples), ${(run.heap.afterClose / MB).toFixed(0)} MB after close`,
    );
    console.log(`    hostile: probes (ms): ${probes ?? 'no results file'}`);
    console.log(
      `    hostile: attacks (ms): ${results?.attacks.map((a) => `${a.name} ${a.ms}`).join(', ') ?? '-'}; skipped: ${results?.skipped.map((s) => s.attack).join(', ') || 'none'}`,
    );
  });

  after(async () => {
    // Whatever the client left behind, this test started: end those processes, by pid.
    for (const pid of Object.values(run?.survivors ?? {})) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await vscode.workspace.getConfiguration('acp').update('files.outsideWorkspace', undefined, vscode.ConfigurationTarget.Global);
    for (const path of [dir, pidDir, run?.outside]) if (path) rmSync(path, { recursive: true, force: true });
    if (recordFile) rmSync(recordFile, { force: true });
  });

  // Protects: a turn whose answer the client cannot accept (here a _meta 100,000 levels deep) ends with an error the
  // user can read, instead of spinning forever; and the error does not claim the connection closed while it is open.
  it('ends the turn once the agent has answered, even with a malformed answer', () => {
    assert.notEqual(run.turn.outcome, 'pending', `the turn did not end: ${run.turn.detail}`);
    if (run.turn.outcome === 'failed') assert.doesNotMatch(run.turn.detail, /connection.*closed|closed.*connection/i, 'the connection is still open');
  });

  // Protects the host and the connection: nothing an agent sends may throw out of the reader (the rest of that read
  // would be lost) or leave a rejection unhandled.
  it('lets no exception escape into the extension host', () => {
    assert.deepEqual(run.escaped, []);
  });

  // Protects the scenario itself: an attack that was not played checks nothing. An attack is skipped only when the
  // host was too slow for the agent to get to it within its budget, or the 200 KB path already froze the host.
  it('lets the agent play every attack', () => {
    assert.ok(run.results, `the agent wrote no results to ${resultsFile}`);
    console.log(`    hostile: the agent's observations are in ${resultsFile}`);
    assert.deepEqual(run.results.skipped, [], 'attacks the agent could not play');
    assert.ok(run.results.finished, `the agent did not get through its attacks; it played ${run.results.attacks.map((a) => a.name).join(', ')}`);
  });

  // (1) Protects every chat and every other extension in the host: no agent-controlled input (a long path, nested
  // JSON, a log flood, terminal output) may block the extension host's event loop.
  // How fast is the benchmarks' to measure (a loaded machine makes any fixed figure flaky); here: never starved.
  it('(1) stays responsive: the normal read between attacks is answered after every attack', () => {
    assert.ok(run.results && run.results.probes.length > 0, 'no normal read was made');
    const unanswered = run.results.probes.filter((p) => p.ms === null || p.error);
    assert.deepEqual(unanswered, [], "normal reads not answered within the agent's 5 s");
  });

  // (2) Protects the host from running out of memory: logs, terminal output, bookkeeping of unknown sessions are
  // all bounded by us, whatever the agent sends.
  it('(2) keeps the extension host heap within +400 MB', () => {
    const growth = run.heap.peak - run.heap.baseline;
    assert.ok(
      growth <= HEAP_BOUND_BYTES,
      `the heap grew by ${(growth / MB).toFixed(0)} MB (from ${(run.heap.baseline / MB).toFixed(0)} MB to a peak of ${(run.heap.peak / MB).toFixed(0)} MB over ${run.heap.samples} samples)`,
    );
  });

  // (3) Protects the agent's turn: an unanswered request hangs it, a lost one (the rest of a read after a line the
  // reader choked on) too, and a rewritten id (2^60 + 1, 8 vs "8") answers the wrong request or none.
  it('(3) answers every request once, with its id exactly as sent', () => {
    assert.ok(run.results, 'no results');
    const wrong = run.results.requests.filter(
      (r) => (r.expect === 'answer' ? r.answers.length !== 1 : r.answers.length > 1) || r.answers.some((a) => a.id !== r.expectId),
    );
    const report = [
      ...wrong.map(describeRequest),
      ...run.results.unmatched.map(
        (a) => `an answer to nothing sent: id ${a.id}${a.error ? ` error ${String(a.error.code)}: ${a.error.message}` : ''}`,
      ),
    ];
    assert.deepEqual(report, [], `of ${run.results.requests.length} requests`);
  });

  // Protects agents that act on error codes: params of the wrong shape are the agent's mistake (-32602), not the
  // client's (-32603); params nested past the client's limit are refused as such (-32600 or -32602).
  it('answers invalid params with -32602, and nesting past the limit with -32600 or -32602', () => {
    assert.ok(run.results, 'no results');
    const codeOf = (r: RequestRecord) => (r.answers[0]?.error ? Number(r.answers[0].error.code) : undefined);
    const invalid = run.results.requests.filter((r) => r.attack === 'invalid params');
    const deep = run.results.requests.filter((r) => r.attack === 'deep requests' && r.expect === 'answer');
    assert.ok(invalid.length > 0, 'the agent sent no invalid params');
    const wrong = [...invalid.filter((r) => codeOf(r) !== -32602), ...deep.filter((r) => codeOf(r) !== -32600 && codeOf(r) !== -32602)];
    assert.deepEqual(wrong.map(describeRequest), []);
  });

  // (4) Protects the user's files: a dangling symlink inside the workspace (a cloned repository can carry one) must
  // not let a write land outside it. With acp.files.outsideWorkspace `deny` the path policy itself must refuse it,
  // not some later step failing by accident.
  it('(4) writes nothing outside the workspace, and refuses the write through a dangling symlink', () => {
    assert.equal(existsSync(run.target), false, `${run.target} was written through the symlink`);
    assert.deepEqual(readdirSync(run.outside), [], 'files appeared outside the workspace');
    const write = run.results?.requests.find((r) => r.attack === 'dangling symlink');
    const answer = write?.answers[0];
    assert.ok(answer, 'the write through the symlink was not answered');
    const said = answer.error ? `error ${String(answer.error.code)}: ${answer.error.message}` : `result ${answer.result ?? ''}`;
    assert.match(said, /outside the workspace/, `the path policy did not refuse the write; the answer was ${said}`);
  });

  // (5) Protects the machine: whatever the agent started through us (here `sleep 300` in the background, through
  // nohup, and through a double fork) is gone once its chat is gone.
  it('(5) leaves no process the agent started alive after the chat is closed', () => {
    assert.equal(run.closeError, undefined, 'closing the chat did not stop the agent');
    const pids = run.results?.pids ?? {};
    assert.deepEqual(Object.keys(pids).sort(), ['background', 'double-fork', 'nohup'], 'the background jobs did not all report their pids');
    assert.deepEqual(run.survivors, {}, `still running ${PROCESS_BOUND_MS} ms after the chat was closed`);
  });
});
