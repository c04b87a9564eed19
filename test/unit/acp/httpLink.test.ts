// An agent at an http(s) URL (src/acp/httpLink.ts, the SDK's Streamable HTTP client stream) against real HTTP servers
// on loopback that misbehave: a server that never answers cannot hold a close past its grace, and an error status or
// a refused token ends the connection with the reason said, and an event too large for a message ends it before it
// is held in memory.
import * as assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentDisconnectedError } from '../../../src/acp/errors';
import type { ClientHandler } from '../../../src/acp/inbound';
import { openAgent } from '../../../src/acp/openAgent';
import { silentLogger } from '../../../src/acp/log';
import { waitFor } from '../../lib/wait';

const handler: ClientHandler = {
  requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
  sessionUpdate: () => {},
};

/** A server that answers every request with `respond` (or holds it, when `respond` does nothing). */
async function serve(
  respond: (response: ServerResponse, request: IncomingMessage) => void,
): Promise<{ url: string; held: ServerResponse[]; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    held.push(response);
    respond(response, request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`,
    held,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function connect(url: string) {
  return openAgent({ url }, handler, { clientInfo: { name: 'test', version: '0' } }, { log: silentLogger, trace: undefined, killGraceMs: undefined });
}

describe('an agent at an http URL', () => {
  it('cuts a close that the server holds, and fails the request in flight', async () => {
    const server = await serve(() => {}); // never answers
    const link = connect(server.url);
    try {
      const initialize = link.connection.initialize({}, undefined, 1);
      await waitFor(() => server.held.length > 0, { what: 'the initialize request to reach the server' });
      await link.dispose(); // resolves after the grace period at most, not when the server answers
      const end = await link.exited;
      assert.ok(end instanceof AgentDisconnectedError);
      assert.equal(end.expected, true);
      await assert.rejects(initialize);
    } finally {
      await server.close();
    }
  });

  it('says a refused token, and another status with the server’s words', async () => {
    const refused = await serve((response) => response.writeHead(401).end());
    const missing = await serve((response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no agent here'));
    try {
      const unauthorized = connect(refused.url);
      void unauthorized.connection.initialize({}, undefined, 1).catch(() => undefined);
      const a = await unauthorized.exited;
      assert.ok(a instanceof AgentDisconnectedError);
      assert.equal(a.reason, 'unauthorized');
      assert.equal(a.detail, 'HTTP 401');
      const notFound = connect(missing.url);
      void notFound.connection.initialize({}, undefined, 1).catch(() => undefined);
      const b = await notFound.exited;
      assert.ok(b instanceof AgentDisconnectedError);
      assert.equal(b.reason, 'error');
      assert.match(b.detail, /404.*no agent here/);
    } finally {
      await refused.close();
      await missing.close();
    }
  });

  it('ends the connection on an event stream message past the bound, without holding it whole', async () => {
    let written = 0;
    let cut = false;
    const server = await serve((response, request) => {
      if (request.method === 'POST') {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const { id } = JSON.parse(body) as { id: number };
          response.writeHead(200, { 'content-type': 'application/json', 'acp-connection-id': 'c1' });
          response.end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
        });
        return;
      }
      if (request.method !== 'GET') return void response.writeHead(200).end();
      // One event that never ends: 40 MiB of a string, written as the client takes it.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":"');
      response.once('close', () => (cut = true));
      const chunk = 'x'.repeat(1024 * 1024);
      const more = () => {
        while (!cut && written < 40) {
          written++;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
      };
      more();
    });
    const link = connect(server.url);
    try {
      await link.connection.initialize({}, undefined, 1);
      const end = await link.exited;
      assert.ok(end instanceof AgentDisconnectedError);
      assert.equal(end.reason, 'frameTooLarge');
      await waitFor(() => cut, { what: 'the event stream to be cut' });
      assert.ok(written < 40, `cut after ${written} MiB of 40`);
    } finally {
      await server.close();
    }
  });
});
