// Runs the fixture agent (test/fixtures/agent.ts, built to out/test/fixtures/agent.js) as a real subprocess through
// AgentProcess, and cleans up after every test: each spawned process is disposed and its temp directory removed.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClientHandler } from '../../../src/acp/inbound';
import { AgentProcess, type AgentProcessOptions } from '../../../src/acp/process';
import { RecordingLogger } from './recording-logger';
import { testClient, type TestClient } from './test-client';

/** Tests are bundled to out/test/unit/<folder>/*.test.js; the fixture to out/test/fixtures/agent.js. */
export const FIXTURE_AGENT = resolve(outTestDir(__dirname), 'fixtures', 'agent.js');

/** The `out/test` folder above a bundled test, wherever it sits below it. */
function outTestDir(from: string): string {
  for (let dir = from; ; dir = resolve(dir, '..')) {
    if (existsSync(join(dir, 'fixtures', 'agent.js')) || resolve(dir, '..') === dir) return dir;
  }
}

export interface StartOptions {
  /** Extra environment for the agent (ACP_FIXTURE_PROTOCOL_VERSION, ACP_FIXTURE_AGENT_CAPABILITIES...). */
  readonly env?: Record<string, string>;
  /** Handler methods to add or replace on the recording test client. */
  readonly handler?: Partial<ClientHandler>;
  readonly process?: AgentProcessOptions;
}

export interface RunningFixture {
  readonly agent: AgentProcess;
  readonly client: TestClient;
  readonly log: RecordingLogger;
  /** A fresh temp directory, used as the agent's cwd and for the record file. */
  readonly dir: string;
  /** Every message the client sent, as the agent received it. */
  recorded(): Record<string, any>[];
}

export class FixtureAgents {
  private readonly running: AgentProcess[] = [];
  private readonly dirs: string[] = [];

  start(scenario: string, options: StartOptions = {}): RunningFixture {
    if (!existsSync(FIXTURE_AGENT)) throw new Error(`${FIXTURE_AGENT} is missing: run \`node esbuild.mjs --tests\` first`);
    const dir = mkdtempSync(join(tmpdir(), 'acp-fixture-'));
    this.dirs.push(dir);
    const record = join(dir, 'record.jsonl');
    const log = new RecordingLogger();
    const client = testClient(options.handler);
    const agent = AgentProcess.spawn(
      {
        command: process.execPath,
        args: [FIXTURE_AGENT, '--scenario', scenario],
        env: { ACP_FIXTURE_RECORD: record, ACP_FIXTURE_MAX_LIFETIME_MS: '60000', ...options.env },
        cwd: dir,
      },
      client.handler,
      { clientInfo: { name: 'acp-client-tests', version: '0.0.1' }, log },
      { log, killGraceMs: 1000, ...options.process },
    );
    this.track(agent);
    return {
      agent,
      client,
      log,
      dir,
      recorded: () =>
        existsSync(record)
          ? readFileSync(record, 'utf8')
              .split('\n')
              .filter((line) => line !== '')
              .map((line) => JSON.parse(line) as Record<string, any>)
          : [],
    };
  }

  /** Disposes `agent` with the others. */
  track<T extends AgentProcess>(agent: T): T {
    this.running.push(agent);
    return agent;
  }

  /** For afterEach: no process and no temp directory outlives its test. */
  async disposeAll(): Promise<void> {
    const running = this.running.splice(0);
    await Promise.all(running.map((agent) => agent.dispose()));
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** initialize + session/new: the usual start of every conversation. Returns the session id. */
export async function openSession(fixture: RunningFixture): Promise<string> {
  await fixture.agent.connection.initialize();
  const { sessionId } = await fixture.agent.connection.newSession({ cwd: fixture.dir, mcpServers: [] });
  return sessionId;
}

/** True while `pid` is a running process. A zombie (dead, not yet reaped by its new parent) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is all we know
  }
}
