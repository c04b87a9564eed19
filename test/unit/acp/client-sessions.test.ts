// AgentClient's session lifecycle against the real fixture agent subprocess: session/close on close (bounded, never
// blocking), session/list with its cursors, and what session/new, load and resume are given (MCP servers as far as
// the agent supports them, additional folders only when it accepts them).
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../../../src/acp/agentClient';
import { messageForkMeta, messageForkPoint } from '../../../src/acp/messageFork';
import { MAX_LIST_PAGES } from '../../../src/acp/sessionList';
import type { SessionOptions } from '../../../src/acp/sessionHandle';
import type * as S from '../../../src/acp/schema.gen';
import { waitFor, within } from '../../lib/wait';
import { FIXTURE_AGENT } from '../lib/fixture-agent';
import { RecordingLogger } from '../lib/recording-logger';

type Sent = { method?: string; params?: Record<string, unknown> };

describe('AgentClient sessions', function () {
  this.timeout(15_000);
  const clients: AgentClient[] = [];
  let dir: string;
  let record: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-sessions-'));
    record = join(dir, 'record.jsonl');
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(scenario: string, env: Record<string, string> = {}, closeTimeoutMs?: number) {
    const log = new RecordingLogger();
    const client = await AgentClient.start(
      {
        command: process.execPath,
        args: [FIXTURE_AGENT, '--scenario', scenario],
        env: { ACP_FIXTURE_MAX_LIFETIME_MS: '30000', ACP_FIXTURE_RECORD: record, ...env },
        cwd: dir,
      },
      {},
      { clientInfo: { name: 'tests', version: '0' }, log, killGraceMs: 500, ...(closeTimeoutMs !== undefined ? { closeTimeoutMs } : {}) },
    );
    clients.push(client);
    return { client, log };
  }

  /** What the client sent, as the fixture recorded it. */
  function sent(method: string): Sent[] {
    if (!existsSync(record)) return [];
    return readFileSync(record, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Sent)
      .filter((m) => m.method === method);
  }

  const capabilities = (caps: Record<string, unknown>) => ({ ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(caps) });

  it('refuses a new session that takes the id of one already open, and keeps the open one', async () => {
    const { client } = await start('same-session-id');
    const first = await client.newSession(dir);
    await assert.rejects(client.newSession(dir), /the id of a session already open \("sess-same"\)/);
    assert.deepEqual(client.openSessions, [first]);
    assert.equal(await first.prompt([{ type: 'text', text: 'still mine' }]), 'end_turn');
  });

  it('forks at the agent\u2019s message only where the agent forks at a message, and sends nothing otherwise', async () => {
    const fork = { loadSession: true, sessionCapabilities: { fork: {} } };
    const atMessage = { ...fork, _meta: { jetbrains: { air: { fork: { version: 1, inclusive: true } } } } };
    const { client } = await start('echo', capabilities(atMessage));
    const session = await client.newSession(dir);
    for (const text of ['one', 'two']) await session.prompt([{ type: 'text', text }]);
    const second = session.model.entries.flatMap((e, i) => (e.type === 'message' && e.role === 'user' ? [i] : []))[1] ?? -1;
    assert.equal(session.wholeHistory, true, 'a new session: the model holds all of it');
    const point = messageForkPoint(session.model.entries, second, session.wholeHistory);
    const reply = session.model.entries[second - 1];
    assert.ok(point && reply?.type === 'message' && point.messageId === reply.messageId, 'the point is the reply to "one"');
    const forked = await client.forkSession(session.sessionId, dir, {}, point);
    assert.notEqual(forked.sessionId, session.sessionId);
    assert.equal(forked.wholeHistory, false, 'a fork: what came before is the agent’s alone');
    assert.deepEqual(sent('session/fork')[0]?.params?.['_meta'], messageForkMeta(point));
    assert.equal(await forked.prompt([{ type: 'text', text: 'two, again' }]), 'end_turn');

    const other = await start('echo', capabilities(fork));
    const plain = await other.client.newSession(dir);
    await assert.rejects(other.client.forkSession(plain.sessionId, dir, {}, point), /does not advertise _meta\.jetbrains\.air\.fork/);
    assert.equal(sent('session/fork').length, 1, 'nothing went to the agent that cannot');
  });

  it('counts a nested subagent\u2019s questions against its root session, and forgets it with that session', async () => {
    const { client } = await start('nested-subagents');
    const session = await client.newSession(dir);
    const turn = session.prompt([{ type: 'text', text: 'go' }]);
    // 10 questions in the session and 10 in the grandchild: 16 are held in all, and the grandchild's last 4 declined.
    await waitFor(() => session.model.questionsInTree() === 16, { what: 'the questions to be held' });
    await waitFor(() => (JSON.stringify(session.model.entries).match(/declined grandchild-1/g)?.length ?? 0) === 4, { what: 'four declines' });
    assert.equal(client.accountOf('grandchild-1'), session.sessionId, 'the grandchild counts against the root session');
    await session.cancel();
    assert.equal(await within(turn, 10_000, 'the cancelled turn'), 'cancelled');
    await session.close();
    assert.equal(client.accountOf('grandchild-1'), 'grandchild-1', 'the grandchild went with its root session');
  });

  describe('close', () => {
    it('sends session/close for the closed session only, and the agent keeps serving the other', async () => {
      const { client } = await start('echo');
      const a = await client.newSession(dir);
      const b = await client.newSession(dir);
      await a.close();
      assert.deepEqual(
        sent('session/close').map((m) => m.params?.['sessionId']),
        [a.sessionId],
      );
      assert.deepEqual(client.openSessions, [b]);
      assert.equal(await b.prompt([{ type: 'text', text: 'still here' }]), 'end_turn');
    });

    it('does not send session/close to an agent that does not advertise it', async () => {
      const { client } = await start('echo', capabilities({ sessionCapabilities: {} }));
      const session = await client.newSession(dir);
      await session.close();
      await client.newSession(dir); // a request after the close: everything before it has been recorded
      assert.deepEqual(sent('session/close'), []);
      assert.ok(sent('session/new').length === 2);
    });

    it('closes within the bound when the agent never answers session/close, and logs it', async () => {
      const { client, log } = await start('echo', { ACP_FIXTURE_CLOSE: 'hang' }, 300);
      const session = await client.newSession(dir);
      const started = Date.now();
      await within(session.close(), 3000, 'the close');
      assert.ok(Date.now() - started < 2000, `closing took ${Date.now() - started} ms`);
      assert.deepEqual(client.openSessions, []);
      assert.equal(log.find('session/close got no answer within 300 ms', 'warn').length, 1, log.toString());
    });

    it('forgets the session at once, and stops the process only once session/close is answered or given up on', async () => {
      const { client } = await start('echo', { ACP_FIXTURE_CLOSE: 'hang' }, 400);
      const session = await client.newSession(dir);
      let settled = false;
      const closed = session.close().then(() => (settled = true));
      await waitFor(() => client.openSessions.length === 0, { what: 'the session to be forgotten' });
      assert.equal(settled, false, 'forgotten before the agent answered session/close');
      const started = Date.now();
      await client.dispose();
      assert.ok(Date.now() - started >= 300, `the process was stopped after ${Date.now() - started} ms, before the close was given up on`);
      await within(closed, 1000, 'the close');
      assert.equal(sent('session/close').length, 1);
    });

    it('closes when the agent answers session/close with an error, and logs the error', async () => {
      const { client, log } = await start('echo', { ACP_FIXTURE_CLOSE: 'error' });
      const session = await client.newSession(dir);
      await session.close();
      assert.deepEqual(client.openSessions, []);
      assert.equal(log.find(/session\/close failed: .*fails session\/close on purpose/, 'warn').length, 1, log.toString());
    });

    it('sends no session/close for a session whose load failed', async () => {
      const { client } = await start('echo');
      await assert.rejects(client.reopenSession('sess-unknown', dir, 'load'), /session not found/);
      await client.newSession(dir);
      assert.deepEqual(sent('session/close'), []);
    });
  });

  describe('session/status before a reopen', () => {
    const both = { loadSession: true, sessionCapabilities: { resume: {}, status: {} } };

    it('resumes a session the agent has in memory, loads a saved one, and opens none it does not know', async () => {
      const { client } = await start('echo', { ...capabilities(both), ACP_FIXTURE_STATE_DIR: dir });
      const open = await client.newSession(dir);
      await open.close(); // no session/close advertised: the agent keeps it in memory
      assert.equal(await client.reopenWay(open.sessionId), 'resume');
      assert.equal(await client.reopenWay('sess-stored'), 'load', 'the agent’s stored session is saved, not open');
      assert.equal(await client.reopenWay('sess-nobody-knows'), 'gone');
      assert.deepEqual(
        sent('session/status').map((m) => m.params?.['sessionId']),
        [open.sessionId, 'sess-stored', 'sess-nobody-knows'],
      );
      assert.deepEqual(sent('session/load'), [], 'asking had no side effects');
    });

    it('takes the way the agent can when it can do only one, and asks nothing of an agent without session/status', async () => {
      const { client } = await start('echo', capabilities({ loadSession: true, sessionCapabilities: { status: {} } }));
      const open = await client.newSession(dir);
      await open.close();
      assert.equal(await client.reopenWay(open.sessionId), 'load', 'open, but this agent only loads');
      const { client: plain } = await start('echo', capabilities({ loadSession: true, sessionCapabilities: { resume: {} } }));
      const before = sent('session/status').length;
      assert.equal(await plain.reopenWay('sess-any'), 'load');
      assert.equal(sent('session/status').length, before);
    });
  });

  describe('list', () => {
    it('follows nextCursor through every page', async () => {
      const state = join(dir, 'state');
      const { client } = await start('titled', { ACP_FIXTURE_STATE_DIR: state, ACP_FIXTURE_LIST_PAGE_SIZE: '2' });
      for (const text of ['one', 'two', 'three']) {
        const session = await client.newSession(dir);
        await session.prompt([{ type: 'text', text }]);
      }
      const sessions = await client.listSessions(dir);
      assert.deepEqual(sessions.map((s) => s.title).sort(), ['About one', 'About three', 'About two', 'An earlier conversation']);
      const pages = sent('session/list');
      assert.deepEqual(
        pages.map((m) => m.params?.['cursor'] ?? null),
        [null, 'page-2'],
      );
      assert.ok(pages.every((m) => m.params?.['cwd'] === dir));
    });

    it('stops when the agent gives a cursor it gave before', async () => {
      const { client, log } = await start('echo', { ACP_FIXTURE_LIST_PAGE_SIZE: '1', ACP_FIXTURE_LIST_REPEAT_CURSOR: '1' });
      await client.newSession(dir);
      const sessions = await within(client.listSessions(dir), 5000, 'the listing');
      assert.equal(sent('session/list').length, 2, 'the first page, then the page of the cursor, whose repeat ends it');
      assert.ok(sessions.length <= 2);
      assert.equal(log.find('gave the cursor "again" twice', 'warn').length, 1, log.toString());
    });

    it('stops after a bounded number of pages when the agent always gives a new cursor', async () => {
      const { client, log } = await start('echo', { ACP_FIXTURE_LIST_PAGE_SIZE: '1', ACP_FIXTURE_LIST_ENDLESS: '1' });
      const sessions = await within(client.listSessions(dir), 10_000, 'the listing');
      assert.equal(sent('session/list').length, MAX_LIST_PAGES);
      assert.deepEqual(
        sessions.map((s) => s.sessionId),
        ['sess-stored'],
        'what the pages held',
      );
      assert.equal(log.find(`still had more after ${MAX_LIST_PAGES} pages`, 'warn').length, 1, log.toString());
    });

    it('refuses to list when the agent does not advertise session/list', async () => {
      const { client } = await start('echo', capabilities({ sessionCapabilities: {} }));
      assert.equal(client.capabilities.supports('listSessions'), false);
      await assert.rejects(client.listSessions(dir), /does not support session\/list/);
      assert.deepEqual(sent('session/list'), []);
    });
  });

  describe('session setup', () => {
    const stdio: S.McpServer = {
      name: 'files',
      command: '/usr/bin/mcp-files',
      args: ['--root', '/'],
      env: [{ name: 'TOKEN', value: 'secret-token' }],
    };
    const http: S.McpServer = {
      type: 'http',
      name: 'docs',
      url: 'http://127.0.0.1:9/mcp',
      headers: [{ name: 'Authorization', value: 'Bearer secret-header' }],
    };
    const sse: S.McpServer = { type: 'sse', name: 'events', url: 'http://127.0.0.1:9/sse', headers: [] };
    const options: SessionOptions = { mcpServers: [stdio, http, sse], additionalDirectories: ['/elsewhere/one', '/elsewhere/two'] };

    it('leaves out http and sse servers and additional folders the agent does not advertise, saying which and why', async () => {
      const { client, log } = await start('echo');
      const session = await client.newSession(dir, options);
      const params = sent('session/new')[0]?.params;
      assert.deepEqual(params?.['mcpServers'], [stdio]);
      assert.equal(params?.['additionalDirectories'], undefined);
      assert.deepEqual(session.leftOut, [
        { name: 'docs', transport: 'http' },
        { name: 'events', transport: 'sse' },
      ]);
      assert.equal(log.find('MCP server "docs" left out', 'warn').length, 1);
      assert.ok(!log.toString().includes('secret'), 'no env or header value is logged');
    });

    it('passes every server and the folders to new, load and resume when the agent advertises them', async () => {
      const caps = capabilities({
        loadSession: true,
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { resume: {}, additionalDirectories: {}, close: {} },
      });
      const { client } = await start('echo', caps);
      const session = await client.newSession(dir, options);
      assert.deepEqual(session.leftOut, []);
      await session.close();
      await client.reopenSession(session.sessionId, dir, 'resume', options).catch(() => undefined);
      await client.reopenSession('sess-stored', dir, 'load', options);
      for (const method of ['session/new', 'session/resume', 'session/load']) {
        const params = sent(method)[0]?.params;
        assert.deepEqual(params?.['mcpServers'], [stdio, http, sse], method);
        assert.deepEqual(params?.['additionalDirectories'], ['/elsewhere/one', '/elsewhere/two'], method);
      }
    });

    it('sends an empty list of MCP servers and no folders by default', async () => {
      const { client } = await start('echo');
      await client.newSession(dir);
      const params = sent('session/new')[0]?.params;
      assert.deepEqual(params?.['mcpServers'], []);
      assert.equal('additionalDirectories' in (params ?? {}), false);
    });
  });
  describe('prompt gates', () => {
    it('runs each gate after the message shows and before the prompt goes out, with the message id', async () => {
      const { client } = await start('basic');
      const session = await client.newSession(dir);
      const seen: Array<{ turn: number; shown: boolean; sent: number }> = [];
      session.gatePrompts(async (turn) => {
        seen.push({ turn, shown: session.model.entries.some((e) => e.id === turn), sent: sent('session/prompt').length });
      });
      assert.equal(await within(session.prompt([{ type: 'text', text: 'hi' }]), 10_000, 'the turn'), 'end_turn');
      assert.deepEqual(seen, [{ turn: session.model.entries[0]!.id, shown: true, sent: 0 }]);
      assert.equal(sent('session/prompt').length, 1);
    });

    it('a turn stopped while a gate runs never reaches the agent, and a failing gate does not stop the prompt', async () => {
      const { client, log } = await start('basic');
      const session = await client.newSession(dir);
      let release: () => void = () => {};
      const gate = session.gatePrompts(() => new Promise<void>((resolve) => (release = resolve)));
      const stopped = session.prompt([{ type: 'text', text: 'stop me' }]);
      await waitFor(() => session.model.turn.phase === 'running');
      void session.cancel();
      release();
      assert.equal(await within(stopped, 5000, 'the stopped turn'), 'cancelled');
      assert.equal(sent('session/prompt').length, 0, 'the agent never heard of it');
      gate.dispose();

      session.gatePrompts(() => Promise.reject(new Error('the checkpoint failed')));
      assert.equal(await within(session.prompt([{ type: 'text', text: 'go' }]), 10_000, 'the turn'), 'end_turn');
      assert.ok(
        log.lines.some((l) => l.message.includes('the checkpoint failed')),
        'the failure is logged',
      );
    });
  });
  it('knows who is signed in where the agent advertises auth.status: asked after initialize and each sign-in or out, and told by auth/status_update', async () => {
    const { client } = await start('auth-required', capabilities({ auth: { status: {}, logout: {} } }));
    await waitFor(() => client.auth.status?.state === 'unauthenticated', { what: 'the state asked after initialize' });
    await client.authenticate('fixture-login');
    await waitFor(() => client.auth.status?.state === 'authenticated', { what: 'the state after the sign-in' });
    assert.deepEqual(
      client.auth.status?.accounts.map((a) => [a.label, a.email, a.active]),
      [
        ['Fixture Pro', 'ada@example.com', true],
        ['Fixture API key', undefined, false],
      ],
    );
    await client.logout();
    await waitFor(() => client.auth.status?.state === 'unauthenticated', { what: 'the state after the sign-out' });
    await waitFor(() => sent('auth/status').length === 3, { what: 'auth/status after initialize, authenticate and logout' });

    const { client: other } = await start('echo');
    await other.newSession(dir);
    assert.equal(other.auth.status, undefined, 'an agent that does not advertise auth.status says nothing');
    assert.equal(sent('auth/status').length, 3, 'and is asked nothing');
  });

  it('knows who is signed in from the maintained adapters\u2019 _auth/status_update, which they push unadvertised', async () => {
    const { client } = await start('auth-extension');
    await client.newSession(dir);
    await waitFor(() => client.auth.status?.state === 'unauthenticated', { what: 'kind "none" read as signed out' });
    await client.newSession(dir);
    await waitFor(() => client.auth.status?.state === 'authenticated', { what: 'the account' });
    assert.deepEqual(client.auth.status?.accounts, [{ label: 'ChatGPT Pro', email: 'ada@example.com', active: true }]);
    await client.newSession(dir);
    await waitFor(() => client.auth.status?.accounts[0]?.label !== 'ChatGPT Pro', { what: 'the third status' });
    assert.ok((client.auth.status?.accounts[0]?.label.length ?? 0) <= 201, 'a label the agent controls is bounded');
  });
});
