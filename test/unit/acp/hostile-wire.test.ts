// What a hostile or broken agent can put on the wire, against the real reader, writer and connection: every request
// is answered under the id it was sent with, nothing it sends can throw out of the reader or leave a request of ours
// pending, and nothing it controls grows without a bound.
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { AcpError, ConnectionClosedError, ErrorCodes } from '../../../src/acp/errors';
import type { ClientHandler } from '../../../src/acp/inbound';
import { MAX_REQUESTS_PER_SESSION } from '../../../src/acp/inbound';
import { exceedsDepth, MAX_DEPTH, rawMemberText } from '../../../src/acp/jsonLimits';
import { MAX_INCOMING_IN_FLIGHT, MAX_PARKED } from '../../../src/acp/requestIds';
import { waitFor } from '../../lib/wait';
import { TerminalManager } from '../../../src/acp/terminals';
import { WireAgent, type Json } from '../lib/wire-agent';

const nested = (depth: number, open = '[', close = ']', inner = '0') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function handler(overrides: Partial<ClientHandler> = {}): ClientHandler {
  return {
    requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
    readTextFile: async (params) => ({ content: `read ${params.path}` }),
    sessionUpdate: () => {},
    ...overrides,
  };
}

/** The answer lines the client wrote, as raw text: ids are compared as the agent sent them. */
async function answers(agent: WireAgent, count: number): Promise<string[]> {
  await waitFor(() => agent.lines.length >= count, { timeoutMs: 15_000, what: `${count} answers (have ${agent.lines.length})` });
  return agent.lines.slice(0, count);
}

