// `npm run bench:fuzz`: the real protocol core (AgentClient, with an in-memory host and terminals on) against a
// fuzz agent subprocess (fuzzAgent.ts) that sends 100,000 messages mixing valid traffic with byte-level mutations,
// hostile ids, deep nesting, huge strings, prototype keys, unknown and internal methods, invalid params, stray
// responses, unknown sessions and junk. The agent judges the answers it gets; this process watches itself.
//
// Must be zero (else the exit code is 1): uncaught exceptions and unhandled rejections here, unanswered requests,
// error codes outside the spec's set, duplicated or changed ids, prototype pollution; and both final round trips
// (the agent's fs/read_text_file, our session/prompt) must work. Peak heap and RSS, the rate and the log's size
// are printed, not judged.
//
// Environment: FUZZ_MESSAGES (default 100000), FUZZ_SEED (default 1), FUZZ_WAIT_MS (how long the agent waits for
// missing answers after its last message, default 30000), FUZZ_FINAL_MS (how long its last ordinary request may take,
// default 30000).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { AgentClient, type AgentSession } from '../../src/acp/agentClient';
import type { HostServices } from '../../src/acp/clientHandler';
import { AcpError, ErrorCodes } from '../../src/acp/errors';
import { kindOf, limitRepeats, type Logger } from '../../src/acp/log';
import { within } from '../lib/wait';
import { FUZZ_FILES } from './lib/fuzzTraffic';
import type { CategoryFigures, LedgerReport } from './lib/fuzzWire';
import { brokenExitCode, out, runBench } from './lib/run';

const COUNT = Number(process.env['FUZZ_MESSAGES'] ?? 100_000);
const SEED = Number(process.env['FUZZ_SEED'] ?? 1);
const WAIT_MS = Number(process.env['FUZZ_WAIT_MS'] ?? 30_000);
const FINAL_MS = Number(process.env['FUZZ_FINAL_MS'] ?? 30_000);
const ROUND_TRIP_MS = 15_000;

interface AgentReport extends LedgerReport {
  readonly sent: number;
  readonly sendMs: number;
  readonly waitedMs: number;
  readonly stalled: boolean;
  readonly finalRead: string;
}

// ---- what this process watches in itself ------------------------------------------------------------------------

const crashes = { uncaught: 0, rejections: 0, examples: [] as string[] };
const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 200);
process.on('uncaughtException', (error) => {
  crashes.uncaught++;
  if (crashes.examples.length < 5) crashes.examples.push(`uncaught ${describe(error)}`);
});
process.on('unhandledRejection', (reason) => {
  crashes.rejections++;
  if (crashes.examples.length < 5) crashes.examples.push(`unhandled rejection ${describe(reason)}`);
});

const memory = { heap: 0, rss: 0 };
function sampleMemory(): void {
  const m = process.memoryUsage();
  memory.heap = Math.max(memory.heap, m.heapUsed);
  memory.rss = Math.max(memory.rss, m.rss);
}

/** Counts what the core logs, by level, and the longest line: the log must stay bounded whatever the agent sends. */
class CountingLogger implements Logger {
  readonly lines = { trace: 0, debug: 0, info: 0, warn: 0, error: 0 };
  chars = 0;
  longest = 0;
  longestStart = '';
  /** Warnings and errors by kind (the text before the first colon), to say what the flood was made of. */
  readonly kinds = new Map<string, number>();
  private count(level: keyof CountingLogger['lines'], message: string): void {
    this.lines[level]++;
    if (level === 'warn' || level === 'error') {
      const kind = kindOf(message);
      this.kinds.set(
        process.env.FUZZ_RAW ? message.slice(0, 140) : kind,
        (this.kinds.get(process.env.FUZZ_RAW ? message.slice(0, 140) : kind) ?? 0) + 1,
      );
    }
    this.chars += message.length;
    if (message.length > this.longest) {
      this.longest = message.length;
      this.longestStart = message.slice(0, 100);
    }
  }
  trace(m: string) {
    this.count('trace', m);
  }
  debug(m: string) {
    this.count('debug', m);
  }
  info(m: string) {
    this.count('info', m);
  }
  warn(m: string) {
    this.count('warn', m);
  }
  error(m: string) {
    this.count('error', m);
  }
}

