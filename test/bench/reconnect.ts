// `npm run bench:reconnect`: how long from a dropped connection to an agent at a URL until its session is back,
// at the protocol level. The fixture agent runs behind the SDK's own WebSocket server on loopback (a new agent
// process per connection, its sessions kept on disk, as a remote agent keeps them); the client connects, opens a
// session and runs a turn, the server cuts the connection, and the client connects again and reopens the session
// (`session/resume`, as the chat does; `session/load` replays the history too, measured beside it). The chat adds its
// backoff before the first attempt (1 s, src/chats/agentRestarts.ts). Baseline in the same run: the first connect and
// session/new, so the figure is a ratio of what a fresh start costs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../../src/acp/agentClient';
import { serveRemoteFixture } from '../lib/remoteFixture';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 7);
const AGENT = join(__dirname, '..', 'fixtures', 'agent.js');
const clientInfo = { name: 'bench', version: '0' };

async function once(how: 'resume' | 'load', state: string): Promise<{ fresh: number; back: number }> {
  const remote = await serveRemoteFixture(AGENT, 'basic', { env: { ACP_FIXTURE_STATE_DIR: state } });
  try {
    const started = performance.now();
    const first = await AgentClient.start({ url: remote.url }, {}, { clientInfo, terminals: false });
    const session = await first.newSession(tmpdir());
    const fresh = performance.now() - started;
    await session.prompt([{ type: 'text', text: 'remember this' }]);
    const dropped = performance.now();
    const gone = new Promise<void>((resolve) => first.onDidExit(() => resolve()));
    remote.dropConnections();
    await gone;
    const second = await AgentClient.start({ url: remote.url }, {}, { clientInfo, terminals: false });
    await second.reopenSession(session.sessionId, tmpdir(), how);
    const back = performance.now() - dropped;
    await second.dispose();
    return { fresh, back };
  } finally {
    await remote.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), 'acp-bench-reconnect-'));
  try {
    await once('resume', state); // warm up
    for (const how of ['resume', 'load'] as const) {
      const runs: { fresh: number; back: number }[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await once(how, state));
      const back = median(runs.map((r) => r.back));
      const ratio = median(runs.map((r) => r.back / r.fresh));
      process.stdout.write(
        `drop → session back (${how}): ${back.toFixed(1)} ms, ${ratio.toFixed(2)}x a fresh connect and session/new (median of ${RUNS}); the chat waits 1 s before its first attempt\n`,
      );
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
