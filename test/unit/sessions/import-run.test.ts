// Import Sessions' run against the real fixture agent subprocess, with a clock the test moves: sessions outside the
// workspace folders are never offered (an agent that ignores the filter lists them), at most 100 are replayed in one
// run, a replay is given up after 60 s of the clock and stops the run, and a kept session is never dated later than
// now.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../../../src/acp/agentClient';
import type * as S from '../../../src/acp/schema.gen';
import { TranscriptStore } from '../../../src/history/transcripts';
import { importPicked, LOAD_TIMEOUT_MS, MAX_IMPORT, sessionsInWorkspace, type ImportClock, type ImportCounts } from '../../../src/sessions/importRun';
import { waitFor, within } from '../../lib/wait';
import { FIXTURE_AGENT } from '../lib/fixture-agent';
import { RecordingLogger } from '../lib/recording-logger';

const NOW = new Date('2026-06-01T12:00:00.000Z');

/** A clock that moves only when the test says so. */
class TestClock implements ImportClock {
  private time = NOW.getTime();
  private timers: { at: number; fire: () => void }[] = [];
  now(): Date {
    return new Date(this.time);
  }
  after(ms: number, fire: () => void): () => void {
    const timer = { at: this.time + ms, fire };
    this.timers.push(timer);
    return () => (this.timers = this.timers.filter((t) => t !== timer));
  }
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.fire();
  }
  get pending(): number {
    return this.timers.length;
  }
}

