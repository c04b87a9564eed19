// AgentProcess against the fixture agent: a real subprocess that starts, streams, crashes, floods stderr, hangs,
// ignores SIGTERM and spawns children of its own. No test leaves a process behind.
import * as assert from 'node:assert/strict';
import { AgentExitError, AgentStartError, CommandNotFoundError, ConnectionClosedError } from '../../../src/acp/errors';
import { AgentProcess } from '../../../src/acp/process';
import { FixtureAgents, isRunning, openSession } from '../lib/fixture-agent';
import { RecordingLogger } from '../lib/recording-logger';
import { testClient } from '../lib/test-client';
import { waitFor, within } from '../../lib/wait';

describe('AgentProcess', () => {
  const fixtures = new FixtureAgents();
  /** Processes the agents spawned themselves: killed after the test if the agent's disposal missed them. */
  const strays: number[] = [];
  afterEach(async () => {
    await fixtures.disposeAll();
    for (const pid of strays.splice(0)) {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('runs an agent: initialize, a new session, a prompt whose chunks arrive; dispose ends it as expected', async () => {
    const f = fixtures.start('basic');
    assert.equal(typeof f.agent.pid, 'number');
    const sessionId = await openSession(f);
    const result = await f.agent.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(f.client.text(), 'Hello');
    assert.equal(f.agent.hasExited, false);

    await within(f.agent.dispose(), 5000, 'dispose');
    const end = await f.agent.exited;
    assert.ok(end instanceof AgentExitError);
    assert.equal(end.expected, true, 'we stopped it: not a crash');
    assert.equal(f.agent.hasExited, true);
    assert.equal(f.agent.connection.isClosed, true);
    assert.equal(isRunning(f.agent.pid!), false);
  });

  it('an agent that exits mid-prompt: the prompt rejects with ConnectionClosedError carrying exit code 3 and the stderr tail', async () => {
    const f = fixtures.start('crash');
    const sessionId = await openSession(f);
    const prompt = f.agent.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'go' }] });
    const error = await within(
      prompt.then(
        () => assert.fail('the prompt should not succeed'),
        (e: unknown) => e,
      ),
      5000,
      'the prompt to fail',
    );
    assert.ok(error instanceof ConnectionClosedError, String(error));
    const reason = error.reason;
    assert.ok(reason instanceof AgentExitError, String(reason));
    assert.equal(reason.code, 3);
    assert.equal(reason.signal, null);
    assert.equal(reason.expected, false);
    assert.deepEqual(reason.stderrTail.slice(-3), ['fatal: lost the connection to the model', 'retrying failed after 3 attempts', 'giving up']);
    assert.equal(error.message, 'the connection to the agent closed: the agent exited with code 3: giving up');
    assert.equal(await f.agent.exited, reason, '`exited` settles with the same reason');
    assert.equal(f.client.text(), 'working', 'what came before the crash was delivered');
    assert.equal(f.log.find('the agent exited with code 3', 'warn').length, 1, f.log.toString());
  });

  it('turns stderr into log lines, and keeps only the last 200 for error messages', async () => {
    const f = fixtures.start('stderr-flood');
    await waitFor(() => f.log.find('stderr: stderr line 250').length === 1, { what: 'the last stderr line in the log' });
    const logged = f.log.find(/^stderr: stderr line \d+$/, 'info');
    assert.equal(logged.length, 250, 'every line is logged');
    const tail = f.agent.stderrTail();
    assert.equal(tail.length, 200);
    assert.equal(tail[0], 'stderr line 51');
    assert.equal(tail.at(-1), 'stderr line 250');
  });

  it('a missing command: `exited` settles with CommandNotFoundError, and what waited rejects with it as the reason', async () => {
    const log = new RecordingLogger();
    const agent = fixtures.track(
      AgentProcess.spawn({ command: 'xyz-acp-missing-command' }, testClient().handler, { clientInfo: { name: 't', version: '1' }, log }, { log }),
    );
    const init = agent.connection.initialize();
    const end = await within(agent.exited, 5000, '`exited`');
    assert.ok(end instanceof CommandNotFoundError);
    assert.equal(end.message, "command 'xyz-acp-missing-command' was not found; install it or set the path");
    await assert.rejects(init, (error: unknown) => error instanceof ConnectionClosedError && error.reason === end);
    assert.equal(agent.hasExited, true);
    await within(agent.dispose(), 1000, 'dispose of an agent that never started');
  });

  it('a missing working folder is reported as such, not as a missing command', async () => {
    const log = new RecordingLogger();
    const cwd = '/nonexistent/acp-test-folder';
    const agent = fixtures.track(
      AgentProcess.spawn(
        { command: process.execPath, args: ['-e', ''], cwd },
        testClient().handler,
        { clientInfo: { name: 't', version: '1' }, log },
        { log },
      ),
    );
    const end = await within(agent.exited, 5000, '`exited`');
    assert.ok(end instanceof AgentStartError, String(end));
    assert.equal(end.message, `the agent could not start: the working folder ${cwd} does not exist`);
  });

  it('dispose sends SIGTERM, then SIGKILL after the grace period to an agent that ignores SIGTERM', async () => {
    const killGraceMs = 300;
    const f = fixtures.start('ignore-sigterm', { process: { killGraceMs } });
    await f.agent.connection.initialize(); // the agent is up, its SIGTERM handler installed
    const pid = f.agent.pid!;
    const started = Date.now();
    await within(f.agent.dispose(), 5000, 'dispose');
    const elapsed = Date.now() - started;
    const end = await f.agent.exited;
    assert.ok(end instanceof AgentExitError);
    assert.equal(end.signal, 'SIGKILL');
    assert.equal(end.expected, true);
    assert.ok(elapsed >= killGraceMs - 50, `SIGKILL came after ${elapsed} ms, before the ${killGraceMs} ms grace`);
    assert.equal(f.log.find('stderr: ignoring SIGTERM').length, 1, 'SIGTERM came first');
    await waitFor(() => !isRunning(pid), { what: `the agent (pid ${pid}) to be gone` });
  });

  it('dispose ends the whole process group: a child the agent spawned is gone afterwards', async () => {
    const f = fixtures.start('spawn-child');
    const line = await waitFor(() => f.log.find(/stderr: child-pid:\d+/)[0], { what: 'the agent to report its child' });
    const child = Number(/child-pid:(\d+)/.exec(line.message)?.[1]);
    strays.push(child);
    assert.equal(isRunning(child), true, 'the child runs while the agent does');
    await openSession(f);

    await within(f.agent.dispose(), 5000, 'dispose');
    await waitFor(() => !isRunning(child), { timeoutMs: 5000, what: `the agent's child (pid ${child}) to be gone` });
  });

  it('hang-init: initialize with an AbortSignal timeout rejects, and nothing hangs', async () => {
    const f = fixtures.start('hang-init');
    const init = f.agent.connection.initialize({}, AbortSignal.timeout(300));
    await assert.rejects(within(init, 5000, 'initialize to give up'), (error: unknown) => {
      assert.ok(error instanceof ConnectionClosedError);
      assert.equal(error.reason?.name, 'TimeoutError');
      return true;
    });
    assert.equal(f.agent.connection.isClosed, true);
    await waitFor(() => f.recorded().some((m) => m.method === '$/cancel_request' && m.params.requestId === 0), {
      what: 'the agent to receive $/cancel_request for initialize',
    });
    await within(f.agent.dispose(), 5000, 'dispose');
    assert.equal(f.agent.hasExited, true);
  });
});
