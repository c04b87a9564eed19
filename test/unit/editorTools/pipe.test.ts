// The stdio bridge's socket, for real: a connection that does not begin with a live secret is closed unserved; one
// that does speaks MCP's newline-delimited JSON-RPC with the session's tools; the socket's folder is the user's alone.
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { z } from 'zod';
import { silentLogger } from '../../../src/acp/log';
import { Grants } from '../../../src/editorTools/grants';
import { EditorToolsPipe } from '../../../src/editorTools/pipe';
import { tool } from '../../../src/editorTools/tools';
import { waitFor } from '../../lib/wait';

const TOOLS = [
  tool({ name: 'echo', description: 'says it back', input: { text: z.string() }, run: async ({ text }) => ({ value: { said: text } }) }),
];

/** A connection and the lines it has received. */
function open(address: string): Promise<{ socket: Socket; lines: string[]; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let buffer = '';
    let ended = false;
    const socket = connect(address, () => resolve({ socket, lines, closed: () => ended }));
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        lines.push(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
      }
    });
    socket.on('close', () => (ended = true));
    socket.on('error', reject);
  });
}

describe('editor tools: the stdio bridge’s socket', function () {
  this.timeout(20_000);
  let grants: Grants;
  let pipe: EditorToolsPipe;
  let address: string;
  const context = {
    folders: ['/nowhere'],
    allowed: () => undefined,
    review: async () => 'rejected' as const,
    askToRun: async () => ({ allowed: false, why: 'rejected' }) as const,
  };

  beforeEach(async () => {
    grants = new Grants(silentLogger);
    pipe = new EditorToolsPipe(grants, () => TOOLS, silentLogger);
    address = await pipe.address();
  });

  afterEach(() => pipe.dispose());

  it('lives in a folder only the user can open (a named pipe on Windows)', () => {
    if (process.platform === 'win32') assert.match(address, /^\\\\\.\\pipe\\acp-editor-tools-[0-9a-f]{32}$/);
    else assert.equal(statSync(dirname(address)).mode & 0o077, 0);
  });

  it('closes a connection without a live secret, and serves one with it', async () => {
    const wrong = await open(address);
    wrong.socket.write('not-a-secret\n');
    await waitFor(() => wrong.closed(), { what: 'the connection without a secret to be closed' });
    assert.deepEqual(wrong.lines, ['unauthorized']);

    const grant = grants.grant(() => 's', context);
    const right = await open(address);
    right.socket.write(`${grant.secret}\n`);
    const send = (message: object) => right.socket.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await waitFor(() => right.lines.length === 1, { what: 'the initialize answer' });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'over stdio' } } });
    await waitFor(() => right.lines.length === 2, { what: 'the tool call answer' });
    assert.deepEqual(JSON.parse(right.lines[1]!).result.content, [{ type: 'text', text: '{"said":"over stdio"}' }]);

    grant.revoke();
    const revoked = await open(address);
    revoked.socket.write(`${grant.secret}\n`);
    await waitFor(() => revoked.closed(), { what: 'a revoked secret to be refused' });
    right.socket.destroy();
  });
});