/** Every own property of the built-in prototypes, so that anything added or replaced shows. */
function prototypeSnapshot(): Map<string, unknown> {
  const snapshot = new Map<string, unknown>();
  const protos: [string, object][] = [
    ['Object', Object.prototype],
    ['Array', Array.prototype],
    ['Function', Function.prototype],
    ['String', String.prototype],
  ];
  for (const [name, proto] of protos) {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      snapshot.set(`${name}.prototype.${String(key)}`, d && ('value' in d ? d.value : d.get));
    }
  }
  return snapshot;
}

function pollution(before: Map<string, unknown>): string[] {
  const after = prototypeSnapshot();
  const found: string[] = [];
  for (const [key, value] of after) if (!before.has(key) || before.get(key) !== value) found.push(key);
  for (const key of before.keys()) if (!after.has(key)) found.push(`${key} (removed)`);
  if (({} as Record<string, unknown>)['fuzzPolluted'] !== undefined) found.push('({}).fuzzPolluted');
  return found;
}

// ---- the host and the report channel ----------------------------------------------------------------------------

/** The host: files from FUZZ_FILES, writes counted and dropped, permissions answered with the first option. */
function inMemoryHost(): HostServices & { writes: number } {
  const host = {
    writes: 0,
    async readTextFile(params: { path: string }) {
      const content = Object.hasOwn(FUZZ_FILES, params.path) ? FUZZ_FILES[params.path] : undefined;
      if (content === undefined) throw new AcpError(ErrorCodes.ResourceNotFound, 'no such file');
      return { content };
    },
    async writeTextFile() {
      host.writes++;
      return {};
    },
    decidePermission: (request: { options: readonly { optionId: string }[] }) => {
      const first = request.options[0];
      return first ? { optionId: first.optionId, reason: 'the fuzz bench answers with the first option' } : undefined;
    },
  };
  return host;
}

/** Like a user: answers a permission request the host left open with its first option. */
function answerPermissions(session: AgentSession): void {
  session.model.onDidChange((change) => {
    if (change.type !== 'permission' || change.settled) return;
    const pending = session.model.permissions.find((p) => p.id === change.id);
    const first = pending?.options[0];
    if (pending && first) session.model.resolvePermission(pending.id, first.optionId);
  });
}

interface Channel {
  readonly port: number;
  readonly sent: Promise<{ sent: number; sendMs: number }>;
  readonly report: Promise<AgentReport>;
  /** How many requests were still unanswered when our prompt after the fuzz reached the agent. */
  readonly late: Promise<number>;
  readonly server: Server;
}

/** A local TCP server the agent reports to, apart from the protocol under test. */
async function openChannel(): Promise<Channel> {
  let onSent: (v: { sent: number; sendMs: number }) => void = () => {};
  let onReport: (v: AgentReport) => void = () => {};
  let onLate: (v: number) => void = () => {};
  const late = new Promise<number>((resolve) => (onLate = resolve));
  const sent = new Promise<{ sent: number; sendMs: number }>((resolve) => (onSent = resolve));
  const report = new Promise<AgentReport>((resolve) => (onReport = resolve));
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl)) as {
          type: string;
          phase?: string;
          sent?: number;
          sendMs?: number;
          report?: AgentReport;
          unanswered?: number;
        };
        buffer = buffer.slice(nl + 1);
        if (message.type === 'phase' && message.phase === 'sent') onSent({ sent: message.sent ?? 0, sendMs: message.sendMs ?? 0 });
        if (message.type === 'report' && message.report) onReport(message.report);
        if (message.type === 'late') onLate(message.unanswered ?? -1);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, sent, report, late, server };
}

// ---- the run ------------------------------------------------------------------------------------------------------

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: describe(error) }),
  );

