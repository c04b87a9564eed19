// acp.trace: one line per JSON-RPC message (messages), with its payload (verbose), tagged by agent and session,
// responses named by the request they answer, long payloads elided, secrets in payloads redacted.
import * as assert from 'node:assert/strict';
import { shortId, type Logger } from '../../../src/acp/log';
import { elide, MessageTrace, type TraceLevel } from '../../../src/acp/trace';
import { messageTracer } from '../../../src/common/log';

const SESSION = 'sess-5f0c2a9e-1b7d-4c1e-9d3a-0123456789ab';
const TAG = `[trace Gemini ${shortId(SESSION)}]`;

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const line = (message: unknown) => JSON.stringify(message);

describe('MessageTrace (messages)', () => {
  it('names each message by direction, kind, method and id, tagged by agent and session', () => {
    const time = clock();
    const trace = new MessageTrace('Gemini', { now: time.now });
    assert.equal(
      trace.line('sent', line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }), false),
      '[trace Gemini] → request initialize #0',
    );
    time.advance(42);
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }), false),
      '[trace Gemini] ← response initialize #0 (42 ms)',
    );
    // session/new has no session yet; its answer carries it.
    assert.equal(
      trace.line('sent', line({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }), false),
      '[trace Gemini] → request session/new #1',
    );
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 1, result: { sessionId: SESSION } }), false),
      `${TAG} ← response session/new #1 (0 ms)`,
    );
    assert.equal(
      trace.line('sent', line({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: SESSION, prompt: [] } }), false),
      `${TAG} → request session/prompt #2`,
    );
    assert.equal(
      trace.line(
        'received',
        line({
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: SESSION, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } } },
        }),
        false,
      ),
      `${TAG} ← notification session/update agent_message_chunk`,
    );
    time.advance(1200);
    // The answer to session/prompt has no sessionId of its own: it comes from the request.
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }), false),
      `${TAG} ← response session/prompt #2 (1200 ms)`,
    );
    assert.equal(
      trace.line('sent', line({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: SESSION } }), false),
      `${TAG} → notification session/cancel`,
    );
    assert.equal(trace.remembered, 0, 'answered requests are forgotten');
  });

  it('keeps the two directions apart: the agent\u2019s request #0 and ours are different requests', () => {
    const trace = new MessageTrace('A', { now: () => 0 });
    trace.line('sent', line({ jsonrpc: '2.0', id: 0, method: 'session/prompt', params: { sessionId: 's1' } }), false);
    trace.line('received', line({ jsonrpc: '2.0', id: 0, method: 'fs/read_text_file', params: { sessionId: 's1', path: '/a' } }), false);
    assert.equal(
      trace.line('sent', line({ jsonrpc: '2.0', id: 0, result: { content: 'x' } }), false),
      '[trace A s1] → response fs/read_text_file #0 (0 ms)',
    );
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 0, result: { stopReason: 'end_turn' } }), false),
      '[trace A s1] ← response session/prompt #0 (0 ms)',
    );
  });

  it('tells a string id from a number id, as JSON-RPC does', () => {
    const trace = new MessageTrace('A', { now: () => 0 });
    trace.line('sent', line({ jsonrpc: '2.0', id: '1', method: 'session/list', params: {} }), false);
    assert.equal(trace.line('received', line({ jsonrpc: '2.0', id: 1, result: {} }), false), '[trace A] ← response #1');
    assert.equal(trace.line('received', line({ jsonrpc: '2.0', id: '1', result: {} }), false), '[trace A] ← response session/list #1 (0 ms)');
  });

  it('shows an error answer with its code and message', () => {
    const trace = new MessageTrace('A', { now: () => 0 });
    trace.line('sent', line({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 's1' } }), false);
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'model overloaded' } }), false),
      '[trace A s1] ← error session/prompt #7 (0 ms) -32603 "model overloaded"',
    );
  });

  it('traces lines that are not JSON, or not JSON-RPC, as such', () => {
    const trace = new MessageTrace('A');
    assert.equal(trace.line('received', 'this is not json', false), '[trace A] ← unparseable line (16 chars)');
    assert.equal(trace.line('received', 'this is not json', true), '[trace A] ← unparseable line (16 chars) this is not json');
    assert.equal(trace.line('received', '[1,2,3]', false), '[trace A] ← not a JSON-RPC message');
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 9, result: {} }), false),
      '[trace A] ← response #9',
      'an answer to nothing we asked',
    );
  });

  it('keeps hostile lines short: a 32 MB line, 5,000 levels of nesting, a huge method name or id', () => {
    const trace = new MessageTrace('A');
    const huge = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"text":"${'a'.repeat(32 * 1024 * 1024)}"}}`;
    assert.equal(trace.line('received', huge, true), `[trace A] ← a line of ${huge.length.toLocaleString('en-US')} chars, too long to trace`);
    const deep = `{"jsonrpc":"2.0","id":2,"method":"session/update","params":{"_meta":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const traced = trace.line('received', deep, true);
    assert.ok(traced.startsWith('[trace A] ← request session/update #2 {"_meta":[[['), traced.slice(0, 80));
    assert.ok(traced.length < 2200, `${traced.length} chars`);
    const nested = `{"jsonrpc":"2.0","id":${'['.repeat(5000)}${']'.repeat(5000)},"result":{}}`;
    assert.ok(trace.line('received', nested, true).length < 2400);
    const long = 'm'.repeat(500_000);
    for (const message of [
      { jsonrpc: '2.0', id: long, method: long },
      { jsonrpc: '2.0', id: long, result: {} },
      { jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: long } } },
    ]) {
      const head = trace.line('received', line(message), false);
      assert.ok(head.length < 400, `${head.length} chars: ${head.slice(0, 80)}`);
    }
  });

  it('remembers a bounded number of requests in flight, forgetting the oldest', () => {
    const trace = new MessageTrace('A', { maxPending: 2, now: () => 0 });
    for (const id of [1, 2, 3]) trace.line('sent', line({ jsonrpc: '2.0', id, method: `m${id}`, params: {} }), false);
    assert.equal(trace.remembered, 2);
    assert.equal(trace.line('received', line({ jsonrpc: '2.0', id: 1, result: {} }), false), '[trace A] ← response #1');
    assert.equal(trace.line('received', line({ jsonrpc: '2.0', id: 3, result: {} }), false), '[trace A] ← response m3 #3 (0 ms)');
  });
});

