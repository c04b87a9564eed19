// AcpClientConnection, from the agent's side of the wire: first in memory, where the test plays the agent line by
// line, then against the fixture agent, a real subprocess that shares no code with the client.
import * as assert from 'node:assert/strict';
import type { ConnectionOptions } from '../../../src/acp/connection';
import type { ClientHandler } from '../../../src/acp/inbound';
import { AcpError, ConnectionClosedError, ErrorCodes, NotSupportedError, ProtocolVersionError } from '../../../src/acp/errors';
import type * as S from '../../../src/acp/schema.gen';
import { FixtureAgents, openSession } from '../lib/fixture-agent';
import { testClient, type TestClient } from '../lib/test-client';
import { waitFor, within } from '../../lib/wait';
import { WireAgent, type Json } from '../lib/wire-agent';

const TEXT = (text: string): S.ContentBlock => ({ type: 'text', text });
const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const line = (message: Json) => `${JSON.stringify(message)}\n`;
const UUID = '6f1c2b9e-3d4a-4c5b-9e8f-0a1b2c3d4e5f';

const terminalHandlers = (): Partial<ClientHandler> => ({
  createTerminal: async () => ({ terminalId: 'term-1' }),
  terminalOutput: async () => ({ output: 'hi\n', truncated: false, exitStatus: { exitCode: 0 } }),
  waitForTerminalExit: async () => ({ exitCode: 0 }),
  killTerminal: async () => ({}),
  releaseTerminal: async () => ({}),
});