async function main(): Promise<number> {
  const before = prototypeSnapshot();
  const sampler = setInterval(sampleMemory, 50);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const channel = await openChannel();
  const dir = mkdtempSync(join(tmpdir(), 'acp-fuzz-'));
  const log = new CountingLogger();
  // What the extension writes to its channel: through the same limit on repeated warnings.
  const written = limitRepeats(log);
  const host = inMemoryHost();
  out(`fuzz: ${n(COUNT)} messages (FUZZ_MESSAGES), seed ${SEED} (FUZZ_SEED), answers awaited up to ${WAIT_MS / 1000} s (FUZZ_WAIT_MS)`);

  const client = await AgentClient.start(
    {
      command: process.execPath,
      args: [join(__dirname, 'fuzzAgent.js')],
      env: {
        FUZZ_MESSAGES: String(COUNT),
        FUZZ_SEED: String(SEED),
        FUZZ_WAIT_MS: String(WAIT_MS),
        FUZZ_FINAL_MS: String(FINAL_MS),
        FUZZ_REPORT_PORT: String(channel.port),
      },
      cwd: dir,
    },
    host,
    { clientInfo: { name: 'fuzz-bench', version: '0' }, log: process.env.FUZZ_RAW ? log : written, killGraceMs: 1000, terminals: true },
  );
  const gone = new Promise<never>((_, reject) => client.onDidExit((end) => reject(new Error(`the agent ended: ${end.message}`))));
  gone.catch(() => {});
  const session = await client.newSession(dir);
  answerPermissions(session);

  const broken: string[] = [];
  const fuzzTurn = settle(session.prompt([{ type: 'text', text: 'fuzz' }]));
  // The agent bounds its own stalls; once it has sent everything, its wait for answers is bounded by WAIT_MS.
  await settle(Promise.race([channel.sent, gone]));
  const reported = await settle(within(Promise.race([channel.report, gone]), WAIT_MS + FINAL_MS + 30_000, "the fuzz agent's report"));
  // The agent ends the turn right after its report, but the answer may queue behind what the client still owes.
  const turnEnd = await settle(within(fuzzTurn, FINAL_MS, 'the end of the fuzz turn'));
  const turnOk = turnEnd.ok && turnEnd.value.ok;
  const ping = await settle(within(session.prompt([{ type: 'text', text: 'ping' }]), ROUND_TRIP_MS, 'the prompt after the fuzz'));
  const ponged = session.model.entries.some(
    (e) => e.type === 'message' && e.role === 'agent' && e.content.some((b) => b.type === 'text' && b.text === 'pong'),
  );
  const pingOk = ping.ok && ping.value === 'end_turn' && ponged;
  const late = await settle(within(channel.late, 1000, 'the late count'));
  sampleMemory();
  clearInterval(sampler);
  loopDelay.disable();
  await settle(client.dispose());
  written.dispose();
  channel.server.close();
  rmSync(dir, { recursive: true, force: true });
  const polluted = pollution(before);

  // ---- the figures ----
  if (!reported.ok) {
    out(`agent report: none (${reported.error})`);
    broken.push(`no report from the fuzz agent: ${reported.error}`);
  }
  const r = reported.ok ? reported.value : undefined;
  if (r) {
    const rate = r.sent / (r.sendMs / 1000);
    out(
      `messages sent: ${n(r.sent)} in ${(r.sendMs / 1000).toFixed(1)} s (${n(rate)} messages/s)${r.stalled ? '; STALLED: the client stopped reading' : ''}; then ${(r.waitedMs / 1000).toFixed(1)} s waiting for answers`,
    );
    if (r.stalled) broken.push('the client stopped reading the agent (a write waited more than FUZZ_STALL_MS)');
    if (r.sent < COUNT && !r.stalled) broken.push(`only ${r.sent} of ${COUNT} messages sent`);
  }
  out(
    `uncaught exceptions: ${crashes.uncaught}; unhandled rejections: ${crashes.rejections}${crashes.examples.length ? ` (${crashes.examples.join('; ')})` : ''}`,
  );
  if (crashes.uncaught > 0 || crashes.rejections > 0)
    broken.push(`${crashes.uncaught} uncaught exception(s), ${crashes.rejections} unhandled rejection(s)`);
  if (r) {
    const nul = r.nullId;
    const nullAnswers =
      Object.entries(nul.answers)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || 'none';
    const later = late.ok ? `; still unanswered when our last prompt reached the agent: ${n(late.value)}` : '';
    out(
      `unanswered requests: ${n(r.unanswered)} within ${WAIT_MS / 1000} s of the last message${later}${r.unansweredExamples.length ? ` (e.g. ${r.unansweredExamples.join('; ')})` : ''}`,
    );
    out(
      `  requests with id null: ${n(nul.nullIdRequests)}; with an object/array/boolean id (owed -32600 with id null): ${n(nul.badIdRequests)}; answers with id null: ${nullAnswers}; missing: ${n(nul.missing)}`,
    );
    out(
      `answers with codes outside the spec's set: ${n(r.outOfSpecCodes)}${r.outOfSpecExamples.length ? ` (e.g. ${r.outOfSpecExamples.join('; ')})` : ''}`,
    );
    out(
      `duplicated ids: ${n(r.duplicated)}${r.duplicatedExamples.length ? ` (${r.duplicatedExamples.join('; ')})` : ''}; changed ids (answers under an id never sent): ${n(r.changed)}${r.changedExamples.length ? ` (${r.changedExamples.join('; ')})` : ''}`,
    );
    out(
      `  malformed answers: ${n(r.malformedAnswers)}${r.malformedExamples.length ? ` (${r.malformedExamples.join('; ')})` : ''}; requests reusing an id sent before (only one answer owed): ${n(r.reusedIds)}; answers not judged (to a reused id, or to a line with an id but neither method nor result): ${n(r.optionalAnswered)}`,
    );
    if (r.unanswered > 0) broken.push(`${r.unanswered} request(s) unanswered`);
    if (r.outOfSpecCodes > 0) broken.push(`${r.outOfSpecCodes} answer(s) with codes outside the spec's set`);
    if (r.duplicated + r.changed > 0) broken.push(`${r.duplicated} duplicated and ${r.changed} changed id(s)`);
  }
  out(`prototype pollution: ${polluted.length ? polluted.join(', ') : 'none'}`);
  if (polluted.length) broken.push(`prototype pollution: ${polluted.join(', ')}`);
  out(`peak heapUsed: ${mb(memory.heap)}; peak RSS: ${mb(memory.rss)} (sampled every 50 ms)`);
  out(`event loop delay: p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms`);
  const final = r?.finalRead ?? 'no report';
  const clientTrip = pingOk ? 'ok' : ping.ok ? `answered ${ping.value}${ponged ? '' : ', without the agent\u2019s reply in the model'}` : ping.error;
  out(
    `final round trips: the agent's fs/read_text_file ${final}; the fuzz turn ended ${turnOk ? 'ok' : turnEnd.ok && !turnEnd.value.ok ? `with an error (${turnEnd.value.error})` : `never (${turnEnd.ok ? '' : turnEnd.error})`}; our session/prompt ${clientTrip}`,
  );
  if (!final.startsWith('ok')) broken.push(`the agent's final fs/read_text_file: ${final}`);
  if (!pingOk) broken.push(`the session/prompt round trip after the fuzz: ${clientTrip}`);
  const levels = Object.entries(log.lines)
    .map(([level, count]) => `${level} ${n(count)}`)
    .join(', ');
  out(
    `core log: ${levels}; ${mb(log.chars * 2)} of text (UTF-16); longest line ${n(log.longest)} chars${log.longest > 0 ? ` ("${log.longestStart.replace(/\s+/g, ' ').slice(0, 60)}…")` : ''}`,
  );
  const top = [...log.kinds].sort((a, b) => b[1] - a[1]).slice(0, 6);
  out(
    `core log kinds (warn and error, after the repeat limit): ${top.map(([kind, count]) => `${n(count)} × "${kind.slice(0, process.env.FUZZ_RAW ? 160 : 70)}"`).join('; ')}`,
  );
  out(`host: ${n(host.writes)} writes accepted`);
  if (r) table(r.categories);
  return brokenExitCode(broken);
}

function table(categories: Record<string, CategoryFigures>): void {
  out();
  const rows = Object.entries(categories).sort((a, b) => b[1].sent - a[1].sent);
  const head = ['category', 'sent', 'owed', 'answered', 'owed id null', 'answers (ok or code: count)'];
  const cells = rows.map(([name, f]) => [
    name,
    n(f.sent),
    n(f.owed),
    n(f.answered),
    n(f.owedNull),
    Object.entries(f.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k}: ${n(v)}`)
      .join(', '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const fmt = (c: string[]) =>
    c
      .map((x, i) => (i === 0 || i === c.length - 1 ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  out(fmt(head));
  for (const c of cells) out(fmt(c));
}

runBench('bench:fuzz', 25 * 60_000, main);