describe('MessageTrace (verbose)', () => {
  it('adds the payload: params for requests and notifications, the result or the error for answers', () => {
    const trace = new MessageTrace('A', { now: () => 0 });
    assert.equal(
      trace.line(
        'sent',
        line({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } }),
        true,
      ),
      '[trace A s1] → request session/prompt #2 {"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}',
    );
    assert.equal(
      trace.line('received', line({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }), true),
      '[trace A s1] ← response session/prompt #2 (0 ms) {"stopReason":"end_turn"}',
    );
    assert.equal(trace.line('sent', line({ jsonrpc: '2.0', method: 'x/ping' }), true), '[trace A] → notification x/ping (no payload)');
  });

  it('elides a long payload in the middle and says how many characters were left out', () => {
    const trace = new MessageTrace('A', { maxPayloadChars: 2000 });
    const content = `START${'x'.repeat(10_000)}END`;
    const traced = trace.line(
      'received',
      line({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: content } } },
      }),
      true,
    );
    const payload = JSON.stringify({ sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: content } } });
    const match = /…\[(\d+) chars left out\]…/.exec(traced);
    assert.ok(match, traced.slice(0, 200));
    assert.equal(Number(match[1]), payload.length - 2000);
    assert.ok(traced.includes('{"sessionId":"s1"'), 'the start is kept');
    assert.ok(traced.endsWith('END"}}}'), 'the end is kept');
    assert.ok(traced.length < 2200);
  });

  it('redacts MCP servers\u2019 env and headers in session/new, and terminal/create env, keeping the names', () => {
    const trace = new MessageTrace('A');
    const newSession = trace.line(
      'sent',
      line({
        jsonrpc: '2.0',
        id: 1,
        method: 'session/new',
        params: {
          cwd: '/w',
          mcpServers: [
            { name: 'db', command: 'mcp-db', args: ['--port', '5432'], env: [{ name: 'DB_PASSWORD', value: 'hunter2-db' }] },
            { type: 'http', name: 'gh', url: 'https://mcp.example', headers: [{ name: 'Authorization', value: 'Bearer ghp_SECRET' }] },
          ],
        },
      }),
      true,
    );
    assert.ok(!newSession.includes('hunter2-db') && !newSession.includes('ghp_SECRET'), newSession);
    assert.match(newSession, /"env":\[\{"name":"DB_PASSWORD","value":"<redacted>"\}\]/);
    assert.match(newSession, /"headers":\[\{"name":"Authorization","value":"<redacted>"\}\]/);
    assert.match(newSession, /"args":\["--port","5432"\]/, 'everything else is kept');
    const terminal = trace.line(
      'received',
      line({
        jsonrpc: '2.0',
        id: 4,
        method: 'terminal/create',
        params: { sessionId: 's1', command: 'npm', args: ['test'], env: [{ name: 'NPM_TOKEN', value: 'npm_abcdef' }] },
      }),
      true,
    );
    assert.ok(!terminal.includes('npm_abcdef'), terminal);
    assert.match(terminal, /"env":\[\{"name":"NPM_TOKEN","value":"<redacted>"\}\]/);
  });
});

describe('elide', () => {
  it('keeps short text whole and cuts long text to the bound plus a note', () => {
    assert.equal(elide('abc', 3), 'abc');
    assert.equal(elide('abcdefghij', 4), 'abc …[6 chars left out]… j');
    assert.equal(elide('abcdefghij', 1), 'a …[9 chars left out]');
  });

  it('never cuts a surrogate pair in two', () => {
    const text = '😀'.repeat(10);
    const cut = elide(text, 7);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cut), cut);
  });
});

describe('messageTracer (the adapter)', () => {
  function recording(): { log: Logger; lines: string[] } {
    const lines: string[] = [];
    const none = () => {};
    return { log: { trace: none, debug: none, info: (m) => lines.push(m), warn: none, error: none }, lines };
  }

  it('logs nothing while acp.trace is off, and follows a change of the setting at once', () => {
    const { log, lines } = recording();
    let level: TraceLevel = 'off';
    const trace = messageTracer(log, 'Codex', () => level);
    trace('sent', line({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's1' } }));
    trace('received', 'not json');
    assert.deepEqual(lines, []);
    level = 'messages';
    trace('sent', line({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1' } }));
    level = 'verbose';
    trace('received', line({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }));
    assert.equal(lines[0], '[trace Codex s1] → request session/prompt #2');
    assert.match(lines[1] ?? '', /^\[trace Codex s1\] ← response session\/prompt #2 \(\d+ ms\) \{"stopReason":"end_turn"\}$/);
  });
});
