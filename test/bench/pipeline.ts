// `npm run bench`: the cost of the protocol pipeline on a stream of 100k mixed `session/update` lines.
//
// Ours: bytes through a real stream → NDJSON framing → vscode-jsonrpc → validation → the session model.
// Baselines, on the same bytes:
//   - bare JSON.parse of the same lines (already split): the floor;
//   - the official SDK's client (@agentclientprotocol/sdk) over a real stream pair, applying to the same model.
// Budget: at most 2.0× bare JSON.parse, and at least 10× faster than the SDK.
// Beside it, the same stream as ACP v2 says it, through a connection that negotiated v2: its time as a ratio of v1's;
// and the same lines as WebSocket text frames from a loopback server, as an agent at a URL sends them.
//
// How it is measured: each path runs in a node process of its own, and each of its runs is paired with a run of bare
// JSON.parse just before it, in the same process. A path's figure is the median of its runs' ratios to their bare
// JSON.parse, so that a slow moment of the machine weighs on both sides of a ratio alike; two paths are compared by
// the ratio of their figures. Apart, because a path slowed the others in a shared process: with the SDK, v2 and the
// WebSocket runs in one process, our v1 pipeline read 2.04-2.15x bare JSON.parse; alone, 1.77-1.92x, with the same
// code. The SDK alone added 0.1-0.15 to it (the figures of issue 42 came from a process that held only the SDK and
// ours). The WebSocket path's process holds the loopback server and the bare ws client too: those two are compared
// directly, run by run.
import { execFileSync } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as sdk from '@agentclientprotocol/sdk';
import { AcpClientConnection } from '../../src/acp/connection';
import type * as S from '../../src/acp/schema.gen';
import { SessionModel } from '../../src/acp/sessionModel';
import { silentLogger } from '../../src/acp/log';
import type { TraceLevel } from '../../src/acp/trace';
import { ndjsonTransport } from '../../src/acp/transport';
import { messageTracer } from '../../src/common/log';
import { applyV2 } from '../../src/acp/v2/apply';
import { bareWebSocket, oursOverWebSocket } from './lib/overWebSocket';
import { updateLines, updateLinesV2 } from './lib/updates';

const COUNT = Number(process.env['BENCH_UPDATES'] ?? 100_000);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 7);
const CHUNK = 64 * 1024; // what one read of a pipe delivers at most
const TRACE: TraceLevel = process.env['BENCH_TRACE'] === 'messages' || process.env['BENCH_TRACE'] === 'verbose' ? process.env['BENCH_TRACE'] : 'off';

/** The path this process measures: given by the parent as `--path <name>`; none in the parent. */
const PATH_ARG = process.argv.indexOf('--path');
const OWN_PATH = PATH_ARG === -1 ? undefined : process.argv[PATH_ARG + 1];
/** Marks the line of a child's output that carries its runs. */
const RUNS_MARK = 'bench-runs ';

// The streams are made in the children only (the parent only starts them and reads back their figures).
const lines = OWN_PATH ? updateLines(COUNT) : [];
const chunksOf = (data: Buffer) => Array.from({ length: Math.ceil(data.length / CHUNK) }, (_, i) => data.subarray(i * CHUNK, (i + 1) * CHUNK));
const chunks = chunksOf(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
const chunksV2 = OWN_PATH === 'v2' ? chunksOf(Buffer.from(`${updateLinesV2(COUNT).join('\n')}\n`, 'utf8')) : [];

function bareJsonParse(): number {
  const start = performance.now();
  let sink = 0;
  for (const line of lines) sink += (JSON.parse(line) as { params: object }).params ? 1 : 0;
  if (sink !== COUNT) throw new Error('JSON.parse baseline lost lines');
  return performance.now() - start;
}

/** Writes the chunks one per macrotask, as reads of a pipe arrive: one per turn of the event loop. */
function paced(stream: PassThrough, data: readonly Buffer[] = chunks): () => void {
  return () => {
    let i = 0;
    const next = () => {
      const chunk = data[i++];
      if (!chunk) return;
      stream.write(chunk);
      setImmediate(next);
    };
    next();
  };
}

/** Resolves when `expected` updates were applied, with the elapsed milliseconds since `feed` began. */
function timed(feed: () => void, counter: { applied: number; done?: () => void }): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    counter.done = () => resolve(performance.now() - start);
    feed();
  });
}

/**
 * Our pipeline, wired as the extension wires it, over ACP `version`: for v2, a connection that asked for 2 and was
 * answered 2, fed the v2 stream. A tracer sees every line and, with acp.trace off (the default), logs nothing;
 * BENCH_TRACE=messages or verbose measures the cost of formatting the trace (written to a silent logger).
 */
