// AgentClient and Session against the real fixture agent subprocess: start, sessions, turns, and every way a start
// or a turn can fail.
import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentClient, type AgentClientOptions } from '../../../src/acp/agentClient';
import { AgentStartFailure } from '../../../src/acp/startFailure';
import type { HostServices } from '../../../src/acp/clientHandler';
import { AgentExitError, CommandNotFoundError, failureOf, PromptRefusedError, type Failure } from '../../../src/acp/errors';
import { waitFor, within } from '../../lib/wait';
import { FIXTURE_AGENT } from '../lib/fixture-agent';
import { RecordingLogger } from '../lib/recording-logger';

/** A refusal of a prompt, as the fact the host words. */
function refused(error: unknown, expected: Failure): boolean {
  assert.ok(error instanceof PromptRefusedError, `expected a PromptRefusedError, got ${String(error)}`);
  assert.deepEqual(failureOf(error), expected);
  return true;
}

describe('AgentClient', function () {
  this.timeout(15_000);
  const clients: AgentClient[] = [];
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-client-'));
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(
    scenario: string,
    options: { env?: Record<string, string>; services?: HostServices; client?: Partial<AgentClientOptions> } = {},
  ) {
    const log = new RecordingLogger();
    const client = await AgentClient.start(
      {
        command: process.execPath,
        args: [FIXTURE_AGENT, '--scenario', scenario],
        env: { ACP_FIXTURE_MAX_LIFETIME_MS: '30000', ...options.env },
        cwd: dir,
      },
      options.services ?? {},
      { clientInfo: { name: 'tests', version: '0' }, log, killGraceMs: 500, ...options.client },
    );
    clients.push(client);
    return { client, log };
  }

  it('starts, initializes, opens a session and streams a turn into its model', async () => {
    const { client } = await start('echo');
    assert.equal(client.initialized.protocolVersion, 1);
    const session = await client.newSession(dir);
    assert.deepEqual(client.openSessions, [session]);
    const stop = await session.prompt([{ type: 'text', text: 'hi' }]);
    assert.equal(stop, 'end_turn');
    const texts = session.model.entries.map((e) =>
      e.type === 'message' ? `${e.role}:${e.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}` : e.type,
    );
    assert.deepEqual(texts, ['user:hi', 'agent:You said: hi']);
    assert.deepEqual(session.model.turn, { phase: 'idle', stopReason: 'end_turn' });
  });

  it('applies commands, the title, terminal content and config options to the session model', async () => {
    const { client } = await start('session-info');
    const session = await client.newSession(dir);
    await session.prompt([{ type: 'text', text: 'go' }]);
    const model = session.model;
    assert.deepEqual(
      model.commands.map((c) => c.name),
      ['review', 'init'],
    );
    assert.equal(model.title, 'Fixture session title');
    assert.deepEqual(model.toolCall('call-term')?.content, [{ type: 'terminal', terminalId: 'term-agent-1' }]);
    assert.equal(model.toolCall('call-term')?.status, 'completed');
    assert.equal(model.configOptions[0]?.currentValue, 'fast');
  });

  it('routes updates by session, so two sessions never see each other\u2019s turns', async () => {
    const { client } = await start('echo');
    const a = await client.newSession(dir);
    const b = await client.newSession(dir);
    await Promise.all([a.prompt([{ type: 'text', text: 'one' }]), b.prompt([{ type: 'text', text: 'two' }])]);
    const agentText = (s: typeof a) =>
      s.model.entries
        .flatMap((e) => (e.type === 'message' && e.role === 'agent' ? e.content : []))
        .map((c) => (c.type === 'text' ? c.text : ''))
        .join('');
    assert.equal(agentText(a), 'You said: one');
    assert.equal(agentText(b), 'You said: two');
  });

  it('advertises fs.readTextFile only when the host serves it, and serves it for the agent', async () => {
    writeFileSync(join(dir, 'input.txt'), 'from the host');
    const reads: string[] = [];
    const { client } = await start('fs', {
      services: {
        async readTextFile(params) {
          reads.push(params.path);
          return { content: 'served by the host' };
        },
      },
    });
    assert.deepEqual(client.process.connection.clientCapabilities.fs, { readTextFile: true, writeTextFile: false });
    const session = await client.newSession(dir);
    await session.prompt([{ type: 'text', text: 'go' }]);
    assert.deepEqual(reads, [join(dir, 'input.txt')]);
    const said = session.model.entries
      .flatMap((e) => (e.type === 'message' && e.role === 'agent' ? e.content : []))
      .map((c) => (c.type === 'text' ? c.text : ''))
      .join('');
    assert.match(said, /^read:served by the host\n/);
    assert.match(said, /write:error:-32601:/, 'writes are not advertised, so the agent gets method-not-found');
  });

  it('gives the host, with each read, the files the chat\u2019s messages linked to (the user meant the agent to read them)', async () => {
    const scopes: (readonly string[])[] = [];
    const { client } = await start('read-links', {
      services: {
        async readTextFile(_params, _signal, scope) {
          scopes.push([...(scope.linked ?? [])]);
          return { content: 'linked text' };
        },
      },
    });
    const session = await client.newSession(dir);
    const linked = join(realpathSync(tmpdir()), 'acp-linked-export.md');
    writeFileSync(linked, '# An export');
    await session.prompt([
      { type: 'text', text: 'read this' },
      { type: 'resource_link', uri: pathToFileURL(linked).href, name: 'export.md' },
      { type: 'resource_link', uri: 'https://example.com/page', name: 'a page' },
    ]);
    assert.deepEqual(scopes, [[linked]], 'the file, not the web page');
    assert.deepEqual([...session.linked], [linked]);
  });

  it('answers a pending permission "cancelled" on cancel, and the turn ends cancelled', async () => {
    const { client } = await start('permission');
    const session = await client.newSession(dir);
    const turn = session.prompt([{ type: 'text', text: 'go' }]);
    await waitFor(() => session.model.permissions.length === 1, { what: 'the permission request' });
    await session.cancel();
    assert.equal(await within(turn, 5000, 'the turn'), 'cancelled');
  });

  it('refuses a second prompt while a turn runs, without touching the model', async () => {
    const { client } = await start('slow');
    const session = await client.newSession(dir);
    const turn = session.prompt([{ type: 'text', text: 'first' }]);
    await waitFor(() => session.model.entries.length === 2, { what: 'the agent to start answering' });
    await assert.rejects(session.prompt([{ type: 'text', text: 'second' }]), (e) => refused(e, { kind: 'promptRefused', reason: 'busy' }));
    assert.equal(session.model.entries.length, 2);
    await session.cancel();
    assert.equal(await within(turn, 5000, 'the turn'), 'cancelled');
  });

  it('ends the running turn with the exit, and refuses prompts after the agent crashed', async () => {
    const { client } = await start('crash');
    const session = await client.newSession(dir);
    const exited = new Promise((resolve) => client.onDidExit(resolve));
    await assert.rejects(session.prompt([{ type: 'text', text: 'go' }]), /exited with code 3/);
    const end = await within(exited, 5000, 'the exit');
    assert.ok(end instanceof AgentExitError && end.code === 3);
    assert.ok(session.ended instanceof AgentExitError);
    assert.match(session.model.turn.phase === 'idle' ? (session.model.turn.error ?? '') : '', /exited with code 3: giving up/);
    // A fact the host words, with the exit it comes from.
    await assert.rejects(session.prompt([{ type: 'text', text: 'again' }]), (e) =>
      refused(e, { kind: 'promptRefused', reason: 'agentEnded', cause: { kind: 'exited', code: 3, signal: null, lastLine: 'giving up' } }),
    );
  });

  it('forgets a closed session and stops nothing else', async () => {
    const { client } = await start('basic');
    const a = await client.newSession(dir);
    const b = await client.newSession(dir);
    let changes = 0;
    client.onDidChangeSessions(() => changes++);
    await a.close();
    assert.deepEqual(client.openSessions, [b]);
    assert.equal(changes, 1);
    assert.equal(client.hasExited, false);
    await assert.rejects(a.prompt([{ type: 'text', text: 'x' }]), (e) => refused(e, { kind: 'promptRefused', reason: 'closed' }));
  });

  describe('start failures, each in one sentence', () => {
    const startFailure = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => assert.fail('the start should fail'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof AgentStartFailure, String(error));
      return error;
    };

    it('a command that does not exist', async () => {
      const error = await startFailure(AgentClient.start({ command: 'acp-no-such-command-xyz' }, {}, { clientInfo: { name: 't', version: '0' } }));
      assert.equal(error.message, "command 'acp-no-such-command-xyz' was not found; install it or set the path");
      assert.ok(error.cause instanceof CommandNotFoundError);
    });

    it('an agent that exits before answering initialize: the exit code and its last stderr line', async () => {
      const error = await startFailure(
        AgentClient.start(
          { command: process.execPath, args: [FIXTURE_AGENT, '--scenario', 'no-such-scenario'] },
          {},
          { clientInfo: { name: 't', version: '0' } },
        ),
      );
      assert.match(error.message, /exited with code 2: fixture: unknown scenario "no-such-scenario"/);
      assert.ok(error.stderrTail.some((l) => l.includes('unknown scenario')));
    });

    it('an agent that never answers initialize, within the bound', async () => {
      const error = await startFailure(start('hang-init', { client: { initializeTimeoutMs: 300 } }));
      assert.equal(error.message, 'the agent did not answer initialize within 0.3 s');
    });

    it('an agent that speaks another protocol version', async () => {
      const error = await startFailure(start('basic', { env: { ACP_FIXTURE_PROTOCOL_VERSION: '2' } }));
      assert.match(error.message, /speaks ACP version 2, but this extension supports version 1/);
    });
  });
});