describe('Import Sessions run', function () {
  this.timeout(30_000);
  let dir: string;
  let state: string;
  let record: string;
  let roots: string[];
  const clients: AgentClient[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-import-run-'));
    state = join(dir, 'agent-state');
    record = join(dir, 'record.jsonl');
    roots = [join(dir, 'app'), join(dir, 'lib')];
    for (const root of roots) mkdirSync(root, { recursive: true });
    mkdirSync(state);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A session the agent kept from an earlier run, with one exchange to replay. */
  function saved(sessionId: string, cwd: string, updatedAt: string): void {
    const history = [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `question of ${sessionId}` } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer of ${sessionId}` } },
    ];
    writeFileSync(join(state, `${sessionId}.json`), JSON.stringify({ sessionId, cwd, title: `Title ${sessionId}`, updatedAt, history }));
  }

  async function start(env: Record<string, string> = {}): Promise<AgentClient> {
    const log = new RecordingLogger();
    const client = await AgentClient.start(
      {
        command: process.execPath,
        args: [FIXTURE_AGENT, '--scenario', 'echo'],
        env: {
          ACP_FIXTURE_MAX_LIFETIME_MS: '30000',
          ACP_FIXTURE_RECORD: record,
          ACP_FIXTURE_STATE_DIR: state,
          ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ loadSession: true, sessionCapabilities: { list: {}, close: {} } }),
          ...env,
        },
        cwd: dir,
      },
      {},
      { clientInfo: { name: 'tests', version: '0' }, log, killGraceMs: 500 },
    );
    clients.push(client);
    return client;
  }

  function sent(): { method?: string; params?: { sessionId?: string } }[] {
    return readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { method?: string; params?: { sessionId?: string } });
  }

  function loads(): string[] {
    return sent()
      .filter((m) => m.method === 'session/load')
      .map((m) => String(m.params?.sessionId));
  }

  function run(client: AgentClient, store: TranscriptStore, clock: TestClock, cancel = new AbortController()) {
    return (picked: readonly S.SessionInfo[]): Promise<ImportCounts> =>
      importPicked(picked, { client, agentName: 'Fixture', store, log: new RecordingLogger(), clock, cancel: cancel.signal, showing: () => false });
  }

  it('offers only the sessions inside the workspace folders, each once, newest first, from an agent that ignores the filter', async () => {
    saved('in-app', roots[0]!, '2026-03-01T00:00:00Z');
    saved('in-lib-sub', join(roots[1]!, 'pkg'), '2026-04-01T00:00:00Z');
    saved('outside', join(dir, 'elsewhere'), '2026-05-01T00:00:00Z');
    saved('beside', `${roots[0]!}-old`, '2026-05-02T00:00:00Z'); // a sibling whose name starts like a root
    const client = await start({ ACP_FIXTURE_LIST_ANY_CWD: '1' });
    const listed = await sessionsInWorkspace(client, roots);
    // Asked once per folder, and the agent answered every session each time: each is offered once.
    assert.deepEqual(
      listed.map((s) => s.sessionId),
      ['in-lib-sub', 'in-app'],
    );
  });

  it('replays at most 100 sessions in one run and says how many are left for the next', async () => {
    const count = MAX_IMPORT + 20;
    for (let i = 0; i < count; i++)
      saved(
        `s-${String(i).padStart(3, '0')}`,
        roots[0]!,
        `2026-01-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
      );
    const client = await start();
    const listed = await sessionsInWorkspace(client, roots);
    assert.equal(listed.filter((s) => s.sessionId.startsWith('s-')).length, count);
    const store = new TranscriptStore(join(dir, 'history'), new RecordingLogger());
    const picked = listed.filter((s) => s.sessionId.startsWith('s-'));
    const counts = await run(client, store, new TestClock())(picked);
    assert.equal(counts.imported, MAX_IMPORT);
    assert.equal(counts.left, 20);
    assert.equal(counts.notTried, 0);
    assert.deepEqual(
      loads(),
      picked.slice(0, MAX_IMPORT).map((s) => s.sessionId),
      'the first 100 picked were replayed, and no other',
    );
    assert.equal((await store.list()).length, MAX_IMPORT);
  });

  it('dates a kept session no later than now: a future date, or one that is not a date, becomes now', async () => {
    saved('future', roots[0]!, '2099-01-01T00:00:00Z');
    saved('garbled', roots[0]!, 'the day after tomorrow');
    saved('past', roots[0]!, '2026-02-03T04:05:06.000Z');
    const client = await start();
    const listed = (await sessionsInWorkspace(client, roots)).filter((s) => s.sessionId !== 'sess-stored');
    const store = new TranscriptStore(join(dir, 'history'), new RecordingLogger());
    const counts = await run(client, store, new TestClock())(listed);
    assert.equal(counts.imported, 3);
    const dates = new Map((await store.list()).map((s) => [s.sessionId, s.updatedAt]));
    assert.equal(dates.get('future'), NOW.toISOString());
    assert.equal(dates.get('garbled'), NOW.toISOString());
    assert.equal(dates.get('past'), '2026-02-03T04:05:06.000Z');
  });

  it('gives a replay up after 60 s, keeps nothing of it, and tries no other session of that run', async () => {
    saved('slow', roots[0]!, '2026-03-02T00:00:00Z');
    saved('next', roots[0]!, '2026-03-01T00:00:00Z');
    const client = await start({ ACP_FIXTURE_LOAD_HOLD: '1', ACP_FIXTURE_RELEASE: join(dir, 'release') });
    const listed = (await sessionsInWorkspace(client, roots)).filter((s) => s.sessionId !== 'sess-stored');
    assert.deepEqual(
      listed.map((s) => s.sessionId),
      ['slow', 'next'],
    );
    const store = new TranscriptStore(join(dir, 'history'), new RecordingLogger());
    const clock = new TestClock();
    let counts: ImportCounts | undefined;
    const running = run(client, store, clock)(listed).then((c) => (counts = c));
    await waitFor(() => loads().length === 1 && clock.pending === 1, { what: 'the first replay to be asked for, with its deadline set' });
    clock.advance(LOAD_TIMEOUT_MS - 1);
    // The agent still holds the replay: nothing has ended a millisecond before the deadline.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(counts, undefined, 'not given up before 60 s');
    clock.advance(1);
    const result = await within(running, 10_000, 'the run to end once the replay was given up');
    assert.equal(result.imported, 0);
    assert.deepEqual(result.failures, [{ kind: 'timedOut', title: 'Title slow' }]);
    assert.equal(result.notTried, 1, 'the run stops: "next" is not tried');
    assert.deepEqual(await store.list(), [], 'nothing of it is kept');
    assert.deepEqual(loads(), ['slow']);
    // The agent is told that the replay is no longer wanted.
    await waitFor(() => sent().some((m) => m.method === '$/cancel_request'), { what: 'the replay to be cancelled at the agent' });
  });
});
