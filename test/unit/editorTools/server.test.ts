// The editor tools' MCP server, for real on loopback, with the official MCP client: a session's secret lists and calls
// the tools; no secret, a revoked one, an Origin header, another Host, a body too large, a GET and too many requests
// at once are each refused with their status; a tool that fails or answers too much is the agent's to read.
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { silentLogger } from '../../../src/acp/log';
import { Grants } from '../../../src/editorTools/grants';
import { EditorToolsServer } from '../../../src/editorTools/server';
import { tool, type EditorTool } from '../../../src/editorTools/tools';
import { waitFor } from '../../lib/wait';

/** The releases of the `hold` calls running (for the bound on requests at once). */
const held: (() => void)[] = [];

const TOOLS: readonly EditorTool[] = [
  tool({ name: 'echo', description: 'says it back', input: { text: z.string() }, run: async ({ text }) => ({ value: { said: text } }) }),
  tool({ name: 'fails', description: 'throws', input: {}, run: async () => Promise.reject(new Error('the language server crashed')) }),
  tool({
    name: 'flood',
    description: 'too much',
    input: {},
    run: async () => ({ value: { items: Array.from({ length: 20_000 }, (_, i) => `entry ${i}`) } }),
  }),
  tool({ name: 'hold', description: 'waits', input: {}, run: () => new Promise((resolve) => held.push(() => resolve({ value: 'released' }))) }),
];

interface Raw {
  readonly status: number;
  readonly body: string;
}

/** A raw POST to `url` with `headers` and `body`. */
function post(url: string, headers: Record<string, string>, body: string, method = 'POST'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const CALL_HOLD = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hold', arguments: {} } });

describe('editor tools: the MCP server', function () {
  this.timeout(20_000);
  let server: EditorToolsServer;
  let grants: Grants;
  let url: string;
  const calls: string[] = [];
  const context = {
    review: async () => 'rejected' as const,
    askToRun: async () => ({ allowed: false, why: 'rejected' }) as const,
    folders: ['/nowhere'],
    allowed: (name: string) => (name === 'echo' || name === 'fails' || name === 'flood' || name === 'hold' ? undefined : 'no'),
  };

  beforeEach(async () => {
    calls.length = 0;
    const log = { ...silentLogger, info: (line: string) => calls.push(line) };
    grants = new Grants(log);
    server = new EditorToolsServer(grants, () => TOOLS, log);
    url = await server.url();
  });

  afterEach(() => server.dispose());

  async function client(secret: string): Promise<Client> {
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
    return c;
  }

  it('listens on 127.0.0.1 only, and serves a session its tools with its secret', async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const grant = grants.grant(() => 'Agent session s1', context);
    const c = await client(grant.secret);
    assert.deepEqual(
      (await c.listTools()).tools.map((t) => t.name),
      ['echo', 'fails', 'flood', 'hold'],
    );
    const echoed = await c.callTool({ name: 'echo', arguments: { text: 'hello' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: '{"said":"hello"}' }]);
    assert.ok(calls.includes('[editor-tools] echo for Agent session s1'), 'the call is logged with its tool and session');
    assert.ok(!calls.some((line) => line.includes(grant.secret)), 'never the secret');
    await c.close();
  });

  it('gives a failing tool and a bad argument to the agent as errors, and bounds a large answer with a note', async () => {
    const c = await client(grants.grant(() => 's', context).secret);
    const failed = await c.callTool({ name: 'fails', arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(JSON.stringify(failed.content), /the language server crashed/);
    const bad = await c.callTool({ name: 'echo', arguments: { text: 42 } });
    assert.equal(bad.isError, true, 'the arguments are checked against the schema');
    const flood = await c.callTool({ name: 'flood', arguments: {} });
    const text = (flood.content as { text: string }[])[0]!.text;
    assert.ok(Buffer.byteLength(text) <= 64 * 1024, `bounded: ${Buffer.byteLength(text)} bytes`);
    assert.match(JSON.parse(text).cut, /entries were cut: the answer is bounded at 64 KB/);
    await c.close();
  });

  it('refuses no secret, a revoked or unknown one, an Origin, another Host, a GET and a body too large', async () => {
    const grant = grants.grant(() => 's', context);
    const auth = { Authorization: `Bearer ${grant.secret}` };
    assert.equal((await post(url, {}, LIST)).status, 401, 'no secret');
    assert.equal((await post(url, { Authorization: 'Bearer not-the-secret' }, LIST)).status, 401, 'an unknown secret');
    assert.equal((await post(url, { ...auth, Origin: 'http://127.0.0.1:1234' }, LIST)).status, 403, 'a web page');
    assert.equal((await post(url, { ...auth, Host: 'evil.example:80' }, LIST)).status, 403, 'DNS rebinding');
    assert.equal((await post(url, auth, '', 'GET')).status, 405);
    assert.equal((await post(url.replace(/\/mcp$/, '//['), auth, LIST)).status, 404, 'a target that is not a URL');
    assert.equal((await post(url, auth, 'x'.repeat(300 * 1024))).status, 413);
    assert.equal((await post(url, auth, LIST)).status, 200, 'the same request with its secret');
    const other = grants.grant(() => 'other', context);
    grant.revoke();
    assert.equal((await post(url, auth, LIST)).status, 401, 'revoked');
    assert.equal((await post(url, { Authorization: `Bearer ${other.secret}` }, LIST)).status, 200, 'another session keeps its own');
  });

  it('answers at most four requests of a session at once, and tells the fifth to retry', async () => {
    const auth = { Authorization: `Bearer ${grants.grant(() => 's', context).secret}` };
    held.length = 0;
    const running: Promise<Raw>[] = [];
    for (let i = 0; i < 4; i++) {
      running.push(post(url, auth, CALL_HOLD));
      await waitFor(() => held.length === i + 1, { what: `held call ${i + 1} to run` });
    }
    const fifth = await post(url, auth, CALL_HOLD);
    assert.equal(fifth.status, 429);
    for (const r of held) r();
    for (const answer of await Promise.all(running)) assert.equal(answer.status, 200);
    assert.equal((await post(url, auth, LIST)).status, 200, 'and serves again once they are answered');
  });

  it('serves a session at once while any account of this computer holds connections that send nothing, and drops those', async () => {
    const grant = grants.grant(() => 's', context);
    const { port } = new URL(url);
    // More silent connections than the server holds unproven: it drops the oldest of them, never the newcomer.
    const silent: Socket[] = [];
    let dropped = 0;
    for (let i = 0; i < 150; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => dropped++);
      silent.push(socket);
    }
    await waitFor(() => silent.every((s) => s.readyState !== 'opening'), { what: 'the silent connections' });
    const answered = await post(url, { Authorization: `Bearer ${grant.secret}` }, LIST);
    assert.equal(answered.status, 200, answered.body);
    await waitFor(() => dropped >= 100, { what: 'the oldest silent connections to be dropped' });
    // The rest are dropped once they have not shown a secret in time.
    await waitFor(() => dropped === silent.length, { timeoutMs: 10_000, what: 'every silent connection to be dropped' });
    for (const socket of silent) socket.destroy();
  });

  it('refuses a batch (one message a request), so that one request cannot run many calls', async () => {
    const auth = { Authorization: `Bearer ${grants.grant(() => 's', context).secret}` };
    held.length = 0;
    const batch = JSON.stringify(
      Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'hold', arguments: {} } })),
    );
    const { status, body } = await post(url, auth, batch);
    assert.equal(status, 400);
    assert.match(body, /Batches are not served/);
    assert.equal(held.length, 0, 'none of them ran');
  });
});