const read = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}\n`;

describe('hostile wire input', () => {
  let agent: WireAgent;
  afterEach(() => agent?.dispose());

  describe('request ids', () => {
    it('answers every request under the exact id it was sent with: null, 8 and "8" at once, 2^60, negative and fractional', async () => {
      agent = new WireAgent(handler());
      const ids = ['null', '8', '"8"', '1152921504606846977', '-3', '1.50', '"💥"', '0'];
      agent.sendRaw(ids.map(read).join(''));
      const got = await answers(agent, ids.length);
      const sent = got.map((line) => rawMemberText(line, 'id')?.trim() ?? JSON.stringify(JSON.parse(line).id));
      assert.deepEqual([...sent].sort(), [...ids].sort(), got.join('\n'));
      for (const line of got) assert.equal(JSON.parse(line).result.content, 'read /a', line);
    });

    it('answers a request whose id is an object, an array or a boolean with -32600 and id null', async () => {
      agent = new WireAgent(handler());
      agent.sendRaw([read('{}'), read('[]'), read('true'), read(deepObject(3000))].join(''));
      const got = (await answers(agent, 4)).map((line) => JSON.parse(line) as Json);
      for (const answer of got) {
        assert.equal(answer['id'], null);
        assert.equal(answer['error'].code, ErrorCodes.InvalidRequest);
      }
    });

    it('does not let an agent cancel a request by another id of the same text', async () => {
      let aborted = 0;
      let release: (() => void) | undefined;
      agent = new WireAgent(
        handler({
          // The first request is answered only once the one sent after the cancel is served: by then the cancel
          // has been read and acted on, whatever the timing.
          readTextFile: (params, signal) =>
            params.path === '/first'
              ? new Promise((resolve) => {
                  signal.addEventListener('abort', () => aborted++);
                  release = () => resolve({ content: 'late' });
                })
              : Promise.resolve(release?.()).then(() => ({ content: 'second' })),
        }),
      );
      const request = (id: string, path: string) =>
        `{"jsonrpc":"2.0","id":${id},"method":"fs/read_text_file","params":{"sessionId":"s","path":"${path}"}}\n`;
      agent.sendRaw(request('8', '/first'));
      agent.notify('$/cancel_request', { requestId: '8' });
      agent.sendRaw(request('9', '/second'));
      const got = (await answers(agent, 2)).map((line) => JSON.parse(line) as Json);
      assert.deepEqual(got.map((a) => a['result']?.content).sort(), ['late', 'second']);
      assert.equal(aborted, 0);
    });
  });

  describe('nesting', () => {
    it('refuses a request nested deeper than MAX_DEPTH with -32600 under its id, and answers the next one in the same write', async () => {
      agent = new WireAgent(handler());
      const deep = `{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a","_meta":${nested(5000)}}}\n`;
      agent.sendRaw(`${nested(5000)}\n${deep}${read('4')}`);
      const got = (await answers(agent, 2)).map((line) => JSON.parse(line) as Json);
      const byId = new Map(got.map((a) => [a['id'], a]));
      assert.equal(byId.get(3)?.['error'].code, ErrorCodes.InvalidRequest);
      assert.equal(byId.get(4)?.['result'].content, 'read /a');
    });

    it('accepts nesting up to MAX_DEPTH', async () => {
      agent = new WireAgent(handler());
      agent.sendRaw(
        `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a","_meta":${nested(MAX_DEPTH - 3, '{"x":', '}', '1')}}}\n`,
      );
      const [line] = await answers(agent, 1);
      assert.equal(JSON.parse(line!).result.content, 'read /a');
    });

    it('rejects our request when the agent answers it with a value nested 5,000 levels deep, and stays open', async () => {
      agent = new WireAgent(handler());
      await agent.initialize();
      const pending = agent.connection.newSession({ cwd: '/w', mcpServers: [] });
      const request = await agent.expectRequest('session/new');
      agent.sendRaw(`{"jsonrpc":"2.0","id":${request['id']},"result":{"sessionId":"s1","_meta":${deepObject(5000)}}}\n`);
      await assert.rejects(pending, (error: unknown) => error instanceof AcpError && /nested deeper/.test(error.message));
      assert.equal(agent.connection.isClosed, false);
      agent.sendRaw(read('5'));
      await answers(agent, 2);
    });
  });

  describe('answers to our requests', () => {
    it('rejects a request whose answer is malformed with a clear error, not "connection closed"', async () => {
      agent = new WireAgent(handler());
      await agent.initialize();
      const malformed = ['{"error":"boom"}', '{"error":{"code":"x","message":"m"}}', '{}'];
      for (const body of malformed) {
        const pending = agent.connection.newSession({ cwd: '/w', mcpServers: [] });
        const request = await agent.expectRequest('session/new');
        agent.send({ jsonrpc: '2.0', id: request['id'], ...(JSON.parse(body) as Json) });
        await assert.rejects(pending, (error: unknown) => {
          assert.ok(!(error instanceof ConnectionClosedError), String(error));
          assert.ok(error instanceof AcpError && /malformed/.test(error.message), String(error));
          return true;
        });
      }
      assert.equal(agent.connection.isClosed, false);
    });

    it('skips answers for requests never sent, with a warning, and keeps serving', async () => {
      agent = new WireAgent(handler());
      agent.sendRaw('{"jsonrpc":"2.0","id":999,"result":{}}\n{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}\n');
      agent.sendRaw(read('1'));
      await answers(agent, 1);
      assert.equal(agent.log.find('no request of ours is waiting for', 'warn').length, 2, agent.log.toString());
    });

    it('cuts an error message of the agent to a bounded length', async () => {
      agent = new WireAgent(handler());
      await agent.initialize();
      const pending = agent.connection.newSession({ cwd: '/w', mcpServers: [] });
      const request = await agent.expectRequest('session/new');
      agent.replyError(request['id'], -32603, 'x'.repeat(5_000_000));
      await assert.rejects(pending, (error: unknown) => error instanceof AcpError && error.message.length < 10_000);
    });
  });

  describe('internal and unknown methods', () => {
    it('ignores $/acp/coalesced and other $/ notifications from the agent (no update reaches the session)', async () => {
      const updates: unknown[] = [];
      agent = new WireAgent(handler({ sessionUpdate: (n) => updates.push(n) }));
      const items = Array.from({ length: 20_000 }, () => ({
        sessionId: 's',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } },
      }));
      agent.notify('$/acp/coalesced', { method: 'session/update', items });
      agent.notify('$/progress', null);
      agent.notify('$/cancelRequest', { id: 1 });
      agent.sendRaw(read('1'));
      await answers(agent, 1);
      assert.deepEqual(updates, []);
      assert.equal(agent.log.lines.filter((l) => l.level === 'warn' || l.level === 'error').length, 0, agent.log.toString());
    });

    it('answers a request for an internal $/ method with -32601', async () => {
      agent = new WireAgent(handler());
      agent.send({ jsonrpc: '2.0', id: 1, method: '$/acp/coalesced', params: { method: 'fs/read_text_file', items: [] } });
      const [line] = await answers(agent, 1);
      assert.equal(JSON.parse(line!).error.code, ErrorCodes.MethodNotFound);
    });

    it('answers a Node argument error caused by the params with -32602, not -32603', async () => {
      agent = new WireAgent(
        handler({
          readTextFile: async (params) => {
            statSync(`${params.path}\0`);
            return { content: '' };
          },
        }),
      );
      agent.sendRaw(read('1'));
      const [line] = await answers(agent, 1);
      assert.equal(JSON.parse(line!).error.code, ErrorCodes.InvalidParams);
    });

    it('answers an elicitation whose lenient fields hold wrong values, and an environment too large to start, with -32602', async () => {
      const terminals = new TerminalManager();
      agent = new WireAgent(
        handler({
          createElicitation: async () => ({ action: 'decline' }),
          createTerminal: async (params) => terminals.create(params, process.cwd()),
          terminalOutput: async (params) => terminals.output(params),
          waitForTerminalExit: (params, signal) => terminals.waitForExit(params, signal),
          killTerminal: async (params) => terminals.kill(params),
          releaseTerminal: async (params) => terminals.release(params),
        }),
      );
      const elicit = (id: number, extra: Record<string, unknown>) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'elicitation/create',
          params: { sessionId: 's', mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} }, ...extra },
        }) + '\n';
      agent.sendRaw(elicit(1, { requestedSchema: { type: 7, properties: {} } }) + elicit(2, { _meta: 'not an object' }));
      const huge = 'x'.repeat(4 * 1024 * 1024);
      agent.sendRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'terminal/create',
          params: { sessionId: 's', command: 'true', args: [], env: [{ name: 'BIG', value: huge }] },
        }) + '\n',
      );
      const got = (await answers(agent, 3)).map((line) => JSON.parse(line) as Json);
      for (const answer of got) {
        const code = answer['error']?.code ?? 'answered';
        assert.ok(code === ErrorCodes.InvalidParams || (answer['id'] !== 3 && code === 'answered'), JSON.stringify(answer).slice(0, 300));
      }
      assert.equal(got.find((a) => a['id'] === 3)?.['error']?.code, ErrorCodes.InvalidParams);
      terminals.dispose();
    });
  });

  describe('bounds on requests in flight', () => {
    it('serves every request of an agent that writes faster than we serve (reading pauses instead of refusing)', async () => {
      agent = new WireAgent(handler());
      const count = 5000;
      for (let i = 0; i < count; i++) agent.sendRaw(read(String(i)));
      const got = (await answers(agent, count)).map((line) => JSON.parse(line) as Json);
      assert.equal(got.filter((a) => a['error']).length, 0, JSON.stringify(got.find((a) => a['error'])));
    });

    it('keeps reading while requests wait on the user or a command, and refuses those past their own bound at once', async () => {
      let updates = 0;
      agent = new WireAgent(handler({ requestPermission: () => new Promise(() => {}), sessionUpdate: () => void updates++ }));
      // More than reading pauses for, spread over sessions so that the per-session bound is not the one that bites.
      const sessions = Math.ceil(MAX_PARKED / MAX_REQUESTS_PER_SESSION) + 1;
      const permission = (i: number) =>
        `{"jsonrpc":"2.0","id":"p${i}","method":"session/request_permission","params":{"sessionId":"s${i % sessions}","toolCall":{"toolCallId":"t${i}"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}\n`;
      const lines: string[] = [];
      for (let i = 0; i < MAX_PARKED + 3; i++) lines.push(permission(i));
      agent.sendRaw(lines.join(''));
      // The three past the bound are refused at once, under their ids; the others wait for the user.
      const refused = (await answers(agent, 3)).map((line) => JSON.parse(line) as Json);
      assert.deepEqual(
        refused.map((a) => [a['id'], a['error'].code]),
        [0, 1, 2].map((i) => [`p${MAX_PARKED + i}`, ErrorCodes.InternalError]),
      );
      assert.match(refused[0]!['error'].message, /waiting for the user or a command/);
      // What comes next is still read: an update, and a request that is answered.
      agent.notify('session/update', { sessionId: 's0', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } });
      agent.sendRaw(read('"after"'));
      const [answer] = (await answers(agent, 4)).slice(3);
      assert.equal(JSON.parse(answer!).result.content, 'read /a');
      await waitFor(() => updates === 1, { what: 'the update sent after them' });
    });

    it(`refuses a session's requests past ${MAX_REQUESTS_PER_SESSION} waiting at once, at once and with an error`, async () => {
      agent = new WireAgent(handler({ readTextFile: () => new Promise(() => {}) }));
      const extra = 10;
      const lines: string[] = [];
      for (let i = 0; i < MAX_REQUESTS_PER_SESSION + extra; i++) lines.push(read(String(i)));
      agent.sendRaw(lines.join(''));
      const got = (await answers(agent, extra)).map((line) => JSON.parse(line) as Json);
      for (const answer of got) assert.equal(answer['error'].code, ErrorCodes.InternalError);
      assert.ok(
        got.every((a) => (a['id'] as number) >= MAX_REQUESTS_PER_SESSION),
        JSON.stringify(got.map((a) => a['id'])),
      );
    });

    it(`serves the kill and the release behind ${MAX_REQUESTS_PER_SESSION} waits for a command's exit, and another session's question beside them`, async () => {
      const terminals = new TerminalManager();
      const asked: string[] = [];
      agent = new WireAgent(
        handler({
          requestPermission: async (params) => {
            asked.push(params.sessionId);
            return { outcome: { outcome: 'cancelled' } };
          },
          createTerminal: async (params) => terminals.create(params, process.cwd()),
          terminalOutput: async (params) => terminals.output(params),
          waitForTerminalExit: (params, signal) => terminals.waitForExit(params, signal),
          killTerminal: async (params) => terminals.kill(params),
          releaseTerminal: async (params) => terminals.release(params),
        }),
      );
      const request = (id: string, method: string, params: Json) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
      agent.sendRaw(request('create', 'terminal/create', { sessionId: 's', command: 'sleep', args: ['60'] }));
      const [created] = await answers(agent, 1);
      const terminalId = JSON.parse(created!).result.terminalId as string;
      const waits: string[] = [];
      for (let i = 0; i < MAX_REQUESTS_PER_SESSION; i++) waits.push(request(`w${i}`, 'terminal/wait_for_exit', { sessionId: 's', terminalId }));
      agent.sendRaw(waits.join(''));
      // Another chat's question on the same agent is asked, and answered.
      agent.sendRaw(
        request('other', 'session/request_permission', {
          sessionId: 'other',
          toolCall: { toolCallId: 't' },
          options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }],
        }),
      );
      const [, other] = await answers(agent, 2);
      assert.deepEqual(JSON.parse(other!), { jsonrpc: '2.0', id: 'other', result: { outcome: { outcome: 'cancelled' } } });
      assert.deepEqual(asked, ['other']);
      // The kill is served: every wait ends with the command's end, then the release is served too.
      agent.sendRaw(request('kill', 'terminal/kill', { sessionId: 's', terminalId }));
      const ended = (await answers(agent, 3 + MAX_REQUESTS_PER_SESSION)).slice(2).map((line) => JSON.parse(line) as Json);
      assert.equal(ended.filter((a) => a['error']).length, 0, JSON.stringify(ended.find((a) => a['error'])));
      assert.equal(ended.filter((a) => String(a['id']).startsWith('w') && a['result'].signal).length, MAX_REQUESTS_PER_SESSION);
      agent.sendRaw(request('release', 'terminal/release', { sessionId: 's', terminalId }));
      const [released] = (await answers(agent, 4 + MAX_REQUESTS_PER_SESSION)).slice(-1);
      assert.deepEqual(JSON.parse(released!), { jsonrpc: '2.0', id: 'release', result: {} });
      terminals.dispose();
    });

    it(`refuses requests past ${MAX_INCOMING_IN_FLIGHT} waiting on the connection, and serves again once they are answered`, async () => {
      const waiting: (() => void)[] = [];
      agent = new WireAgent(handler({ readTextFile: () => new Promise((resolve) => waiting.push(() => resolve({ content: 'ok' }))) }));
      const lines: string[] = [];
      // Spread over sessions, so that the per-session bound is not the one that bites.
      for (let i = 0; i < MAX_INCOMING_IN_FLIGHT + 5; i++) {
        lines.push(`{"jsonrpc":"2.0","id":${i},"method":"fs/read_text_file","params":{"sessionId":"s${i % 8}","path":"/a"}}\n`);
      }
      agent.sendRaw(lines.join(''));
      const refused = (await answers(agent, 5)).map((line) => JSON.parse(line) as Json);
      for (const answer of refused) assert.equal(answer['error'].code, ErrorCodes.InternalError);
      await waitFor(() => waiting.length === MAX_INCOMING_IN_FLIGHT, { what: 'every admitted request in its handler' });
      for (const resolve of waiting.splice(0)) resolve();
      await answers(agent, MAX_INCOMING_IN_FLIGHT + 5);
      agent.sendRaw(read('"after"'));
      await waitFor(() => waiting.length === 1, { what: 'the request after them in its handler' });
      waiting.pop()?.();
      await answers(agent, MAX_INCOMING_IN_FLIGHT + 6);
    });
  });
});