/** A permission handler that never answers by itself: only cancellation ends it. */
function waitingPermission() {
  const state: { calls: number; signal?: AbortSignal } = { calls: 0 };
  const requestPermission: ClientHandler['requestPermission'] = (_params, signal) => {
    state.calls++;
    state.signal = signal;
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  return { state, requestPermission };
}

function settledFlag(promise: Promise<unknown>): { settled: boolean } {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
}

describe('AcpClientConnection', () => {
  describe('in memory, the test playing the agent', () => {
    const wires: WireAgent[] = [];
    function setup(extra: Partial<ClientHandler> = {}, options: Partial<ConnectionOptions> = {}): { agent: WireAgent; client: TestClient } {
      const client = testClient(extra);
      const agent = new WireAgent(client.handler, options);
      wires.push(agent);
      return { agent, client };
    }
    afterEach(() => {
      for (const w of wires.splice(0)) w.dispose();
    });

    describe('initialize', () => {
      it('sends protocol version 1, clientInfo, and no fs or terminal capability when there are no handlers for them', async () => {
        const { agent } = setup();
        const done = agent.connection.initialize();
        const request = await agent.expectRequest('initialize');
        assert.equal(request.id, 0, 'the first request id is 0');
        assert.equal(request.params.protocolVersion, 1);
        assert.deepEqual(request.params.clientInfo, { name: 'acp-client-tests', version: '0.0.1' });
        assert.deepEqual(request.params.clientCapabilities.fs, { readTextFile: false, writeTextFile: false });
        assert.equal(request.params.clientCapabilities.terminal, false);
        agent.reply(0, { protocolVersion: 1, agentCapabilities: { loadSession: true }, agentInfo: { name: 'agent', version: '2.0' } });
        const result = await done;
        assert.equal(result.protocolVersion, 1);
        assert.equal(agent.connection.agent?.capabilities.loadSession, true);
        assert.equal(agent.connection.agent?.info?.name, 'agent');
      });

      it('advertises fs per handler, terminal only with all five terminal handlers, and extra capabilities as given', async () => {
        const { agent } = setup({ readTextFile: async () => ({ content: '' }) }, { capabilities: { auth: { terminal: true } } });
        const caps = (await agent.initialize()).params.clientCapabilities;
        assert.deepEqual(caps.fs, { readTextFile: true, writeTextFile: false });
        assert.equal(caps.terminal, false);
        assert.deepEqual(caps.auth, { terminal: true });

        const { killTerminal: _left, ...four } = terminalHandlers();
        const partial = setup(four);
        assert.equal((await partial.agent.initialize()).params.clientCapabilities.terminal, false);
        const refused = await partial.agent.request(0, 'terminal/create', { sessionId: 's', command: 'ls' });
        assert.equal(refused.error?.code, ErrorCodes.MethodNotFound, 'an unadvertised terminal is not served either');

        const full = setup({ ...terminalHandlers(), writeTextFile: async () => ({}) });
        const fullCaps = (await full.agent.initialize()).params.clientCapabilities;
        assert.equal(fullCaps.terminal, true);
        assert.deepEqual(fullCaps.fs, { readTextFile: false, writeTextFile: true });
      });

      it('closes the connection when the agent answers a protocol version it does not speak', async () => {
        const { agent } = setup();
        const closed: (Error | undefined)[] = [];
        agent.connection.onDidClose((reason) => closed.push(reason));
        const done = agent.connection.initialize();
        agent.reply((await agent.expectRequest('initialize')).id, { protocolVersion: 2, agentCapabilities: {} });
        await assert.rejects(done, (error: unknown) => {
          assert.ok(error instanceof ProtocolVersionError);
          assert.equal(error.agentVersion, 2);
          assert.match(error.message, /ACP version 2.*supports version 1/);
          return true;
        });
        assert.equal(agent.connection.isClosed, true);
        assert.equal(closed.length, 1);
        assert.ok(closed[0] instanceof ProtocolVersionError);
        await assert.rejects(agent.connection.newSession({ cwd: '/w', mcpServers: [] }), ConnectionClosedError);
      });

      it('gives up when its signal aborts: $/cancel_request goes out and the connection closes with the reason', async () => {
        const { agent } = setup();
        const controller = new AbortController();
        const done = agent.connection.initialize({}, controller.signal);
        const request = await agent.expectRequest('initialize');
        controller.abort(new Error('the agent did not answer within 30 s'));
        await assert.rejects(done, (error: unknown) => {
          assert.ok(error instanceof ConnectionClosedError);
          assert.equal(error.reason?.message, 'the agent did not answer within 30 s');
          return true;
        });
        assert.equal(agent.connection.isClosed, true);
        const cancel = await agent.next('the cancellation of initialize');
        assert.deepEqual(cancel, { jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: request.id } });
      });
    });

    describe('what the client refuses to send', () => {
      it('refuses optional methods the agent did not advertise, as a rejected promise, sending nothing', async () => {
        const { agent } = setup();
        await agent.initialize({});
        const sentBefore = agent.lines.length;
        const c = agent.connection;
        const attempts: [string, () => Promise<unknown>][] = [
          ['session/list', () => c.listSessions()],
          ['session/load', () => c.loadSession({ sessionId: 's', cwd: '/w', mcpServers: [] })],
          ['session/resume', () => c.resumeSession({ sessionId: 's', cwd: '/w' })],
          ['session/close', () => c.closeSession({ sessionId: 's' })],
          ['session/delete', () => c.deleteSession({ sessionId: 's' })],
          ['logout', () => c.logout()],
        ];
        for (const [method, call] of attempts) {
          let promise: Promise<unknown> | undefined;
          assert.doesNotThrow(() => (promise = call()), `${method} must reject, not throw`);
          await assert.rejects(promise!, (error: unknown) => {
            assert.ok(error instanceof NotSupportedError, `${method}: ${String(error)}`);
            assert.match(error.message, new RegExp(`does not support ${method.replace('/', '\\/')} \\(it did not advertise`));
            return true;
          });
        }
        assert.equal(agent.lines.length, sentBefore, 'nothing was sent');
      });

      it('refuses http MCP servers and additional directories the agent did not advertise', async () => {
        const { agent } = setup();
        await agent.initialize({ mcpCapabilities: { sse: true } });
        const http = { type: 'http' as const, name: 'docs', url: 'https://example.com/mcp', headers: [] };
        await assert.rejects(agent.connection.newSession({ cwd: '/w', mcpServers: [http] }), /does not support http MCP servers \(docs\)/);
        await assert.rejects(agent.connection.newSession({ cwd: '/w', mcpServers: [], additionalDirectories: ['/other'] }), NotSupportedError);
        assert.equal(agent.unread.length, 0, 'nothing was sent');
        const sse = { type: 'sse' as const, name: 'events', url: 'https://example.com/sse', headers: [] };
        const done = agent.connection.newSession({ cwd: '/w', mcpServers: [sse] });
        agent.reply((await agent.expectRequest('session/new')).id, { sessionId: 'sess-1' });
        assert.equal((await done).sessionId, 'sess-1');
      });

      it('sends optional methods once the agent advertised them', async () => {
        const { agent } = setup();
        await agent.initialize({ sessionCapabilities: { list: {}, close: {} }, auth: { logout: {} } });
        const list = agent.connection.listSessions({ cwd: '/w' });
        const listRequest = await agent.expectRequest('session/list');
        assert.deepEqual(listRequest.params, { cwd: '/w' });
        agent.reply(listRequest.id, { sessions: [{ sessionId: 'a', cwd: '/w', title: 'First' }] });
        assert.equal((await list).sessions[0]?.title, 'First');
        const close = agent.connection.closeSession({ sessionId: 'a' });
        agent.reply((await agent.expectRequest('session/close')).id, {});
        await close;
        const logout = agent.connection.logout();
        agent.reply((await agent.expectRequest('logout')).id, {});
        await logout;
      });

      it('refuses images and embedded files in prompts unless promptCapabilities allow them; text and links always go', async () => {
        const { agent } = setup();
        await agent.initialize({ promptCapabilities: { audio: true } });
        const image: S.ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
        const resource: S.ContentBlock = { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'let a = 1;' } };
        await assert.rejects(agent.connection.prompt({ sessionId: 's', prompt: [TEXT('look'), image] }), /does not accept images/);
        await assert.rejects(agent.connection.prompt({ sessionId: 's', prompt: [resource] }), /does not accept embedded files/);
        assert.equal(agent.unread.length, 0, 'a refused prompt sends nothing');

        const link: S.ContentBlock = { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' };
        const done = agent.connection.prompt({ sessionId: 's', prompt: [TEXT('see'), link] });
        const request = await agent.expectRequest('session/prompt');
        assert.deepEqual(request.params.prompt, [
          { type: 'text', text: 'see' },
          { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' },
        ]);
        agent.reply(request.id, { stopReason: 'end_turn' });
        assert.equal((await done).stopReason, 'end_turn');
      });

      it('sends an image once the agent advertised image prompts', async () => {
        const { agent } = setup();
        await agent.initialize({ promptCapabilities: { image: true } });
        const done = agent.connection.prompt({ sessionId: 's', prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
        const request = await agent.expectRequest('session/prompt');
        assert.equal(request.params.prompt[0].type, 'image');
        agent.reply(request.id, { stopReason: 'end_turn' });
        await done;
      });
    });

    describe('requests from the agent', () => {
      it('answers invalid params with -32602 and a message that says what is wrong, without calling the handler', async () => {
        let called = false;
        const { agent } = setup({
          readTextFile: async () => {
            called = true;
            return { content: '' };
          },
        });
        const answer = await agent.request(0, 'fs/read_text_file', { sessionId: 's' });
        assert.equal(answer.error.code, ErrorCodes.InvalidParams);
        assert.match(answer.error.message, /fs\/read_text_file/);
        assert.match(answer.error.message, /path/);
        assert.equal(called, false);
      });

      it('answers unknown methods with -32601, and ignores unknown notifications', async () => {
        const { agent } = setup();
        for (const method of ['_vendor/thing', 'foo/bar']) {
          const answer = await agent.request(method, method, {});
          assert.equal(answer.error.code, ErrorCodes.MethodNotFound, method);
          assert.match(answer.error.message, new RegExp(method));
        }
        agent.notify('_vendor/ping', {});
        agent.notify('foo/changed', { x: 1 });
        const answer = await agent.request(9, 'foo/bar', {});
        assert.equal(answer.id, 9);
        assert.equal(agent.unread.length, 0, 'no answer to a notification');
      });

      it('answers -32603 with the message of a handler that throws, and no stack trace', async () => {
        const { agent } = setup({
          readTextFile: async () => {
            throw new Error('disk on fire');
          },
        });
        const answer = await agent.request(0, 'fs/read_text_file', { sessionId: 's', path: '/w/a.txt' });
        assert.equal(answer.error.code, ErrorCodes.InternalError);
        assert.equal(answer.error.message, 'disk on fire');
        assert.doesNotMatch(JSON.stringify(answer.error), /\bat .*\(|\.ts:\d+|\.js:\d+/, 'no stack text on the wire');
        assert.equal(agent.log.find('disk on fire', 'warn').length, 1, 'the failure is logged');
      });

      it('answers with the code of an AcpError a handler throws (-32002 for a missing file)', async () => {
        const { agent } = setup({
          readTextFile: async (params) => {
            throw new AcpError(ErrorCodes.ResourceNotFound, `no such file: ${params.path}`, { uri: params.path });
          },
        });
        const answer = await agent.request(0, 'fs/read_text_file', { sessionId: 's', path: '/w/new.txt' });
        assert.deepEqual(answer.error, { code: -32002, message: 'no such file: /w/new.txt', data: { uri: '/w/new.txt' } });
      });

      it('answers under the very id the agent used: 0, numbers and UUID strings', async () => {
        const { agent } = setup({ requestPermission: async () => ({ outcome: { outcome: 'selected', optionId: 'yes' } }) });
        const params = { sessionId: 's', toolCall: { toolCallId: 't' }, options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }] };
        for (const id of [0, 41, UUID]) {
          const answer = await agent.request(id, 'session/request_permission', params);
          assert.deepEqual(answer, { jsonrpc: '2.0', id, result: { outcome: { outcome: 'selected', optionId: 'yes' } } });
        }
      });

      it('aborts the handler on the agent\u2019s $/cancel_request and answers -32800, for id 0 and string ids', async () => {
        for (const id of [0, UUID]) {
          const { state, requestPermission } = waitingPermission();
          const { agent } = setup({ requestPermission });
          agent.send({
            jsonrpc: '2.0',
            id,
            method: 'session/request_permission',
            params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
          });
          await waitFor(() => state.calls === 1, { what: 'the permission handler to be called' });
          assert.equal(state.signal?.aborted, false);
          agent.notify('$/cancel_request', { requestId: id });
          const answer = await agent.response(id);
          assert.equal(state.signal?.aborted, true);
          assert.equal(answer.error.code, ErrorCodes.RequestCancelled, `id ${JSON.stringify(id)}`);
        }
      });

      it('answers -32800 without running the handler when the cancel arrives together with the request', async () => {
        const { state, requestPermission } = waitingPermission();
        const { agent } = setup({ requestPermission });
        agent.sendRaw(
          line({
            jsonrpc: '2.0',
            id: 0,
            method: 'session/request_permission',
            params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
          }) + line({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 0 } }),
        );
        assert.equal((await agent.response(0)).error.code, ErrorCodes.RequestCancelled);
        assert.equal(state.calls, 0, 'no permission prompt for a request that is already withdrawn');
      });

      it('survives cancel notifications without a usable id, and ignores vscode-jsonrpc\u2019s $/cancelRequest', async () => {
        const { state, requestPermission } = waitingPermission();
        const { agent } = setup({ requestPermission });
        agent.send({
          jsonrpc: '2.0',
          id: 3,
          method: 'session/request_permission',
          params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
        });
        await waitFor(() => state.calls === 1, { what: 'the permission handler to be called' });
        agent.sendRaw(
          line({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: null } }) +
            line({ jsonrpc: '2.0', method: '$/cancel_request', params: {} }) +
            line({ jsonrpc: '2.0', method: '$/cancel_request' }) +
            line({ jsonrpc: '2.0', method: '$/cancelRequest' }) +
            line({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 3 } }),
        );
        const answer = await agent.request(4, 'foo/bar', {});
        assert.equal(answer.error.code, ErrorCodes.MethodNotFound, 'the connection still works');
        assert.equal(state.signal?.aborted, false, 'none of them cancelled anything');
        assert.equal(agent.log.find('without a request id to cancel', 'warn').length, 3);
        agent.notify('$/cancel_request', { requestId: 3 });
        assert.equal((await agent.response(3)).error.code, ErrorCodes.RequestCancelled);
      });

      it('answers fs/write_text_file with {} (never null), even when the handler resolves with nothing', async () => {
        const written: string[] = [];
        const writeTextFile = (async (params: { content: string }) => {
          written.push(params.content);
        }) as unknown as ClientHandler['writeTextFile'];
        const { agent } = setup({ writeTextFile });
        await agent.request(0, 'fs/write_text_file', { sessionId: 's', path: '/w/out.txt', content: 'hello' });
        assert.equal(agent.lines.at(-1), '{"jsonrpc":"2.0","id":0,"result":{}}');
        assert.deepEqual(written, ['hello']);
      });
    });

    describe('our cancellation', () => {
      it('sends $/cancel_request {requestId} when the signal aborts, and still settles with the agent\u2019s answer', async () => {
        const { agent } = setup();
        await agent.initialize({});
        const controller = new AbortController();
        const done = agent.connection.prompt({ sessionId: 's', prompt: [TEXT('long job')] }, controller.signal);
        const flag = settledFlag(done);
        const request = await agent.expectRequest('session/prompt');
        controller.abort();
        await agent.next('the cancellation');
        assert.equal(agent.lines.at(-1), `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${request.id}}}`);
        assert.equal(flag.settled, false, 'the prompt waits for the agent');
        agent.update('s', chunk('last words'));
        agent.reply(request.id, { stopReason: 'cancelled' });
        assert.deepEqual(await done, { stopReason: 'cancelled' });
      });

      it('reports an agent that answers the cancelled request with -32800 as a cancelled AcpError', async () => {
        const { agent } = setup();
        await agent.initialize({ sessionCapabilities: { list: {} } });
        const controller = new AbortController();
        const done = agent.connection.listSessions({}, controller.signal);
        const request = await agent.expectRequest('session/list');
        controller.abort();
        await agent.next('the cancellation');
        agent.replyError(request.id, -32800, 'Request cancelled');
        await assert.rejects(done, (error: unknown) => error instanceof AcpError && error.isCancelled);
      });
    });

    describe('session/update', () => {
      it('delivers updates in order: a coalesced run, a request in the middle, a line split across writes', async () => {
        const seenAtPermission: number[] = [];
        const { agent, client } = setup({
          requestPermission: async () => {
            seenAtPermission.push(client.updates.length);
            return { outcome: { outcome: 'cancelled' } };
          },
        });
        const update = (i: number) => line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: chunk(String(i)) } });
        const permission = line({
          jsonrpc: '2.0',
          id: 0,
          method: 'session/request_permission',
          params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
        });
        agent.sendRaw([0, 1, 2, 3, 4].map(update).join('') + permission + [5, 6].map(update).join(''));
        const split = Buffer.from(update(7) + update(8));
        agent.sendRaw(split.subarray(0, 20));
        agent.sendRaw(split.subarray(20, 130));
        agent.sendRaw(split.subarray(130));
        await waitFor(() => client.updates.length === 9, { what: 'nine updates' });
        assert.equal(client.text(), '012345678');
        assert.deepEqual(seenAtPermission, [5], 'the updates before the request were handled before it');
        assert.deepEqual((await agent.response(0)).result, { outcome: { outcome: 'cancelled' } });
      });

      it('skips an unknown update kind with a log line, and later updates still arrive', async () => {
        const { agent, client } = setup();
        agent.sendRaw(
          line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: chunk('before ') } }) +
            line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'bogus_kind', x: 1 } } }) +
            line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call' } } }) +
            line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: chunk('after') } }),
        );
        await waitFor(() => client.text() === 'before after', { what: 'both valid chunks' });
        assert.deepEqual(client.kinds(), ['agent_message_chunk', 'agent_message_chunk']);
        assert.equal(agent.log.find('bogus_kind', 'warn').length, 1, agent.log.toString());
        assert.equal(agent.log.find('invalid tool_call', 'warn').length, 1, agent.log.toString());
      });

      it('maps the field names of older agents (id, name, arguments, status success, output)', async () => {
        const { agent, client } = setup();
        agent.update('s', { sessionUpdate: 'tool_call', id: 'old-1', name: 'Read README.md', kind: 'read', arguments: { path: 'README.md' } });
        agent.update('s', { sessionUpdate: 'tool_call_update', id: 'old-1', status: 'success', output: '# Title' });
        await waitFor(() => client.updates.length === 2, { what: 'two updates' });
        const [call, update] = client.updates.map((n) => n.update as Json);
        assert.equal(call?.toolCallId, 'old-1');
        assert.equal(call?.title, 'Read README.md');
        assert.deepEqual(call?.rawInput, { path: 'README.md' });
        assert.equal(update?.toolCallId, 'old-1');
        assert.equal(update?.status, 'completed');
        assert.equal(update?.rawOutput, '# Title');
      });
      it('maps the older field names in a permission request’s tool call too', async () => {
        let seen: unknown;
        const { agent } = setup({
          requestPermission: async (params) => {
            seen = params.toolCall;
            return { outcome: { outcome: 'selected', optionId: 'yes' } };
          },
        });
        const params = {
          sessionId: 's',
          toolCall: { id: 'old-2', name: 'Write config.json' },
          options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }],
        };
        const answer = await agent.request(7, 'session/request_permission', params);
        assert.deepEqual(answer.result, { outcome: { outcome: 'selected', optionId: 'yes' } });
        assert.deepEqual(seen, { toolCallId: 'old-2', name: 'Write config.json', title: 'Write config.json' });
      });
    });

    describe('closing', () => {
      it('close() rejects waiting requests with ConnectionClosedError and aborts running handlers', async () => {
        const { state, requestPermission } = waitingPermission();
        const { agent } = setup({ requestPermission });
        await agent.initialize({});
        const closed: (Error | undefined)[] = [];
        agent.connection.onDidClose((reason) => closed.push(reason));
        const prompt = agent.connection.prompt({ sessionId: 's', prompt: [TEXT('hi')] });
        await agent.expectRequest('session/prompt');
        agent.send({
          jsonrpc: '2.0',
          id: 0,
          method: 'session/request_permission',
          params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
        });
        await waitFor(() => state.calls === 1, { what: 'the permission handler to be called' });

        agent.connection.close(new Error('the agent went away'));
        await assert.rejects(prompt, (error: unknown) => {
          assert.ok(error instanceof ConnectionClosedError);
          assert.equal(error.reason?.message, 'the agent went away');
          assert.match(error.message, /connection to the agent closed: the agent went away/);
          return true;
        });
        assert.equal(state.signal?.aborted, true, 'the running handler was aborted');
        assert.ok(state.signal?.reason instanceof ConnectionClosedError);
        assert.equal(closed.length, 1);
        // The agent still gets an answer to the request whose handler was aborted; after that, nothing more is sent.
        assert.equal((await agent.response(0))['error']?.code, -32603);
        const sent = agent.lines.length;
        await assert.rejects(agent.connection.prompt({ sessionId: 's', prompt: [TEXT('again')] }), ConnectionClosedError);
        await agent.connection.cancel({ sessionId: 's' });
        assert.equal(agent.lines.length, sent, 'nothing is sent on a closed connection');
      });

      it('closes when the agent\u2019s output ends, rejecting what is waiting', async () => {
        const { agent } = setup();
        await agent.initialize({});
        const prompt = agent.connection.prompt({ sessionId: 's', prompt: [TEXT('hi')] });
        await agent.expectRequest('session/prompt');
        agent.end();
        await assert.rejects(within(prompt, 2000, 'the prompt to settle'), ConnectionClosedError);
        assert.equal(agent.connection.isClosed, true);
      });

      it('rejects with ConnectionClosedError, not a vscode-jsonrpc error, when called after the agent\u2019s output ended', async () => {
        const { agent } = setup({}, { closeWhenInputEnds: false });
        await agent.initialize({});
        agent.end();
        await waitFor(() => agent.toClient.readableEnded, { what: 'the end of the agent\u2019s output to be read' });
        await assert.rejects(agent.connection.prompt({ sessionId: 's', prompt: [TEXT('hi')] }), ConnectionClosedError);
      });
    });

    it('surfaces -32000 as isAuthRequired, and the same call succeeds after authenticate', async () => {
      const { agent } = setup();
      await agent.initialize({}, { authMethods: [{ id: 'login', name: 'Log in' }] });
      assert.deepEqual(agent.connection.agent?.authMethods, [{ id: 'login', name: 'Log in' }]);
      const first = agent.connection.newSession({ cwd: '/w', mcpServers: [] });
      agent.replyError((await agent.expectRequest('session/new')).id, -32000, 'Authentication required');
      await assert.rejects(
        first,
        (error: unknown) => error instanceof AcpError && error.isAuthRequired && error.message === 'Authentication required',
      );
      const auth = agent.connection.authenticate({ methodId: 'login' });
      const authRequest = await agent.expectRequest('authenticate');
      assert.deepEqual(authRequest.params, { methodId: 'login' });
      agent.reply(authRequest.id, {});
      await auth;
      const retry = agent.connection.newSession({ cwd: '/w', mcpServers: [] });
      agent.reply((await agent.expectRequest('session/new')).id, { sessionId: 'sess-1' });
      assert.equal((await retry).sessionId, 'sess-1');
    });
  });

  describe('against the fixture agent (a real subprocess)', () => {
    const fixtures = new FixtureAgents();
    afterEach(() => fixtures.disposeAll());

    it('basic: initializes with version 1 and clientInfo, streams "Hello" including the empty first chunk', async () => {
      const f = fixtures.start('basic');
      const sessionId = await openSession(f);
      assert.equal(sessionId, 'sess-1');
      const result = await f.agent.connection.prompt({ sessionId, prompt: [TEXT('hi')] });
      assert.equal(result.stopReason, 'end_turn');
      assert.equal(f.client.text(sessionId), 'Hello');
      assert.deepEqual(
        f.client.updates.map((n) => (n.update as Json).content.text),
        ['', 'Hel', 'lo'],
      );
      const init = f.recorded().find((m) => m.method === 'initialize');
      assert.equal(init?.id, 0);
      assert.equal(init?.params.protocolVersion, 1);
      assert.equal(init?.params.clientInfo.name, 'acp-client-tests');
      assert.deepEqual(f.agent.connection.agent?.capabilities.promptCapabilities, { image: true, embeddedContext: true });
    });

    it('tools: upserts by id, takes updates for unannounced ids, and delivers plan and usage in order', async () => {
      const f = fixtures.start('tools');
      const sessionId = await openSession(f);
      await f.agent.connection.prompt({ sessionId, prompt: [TEXT('edit')] });
      assert.deepEqual(f.client.kinds(), [
        'tool_call',
        'tool_call',
        'tool_call_update',
        'tool_call_update',
        'tool_call_update',
        'plan',
        'usage_update',
        'agent_message_chunk',
      ]);
      const u = f.client.updates.map((n) => n.update as Json);
      assert.deepEqual(u[0]?.rawInput, {});
      assert.equal(u[1]?.toolCallId, u[0]?.toolCallId);
      assert.equal(u[1]?.rawInput.oldText, 'a');
      assert.deepEqual(
        u[3]?.content.map((c: Json) => c.type),
        ['content', 'diff'],
      );
      assert.equal(u[3]?.locations[0].line, 1);
      assert.equal(u[4]?.toolCallId, 'call-ghost');
      assert.equal(u[5]?.entries.length, 2);
      assert.deepEqual([u[6]?.used, u[6]?.size], [1200, 200000]);
    });

    it('permission: the agent\u2019s request id starts at 0 and it gets the option the user chose', async () => {
      const f = fixtures.start('permission', {
        handler: {
          requestPermission: async (params) => {
            assert.deepEqual(
              params.options.map((o) => [o.name, o.kind]),
              [
                ['Allow', 'allow_once'],
                ['Always Allow', 'allow_always'],
                ['Reject', 'reject_once'],
              ],
            );
            return { outcome: { outcome: 'selected', optionId: 'always' } };
          },
        },
      });
      const sessionId = await openSession(f);
      const result = await f.agent.connection.prompt({ sessionId, prompt: [TEXT('write it')] });
      assert.equal(result.stopReason, 'end_turn');
      assert.equal(f.client.text(), 'outcome:always');
      const reply = f.recorded().find((m) => m.method === undefined && m.id === 0);
      assert.deepEqual(reply?.result, { outcome: { outcome: 'selected', optionId: 'always' } });
    });

    it('uuid-ids: answers requests whose ids are UUID strings', async () => {
      const f = fixtures.start('uuid-ids');
      const sessionId = await openSession(f);
      await f.agent.connection.prompt({ sessionId, prompt: [TEXT('write it')] });
      assert.equal(f.client.text(), 'outcome:allow');
      const reply = f.recorded().find((m) => m.method === undefined && 'result' in m);
      assert.match(String(reply?.id), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    });

    it('session/cancel: the agent cancels its pending permission request, the handler aborts, the turn ends cancelled', async () => {
      const { state, requestPermission } = waitingPermission();
      const f = fixtures.start('permission', { handler: { requestPermission } });
      const sessionId = await openSession(f);
      const prompt = f.agent.connection.prompt({ sessionId, prompt: [TEXT('write it')] });
      await waitFor(() => state.calls === 1, { what: 'the permission request' });
      await f.agent.connection.cancel({ sessionId });
      assert.equal((await prompt).stopReason, 'cancelled');
      assert.equal(state.signal?.aborted, true);
      assert.equal(f.client.text(), 'outcome:cancelled');
      const recorded = f.recorded();
      assert.ok(recorded.some((m) => m.method === 'session/cancel' && m.params.sessionId === sessionId));
      assert.equal(recorded.find((m) => m.method === undefined && m.id === 0)?.error.code, ErrorCodes.RequestCancelled);
    });

    it('permission-cancel: the agent withdraws its request before an answer, and gets -32800', async () => {
      const { state, requestPermission } = waitingPermission();
      const f = fixtures.start('permission-cancel', { handler: { requestPermission } });
      const sessionId = await openSession(f);
      assert.equal((await f.agent.connection.prompt({ sessionId, prompt: [TEXT('go')] })).stopReason, 'end_turn');
      // The cancel may be read together with the request, and then the handler is never called at all.
      assert.ok(state.calls === 0 || state.signal?.aborted, 'no permission prompt is left open');
      const said = JSON.parse(f.client.text().replace(/^reply:/, '')) as Json;
      assert.equal(said.error.code, ErrorCodes.RequestCancelled);
      assert.equal(f.recorded().find((m) => m.method === undefined && m.id === 0)?.error.code, ErrorCodes.RequestCancelled);
    });

    it('fs: serves reads, writes (answering {}) and a terminal for the agent', async () => {
      const files = new Map<string, string>();
      const f = fixtures.start('fs', {
        handler: {
          readTextFile: async (params) => ({ content: `contents of ${params.path.split('/').pop()} from line ${params.line}` }),
          writeTextFile: async (params) => {
            files.set(params.path, params.content);
            return {};
          },
          ...terminalHandlers(),
        },
      });
      const sessionId = await openSession(f);
      await f.agent.connection.prompt({ sessionId, prompt: [TEXT('go')] });
      assert.equal(
        f.client.text(),
        ['read:contents of input.txt from line 1', 'write:{}', 'terminal:term-1', 'exit:{"exitCode":0}', 'output:hi\n', 'release:{}', ''].join('\n'),
      );
      assert.deepEqual([...files], [[`${f.dir}/output.txt`, 'written by the agent']]);
    });

    it('malformed: junk, blank, CRLF and array lines and a message split mid-character do not break the stream', async () => {
      const f = fixtures.start('malformed');
      const sessionId = await openSession(f);
      const result = await f.agent.connection.prompt({ sessionId, prompt: [TEXT('go')] });
      assert.equal(result.stopReason, 'end_turn');
      assert.equal(f.client.text(), 'crlf;split ✓ 🎉;after;end');
      assert.equal(f.log.find('not JSON: "this is not json"', 'warn').length, 1, f.log.toString());
      assert.equal(f.log.find('not a JSON-RPC message: [1,2,3]', 'warn').length, 1, f.log.toString());
      assert.equal(f.log.find('neither method nor id', 'warn').length, 1, f.log.toString());
    });

    it('unknown-method: the agent gets -32601 for methods the client does not serve', async () => {
      const f = fixtures.start('unknown-method');
      const sessionId = await openSession(f);
      await f.agent.connection.prompt({ sessionId, prompt: [TEXT('go')] });
      assert.equal(f.client.text(), '_vendor/thing:-32601;foo/bar:-32601;');
    });

    it('invalid-params: the agent gets -32602 with a readable message', async () => {
      const f = fixtures.start('invalid-params', { handler: { readTextFile: async () => ({ content: '' }) } });
      const sessionId = await openSession(f);
      await f.agent.connection.prompt({ sessionId, prompt: [TEXT('go')] });
      assert.match(f.client.text(), /^error:-32602:invalid params for fs\/read_text_file: path: /);
    });

    it('legacy and unknown-update: old field names are mapped, an unknown kind is skipped and logged', async () => {
      const legacy = fixtures.start('legacy');
      const s1 = await openSession(legacy);
      await legacy.agent.connection.prompt({ sessionId: s1, prompt: [TEXT('go')] });
      const [call, update] = legacy.client.updates.map((n) => n.update as Json);
      assert.deepEqual([call?.toolCallId, call?.title, call?.rawInput], ['legacy-1', 'Read README.md', { path: 'README.md' }]);
      assert.deepEqual([update?.toolCallId, update?.status, update?.rawOutput], ['legacy-1', 'completed', '# Title']);

      const unknown = fixtures.start('unknown-update');
      const s2 = await openSession(unknown);
      await unknown.agent.connection.prompt({ sessionId: s2, prompt: [TEXT('go')] });
      assert.equal(unknown.client.text(), 'before;after');
      assert.equal(unknown.log.find('unknown session update kind "bogus_kind"', 'warn').length, 1, unknown.log.toString());
    });

    it('auth-required: session/new fails with isAuthRequired until authenticate, then succeeds', async () => {
      const f = fixtures.start('auth-required');
      await f.agent.connection.initialize();
      const methods = f.agent.connection.agent?.authMethods ?? [];
      assert.equal(methods[0]?.id, 'fixture-login');
      await assert.rejects(
        f.agent.connection.newSession({ cwd: f.dir, mcpServers: [] }),
        (error: unknown) => error instanceof AcpError && error.isAuthRequired,
      );
      await f.agent.connection.authenticate({ methodId: 'fixture-login' });
      assert.equal((await f.agent.connection.newSession({ cwd: f.dir, mcpServers: [] })).sessionId, 'sess-1');
    });

    it('closes with ProtocolVersionError when the agent answers version 2', async () => {
      const f = fixtures.start('basic', { env: { ACP_FIXTURE_PROTOCOL_VERSION: '2' } });
      await assert.rejects(f.agent.connection.initialize(), ProtocolVersionError);
      assert.equal(f.agent.connection.isClosed, true);
    });

    it('session/load: the replayed history has arrived by the time the load answers', async () => {
      const f = fixtures.start('basic');
      await f.agent.connection.initialize();
      const { sessions } = await f.agent.connection.listSessions({ cwd: f.dir });
      assert.deepEqual(
        sessions.map((s) => s.sessionId),
        ['sess-stored'],
      );
      await f.agent.connection.loadSession({ sessionId: 'sess-stored', cwd: f.dir, mcpServers: [] });
      assert.deepEqual(f.client.kinds(), ['user_message_chunk', 'agent_message_chunk'], 'replayed before the answer');
      assert.equal(f.client.text('sess-stored'), 'A protocol between editors and agents.');
    });

    it('slow: aborting our prompt sends $/cancel_request for it, and the agent answers cancelled', async () => {
      const f = fixtures.start('slow');
      const sessionId = await openSession(f);
      const controller = new AbortController();
      const prompt = f.agent.connection.prompt({ sessionId, prompt: [TEXT('think hard')] }, controller.signal);
      await waitFor(() => f.client.text() === 'thinking', { what: 'the agent to start thinking' });
      controller.abort();
      assert.equal((await prompt).stopReason, 'cancelled');
      const promptId = f.recorded().find((m) => m.method === 'session/prompt')?.id;
      assert.ok(f.recorded().some((m) => m.method === '$/cancel_request' && m.params.requestId === promptId));
    });

    it('modes, config options and close round-trip; a prompt to a closed session fails with -32002', async () => {
      const f = fixtures.start('basic');
      await f.agent.connection.initialize();
      const created = await f.agent.connection.newSession({ cwd: f.dir, mcpServers: [] });
      const sessionId = created.sessionId;
      assert.equal(created.modes?.currentModeId, 'default');
      await f.agent.connection.setMode({ sessionId, modeId: 'plan' });
      await waitFor(() => f.client.kinds().includes('current_mode_update'), { what: 'the mode update' });
      const { configOptions } = await f.agent.connection.setConfigOption({ sessionId, configId: 'model', value: 'smart' });
      assert.equal(configOptions[0]?.currentValue, 'smart');
      await f.agent.connection.closeSession({ sessionId });
      await assert.rejects(
        f.agent.connection.prompt({ sessionId, prompt: [TEXT('hi')] }),
        (error: unknown) => error instanceof AcpError && error.code === ErrorCodes.ResourceNotFound,
      );
    });
  });
});
