// The fuzz agent of `npm run bench:fuzz`: a subprocess speaking NDJSON on stdio. It answers initialize, session/new
// and session/prompt normally; during the first prompt it sends FUZZ_MESSAGES messages (see lib/fuzzTraffic.ts),
// paced by its stdout's backpressure, and matches every answer to what it sent (lib/fuzzWire.ts). Then it waits for
// the missing answers (at most FUZZ_WAIT_MS), makes one last normal request, sends its report to the bench over a
// local TCP connection (FUZZ_REPORT_PORT), and ends the turn. Later prompts are answered with "pong", after telling
// the bench how many requests are still unanswered by then (answered late, or never).
//
// Like the fixture agent it imports nothing from src/acp: it is an independent peer.
import { connect, Socket } from 'node:net';
import { Peer } from '../fixtures/lib/peer';
import { FUZZ_FILES, FuzzTraffic } from './lib/fuzzTraffic';
import { Ledger } from './lib/fuzzWire';

const SESSION_ID = 'fuzz-1';
const COUNT = Number(process.env['FUZZ_MESSAGES'] ?? 100_000);
const SEED = Number(process.env['FUZZ_SEED'] ?? 1);
const WAIT_MS = Number(process.env['FUZZ_WAIT_MS'] ?? 30_000);
/** How long one write may wait for the client to read before the run counts as stalled. */
const STALL_MS = Number(process.env['FUZZ_STALL_MS'] ?? 60_000);
/** How long the last ordinary request may take: it may queue behind answers the client still owes. */
const FINAL_MS = Number(process.env['FUZZ_FINAL_MS'] ?? 30_000);

setTimeout(() => {
  process.stderr.write('fuzz agent: exiting after 20 min\n');
  process.exit(70);
}, 20 * 60_000).unref();

const channel = connect(Number(process.env['FUZZ_REPORT_PORT']), '127.0.0.1');
channel.on('error', (error) => process.stderr.write(`fuzz agent: report channel: ${error.message}\n`));
const tell = (message: unknown) => new Promise<void>((resolve) => channel.write(`${JSON.stringify(message)}\n`, () => resolve()));

// An asynchronous stdout (process.stdout is synchronous on pipes): write() says when the client is behind.
const out = new Socket({ fd: 1, readable: false, writable: true });

const ledger = new Ledger();
const traffic = new FuzzTraffic(COUNT, SESSION_ID, SEED);
/** Valid terminal/create requests whose answer has not come yet, by key: whether to wait for the exit. */
const creating = new Map<string, boolean>();
let settled: (() => void) | undefined;

process.stdin.pause();
let peerComplaints = 0;
const peer = new Peer({
  input: process.stdin,
  output: out,
  ids: 'uuid',
  // The peer complains about every answer to a request it did not send itself: those are the ledger's. Anything
  // else is worth a line, a few times.
  log: (line) => {
    if (/answered a request we never sent|neither request, notification nor response/.test(line)) return;
    if (peerComplaints++ < 20) process.stderr.write(`${line.slice(0, 300)}\n`);
  },
});
peer.onClose(() => process.exit(0));

// Our own reading of what the client sends, by lines, next to the peer's.
let partial: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => {
  let start = 0;
  for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
    partial.push(chunk.subarray(start, nl));
    clientLine(Buffer.concat(partial).toString('utf8'));
    partial = [];
    start = nl + 1;
  }
  if (start < chunk.length) partial.push(chunk.subarray(start));
});

function clientLine(line: string): void {
  const answer = ledger.received(line);
  const waitForExit = answer && creating.get(answer.key);
  if (answer && waitForExit !== undefined) {
    creating.delete(answer.key);
    const result = answer.message['result'] as { terminalId?: unknown } | undefined;
    if (typeof result?.terminalId === 'string') traffic.terminalCreated(result.terminalId, waitForExit);
  }
  if (settled && ledger.unanswered === 0 && ledger.missingNullAnswers === 0) settled();
}

peer.handle('initialize', () => ({
  protocolVersion: 1,
  agentCapabilities: { loadSession: false, promptCapabilities: {} },
  authMethods: [],
  agentInfo: { name: 'fuzz-agent', title: 'Fuzz agent', version: '0' },
}));
peer.handle('session/new', () => ({ sessionId: SESSION_ID }));
let turns = 0;
peer.handle('session/prompt', async () => {
  if (turns++ === 0) await fuzz();
  else await tell({ type: 'late', unanswered: ledger.unanswered + ledger.missingNullAnswers });
  if (turns > 1) await peer.update(SESSION_ID, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'pong' } });
  return { stopReason: 'end_turn' };
});
process.stdin.resume();

/** Resolves true once the client has read enough of our output, false after STALL_MS. */
function drained(): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      out.off('drain', onDrain);
      resolve(false);
    }, STALL_MS);
    const onDrain = () => {
      clearTimeout(timer);
      resolve(true);
    };
    out.once('drain', onDrain);
  });
}

async function fuzz(): Promise<void> {
  await tell({ type: 'phase', phase: 'sending' });
  const start = performance.now();
  let sent = 0;
  let stalled = false;
  for (let unit = traffic.next(); unit; unit = traffic.next()) {
    const kinds = ledger.sent(unit.bytes, unit.category);
    const first = kinds[0];
    if (unit.createsTerminal && first?.kind === 'request') creating.set(first.key, unit.createsTerminal.waitForExit);
    sent++;
    let flowing: boolean;
    if (unit.splitAt !== undefined) {
      out.write(unit.bytes.subarray(0, unit.splitAt));
      await new Promise((resolve) => setImmediate(resolve)); // so the second half may come in a read of its own
      flowing = out.write(unit.bytes.subarray(unit.splitAt));
    } else {
      flowing = out.write(unit.bytes);
    }
    if (!flowing && !(await drained())) {
      stalled = true;
      break;
    }
    // A real agent reads while it writes: let the client's answers in now and then, even when the pipe never fills.
    if (sent % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const sendMs = performance.now() - start;
  await tell({ type: 'phase', phase: 'sent', sent, sendMs });

  // Every answer, or the bound.
  const waitStart = performance.now();
  if (ledger.unanswered > 0 || ledger.missingNullAnswers > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WAIT_MS);
      settled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  settled = undefined;
  const waitedMs = performance.now() - waitStart;

  // One last ordinary request, which must be answered properly.
  let finalRead: string;
  const { id, result } = peer.startRequest('fs/read_text_file', { sessionId: SESSION_ID, path: '/ws/final.txt' });
  ledger.ignored.add(`s:${id}`);
  let timer: NodeJS.Timeout | undefined;
  const finalStart = performance.now();
  try {
    const answer = (await Promise.race([
      result,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${FINAL_MS} ms`)), FINAL_MS))),
    ])) as { content?: unknown };
    const ms = Math.round(performance.now() - finalStart);
    finalRead = answer?.content === FUZZ_FILES['/ws/final.txt'] ? `ok (${ms} ms)` : `wrong content: ${JSON.stringify(answer).slice(0, 200)}`;
  } catch (error) {
    finalRead = `failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
  await tell({ type: 'report', report: { ...ledger.report(), sent, sendMs, waitedMs, stalled, finalRead } });
}
