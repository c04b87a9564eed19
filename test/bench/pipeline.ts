// `npm run bench`: the cost of the protocol pipeline on a stream of 100k mixed `session/update` lines.
//
// Ours: bytes through a real stream → NDJSON framing → vscode-jsonrpc → validation → the session model.
// Baselines, measured in the same run on the same bytes:
//   - bare JSON.parse of the same lines (already split): the floor;
//   - the official SDK's client (@agentclientprotocol/sdk) over a real stream pair, applying to the same model.
// Budget: at most 2.0× bare JSON.parse, and at least 10× faster than the SDK. Each ratio is the median of the ratios
// of runs measured side by side, so that a slow moment of the machine weighs on both sides of a ratio alike.
// Beside it, the same stream as ACP v2 says it, through a connection that negotiated v2: its time as a ratio of v1's;
// and the same lines as WebSocket text frames from a loopback server, as an agent at a URL sends them.
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

const lines = updateLines(COUNT);
const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
const chunksOf = (data: Buffer) => Array.from({ length: Math.ceil(data.length / CHUNK) }, (_, i) => data.subarray(i * CHUNK, (i + 1) * CHUNK));
const chunks = chunksOf(bytes);
const chunksV2 = chunksOf(Buffer.from(`${updateLinesV2(COUNT).join('\n')}\n`, 'utf8'));

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

async function main(): Promise<void> {
  process.stdout.write(`${COUNT} session/update lines, ${(bytes.length / 1e6).toFixed(1)} MB, ${RUNS} runs each (median), acp.trace ${TRACE}\n`);
  // Warm up every path once so the JIT has seen them.
  bareJsonParse();
  await ours();
  await ours(2);
  await oursOverWebSocket(lines);
  await bareWebSocket(lines);
  await officialSdk();
  const json: number[] = [];
  const pipeline: number[] = [];
  const pipelineV2: number[] = [];
  const overWs: number[] = [];
  const bareWs: number[] = [];
  const sdkRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    settleHeap();
    json.push(bareJsonParse());
    settleHeap();
    pipeline.push(await ours());
    settleHeap();
    pipelineV2.push(await ours(2));
    settleHeap();
    overWs.push(await oursOverWebSocket(lines));
    settleHeap();
    bareWs.push(await bareWebSocket(lines));
    settleHeap();
    sdkRuns.push(await officialSdk());
  }
  const j = median(json);
  const p = median(pipeline);
  const s = median(sdkRuns);
  const rate = (ms: number) => Math.round((COUNT / ms) * 1000).toLocaleString('en-US');
  process.stdout.write(`bare JSON.parse:     ${j.toFixed(1)} ms  (${rate(j)} lines/s)\n`);
  process.stdout.write(`official SDK client: ${s.toFixed(1)} ms  (${rate(s)} updates/s)\n`);
  process.stdout.write(`our pipeline:        ${p.toFixed(1)} ms  (${rate(p)} updates/s)\n`);
  const vsJson = median(pipeline.map((ms, i) => ms / (json[i] as number)));
  const vsSdk = median(sdkRuns.map((ms, i) => ms / (pipeline[i] as number)));
  process.stdout.write(
    `pipeline: ${rate(p)} updates/s; ${vsJson.toFixed(2)}x bare JSON.parse (budget <= 2.0x, ${vsJson <= 2 ? 'met' : 'MISSED'}); ` +
      `${vsSdk.toFixed(2)}x faster than the SDK client (budget >= 10x, ${vsSdk >= 10 ? 'met' : 'MISSED'})\n`,
  );
  const v2 = median(pipelineV2);
  const v2VsV1 = median(pipelineV2.map((ms, i) => ms / (pipeline[i] as number)));
  process.stdout.write(
    `v2 pipeline:         ${v2.toFixed(1)} ms  (${rate(v2)} updates/s); ${v2VsV1.toFixed(2)}x the v1 pipeline on the same stream\n`,
  );
  const ws = median(overWs);
  const wsVsStdio = median(overWs.map((ms, i) => ms / (pipeline[i] as number)));
  const wsVsBare = median(overWs.map((ms, i) => ms / (bareWs[i] as number)));
  process.stdout.write(
    `over WebSocket:      ${ws.toFixed(1)} ms  (${rate(ws)} updates/s); ${wsVsStdio.toFixed(2)}x the stdio pipeline (the loopback ` +
      `server's sending included); ${wsVsBare.toFixed(2)}x a bare ws client that only parses the same frames (${median(bareWs).toFixed(1)} ms)\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