describe('jsonLimits', () => {
  it('measures the nesting of arrays and objects, not of brackets inside strings', () => {
    assert.equal(exceedsDepth(JSON.parse(nested(MAX_DEPTH))), false);
    assert.equal(exceedsDepth(JSON.parse(nested(MAX_DEPTH + 1))), true);
    assert.equal(exceedsDepth(JSON.parse(deepObject(MAX_DEPTH + 1))), true);
    assert.equal(exceedsDepth(JSON.parse(`["${'['.repeat(10_000)}"]`)), false, 'brackets in a string do not nest');
    assert.equal(exceedsDepth('just a string'), false);
  });

  // Its speed is the benchmarks' to measure; here a check that recursed as deep as the value would overflow the stack
  // on the million levels, and a quadratic one would run past the test's bound by hours.
  it('checks a million-level array, a million-item array and a 20 MB string, going no deeper than the limit', () => {
    const deep = JSON.parse(nested(1_000_000)) as unknown;
    const wide = JSON.parse(`[${Array.from({ length: 1_000_000 }, () => '{"a":[1]}').join(',')}]`) as unknown;
    const long = JSON.parse(JSON.stringify({ text: '{[\\"'.repeat(5_000_000) })) as unknown;
    assert.equal(exceedsDepth(deep), true);
    assert.equal(exceedsDepth(wide), false);
    assert.equal(exceedsDepth(long), false);
  });

  it('counts only what the message holds, whatever a polluted prototype adds to every object', () => {
    Object.defineProperty(Object.prototype, 'acpPolluted', { value: { deeper: {} }, enumerable: true, configurable: true });
    try {
      assert.equal(exceedsDepth(JSON.parse('{"a":{"b":1}}'), 2), false);
      assert.equal(exceedsDepth(JSON.parse('{"a":{"b":{}}}'), 2), true);
    } finally {
      delete (Object.prototype as { acpPolluted?: unknown }).acpPolluted;
    }
  });

  it('reads the raw text of a top-level number member, ignoring nested ones and keys inside strings', () => {
    assert.equal(rawMemberText('{"params":{"id":1},"id":1152921504606846977}', 'id'), '1152921504606846977');
    assert.equal(rawMemberText('{"x":"\\"id\\":5","id" : -1.50e3}', 'id'), '-1.50e3');
    assert.equal(rawMemberText('{"id":"s"}', 'id'), undefined);
  });
});