async function ours(version: 1 | 2 = 1): Promise<number> {
  const toClient = new PassThrough();
  const toAgent = new PassThrough();
  const model = new SessionModel('sess-1');
  const counter: { applied: number; done?: () => void } = { applied: 0 };
  const applied = () => {
    if (++counter.applied === COUNT) counter.done?.();
  };
  const trace = messageTracer(silentLogger, 'bench', () => TRACE);
  const { reader, writer } = ndjsonTransport(toClient, toAgent, { coalesce: ['session/update'], trace });
  const connection = new AcpClientConnection(
    reader,
    writer,
    {
      requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
      sessionUpdate: (n) => {
        model.apply(n.update);
        applied();
      },
      v2Update: (_sessionId, event) => {
        applyV2(model, event);
        applied();
      },
    },
    { clientInfo: { name: 'bench', version: '0' } },
  );
  if (version === 2) {
    // The agent's side of initialize: it answers 2.
    toAgent.once('data', (line: Buffer) => {
      const { id } = JSON.parse(line.toString('utf8')) as { id: number };
      toClient.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 2, info: { name: 'bench', version: '0' } } })}\n`);
      toAgent.resume();
    });
    await connection.initialize({}, undefined, 2);
  } else {
    toAgent.resume();
  }
  const ms = await timed(paced(toClient, version === 2 ? chunksV2 : chunks), counter);
  connection.dispose();
  model.dispose();
  return ms;
}

async function officialSdk(): Promise<number> {
  const toClient = new PassThrough();
  const toAgent = new PassThrough();
  toAgent.resume();
  const model = new SessionModel('sess-1');
  const counter: { applied: number; done?: () => void } = { applied: 0 };
  const app = sdk.client().onNotification('session/update', (ctx) => {
    model.apply(ctx.params.update as S.SessionUpdate);
    if (++counter.applied === COUNT) counter.done?.();
  });
  const stream = sdk.ndJsonStream(Writable.toWeb(toAgent) as WritableStream<Uint8Array>, Readable.toWeb(toClient) as ReadableStream<Uint8Array>);
  app.connect(stream);
  const ms = await timed(paced(toClient), counter);
  toClient.end();
  model.dispose();
  return ms;
}

/** Starts each measured run from a collected heap (when node runs with --expose-gc), so runs do not pay for each other. */
function settleHeap(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The paths, each measured in a process of its own; a run of `ws` is ours over WebSocket and a bare ws client. */
const PATHS = {
  v1: async () => [await ours()],
  v2: async () => [await ours(2)],
  sdk: async () => [await officialSdk()],
  ws: async () => {
    const over = await oursOverWebSocket(lines);
    settleHeap();
    return [over, await bareWebSocket(lines)];
  },
} satisfies Record<string, () => Promise<number[]>>;
type PathName = keyof typeof PATHS;

/** Milliseconds per run: bare JSON.parse, then the path's own figures. */
type Runs = number[][];

/** In a child process: warms the path up, then measures RUNS pairs of bare JSON.parse and the path. */
async function measure(path: PathName): Promise<Runs> {
  bareJsonParse();
  await PATHS[path]();
  const runs: Runs = [];
  for (let i = 0; i < RUNS; i++) {
    settleHeap();
    const bare = bareJsonParse();
    settleHeap();
    runs.push([bare, ...(await PATHS[path]())]);
  }
  return runs;
}

/** Runs `path` in a fresh node process (with this one's flags) and reads back its runs. */
function inItsOwnProcess(path: PathName): Runs {
  const output = execFileSync(process.execPath, [...process.execArgv, __filename, '--path', path], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = output.split('\n').find((l) => l.startsWith(RUNS_MARK));
  if (!line) throw new Error(`the ${path} path's process gave no runs: ${output.slice(0, 200)}`);
  return JSON.parse(line.slice(RUNS_MARK.length)) as Runs;
}

const isPath = (name: string): name is PathName => Object.hasOwn(PATHS, name);

async function main(): Promise<void> {
  if (OWN_PATH !== undefined) {
    if (!isPath(OWN_PATH)) throw new Error(`unknown path ${OWN_PATH}; the paths are ${Object.keys(PATHS).join(', ')}`);
    process.stdout.write(`\n${RUNS_MARK}${JSON.stringify(await measure(OWN_PATH))}\n`);
    return;
  }
  process.stdout.write(
    `${COUNT} session/update lines, ${RUNS} runs each (median), each path in a process of its own beside bare JSON.parse, acp.trace ${TRACE}\n`,
  );
  const runs = Object.fromEntries((Object.keys(PATHS) as PathName[]).map((path) => [path, inItsOwnProcess(path)])) as Record<PathName, Runs>;
  /** The median of column `k` of a path's runs, in ms; or, with `over`, of its ratios to column `over` of the same runs. */
  const col = (path: PathName, k: number, over?: number) =>
    median(runs[path].map((run) => (run[k] as number) / (over === undefined ? 1 : (run[over] as number))));
  const rate = (ms: number) => Math.round((COUNT / ms) * 1000).toLocaleString('en-US');
  const line = (text: string) => process.stdout.write(`${text}\n`);
  const j = col('v1', 0);
  const p = col('v1', 1);
  const s = col('sdk', 1);
  line(`bare JSON.parse:     ${j.toFixed(1)} ms  (${rate(j)} lines/s; in the v1 process)`);
  line(`official SDK client: ${s.toFixed(1)} ms  (${rate(s)} updates/s; ${col('sdk', 1, 0).toFixed(2)}x its bare JSON.parse)`);
  line(`our pipeline:        ${p.toFixed(1)} ms  (${rate(p)} updates/s)`);
  const vsJson = col('v1', 1, 0);
  const vsSdk = col('sdk', 1, 0) / vsJson;
  line(
    `pipeline: ${rate(p)} updates/s; ${vsJson.toFixed(2)}x bare JSON.parse (budget <= 2.0x, ${vsJson <= 2 ? 'met' : 'MISSED'}); ` +
      `${vsSdk.toFixed(2)}x faster than the SDK client (budget >= 10x, ${vsSdk >= 10 ? 'met' : 'MISSED'})`,
  );
  const v2 = col('v2', 1);
  line(
    `v2 pipeline:         ${v2.toFixed(1)} ms  (${rate(v2)} updates/s); ${(col('v2', 1, 0) / vsJson).toFixed(2)}x the v1 pipeline on the same stream`,
  );
  const ws = col('ws', 1);
  line(
    `over WebSocket:      ${ws.toFixed(1)} ms  (${rate(ws)} updates/s); ${(col('ws', 1, 0) / vsJson).toFixed(2)}x the stdio pipeline (the loopback ` +
      `server's sending included); ${col('ws', 1, 2).toFixed(2)}x a bare ws client that only parses the same frames (${col('ws', 2).toFixed(1)} ms)`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
