// An agent at a URL (src/acp/socket.ts) against real WebSocket servers on loopback: which URLs are taken, one message
// per text frame through the client's own pipeline, the token on the upgrade, and each way a hostile or broken server
// ends the connection with its reason said.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { AgentDisconnectedError } from '../../../src/acp/errors';
import type { ClientHandler } from '../../../src/acp/inbound';
import { readAgentUrl } from '../../../src/acp/agentUrl';
import { AgentSocket, type AgentSocketOptions } from '../../../src/acp/socket';
import { serveHostile, type Hostility } from '../../lib/hostileSocket';

const handler: ClientHandler = {
  requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
  sessionUpdate: () => {},
};
const clientInfo = { name: 'test', version: '0' };

function connect(url: string, options: AgentSocketOptions = {}, headers?: Record<string, string>): AgentSocket {
  return AgentSocket.connect({ url, ...(headers ? { headers } : {}) }, handler, { clientInfo }, options);
}

async function endOf(socket: AgentSocket): Promise<AgentDisconnectedError> {
  const end = await socket.exited;
  assert.ok(end instanceof AgentDisconnectedError, `a disconnection, not ${end.name}`);
  return end;
}

/** An agent that answers initialize pretty-printed (line breaks inside one frame), and records what it got. */
async function politeAgent(): Promise<{ url: string; frames: string[]; headers: string[]; close(): Promise<void> }> {
  const frames: string[] = [];
  const headers: string[] = [];
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket, request) => {
    headers.push(String(request.headers.authorization ?? ''));
    socket.on('message', (data) => {
      const text = String(data);
      frames.push(text);
      const message = JSON.parse(text) as { id?: number; method?: string };
      if (message.method === 'initialize') {
        const result = { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'far-agent', version: '1.0.0' } };
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }, null, 2));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/acp`,
    frames,
    headers,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('an agent at a URL', () => {
  it('takes wss anywhere and ws on this machine only, and says why it refuses any other URL', () => {
    assert.equal('url' in readAgentUrl('wss://agents.example.com/acp'), true);
    assert.equal('url' in readAgentUrl('ws://127.0.0.1:8080/acp'), true);
    assert.equal('url' in readAgentUrl('ws://localhost:8080/acp'), true);
    assert.equal('url' in readAgentUrl('ws://[::1]:8080/acp'), true);
    const refused = (raw: string) => {
      const read = readAgentUrl(raw);
      return 'problem' in read ? [read.problem, read.host, read.detail] : undefined;
    };
    assert.deepEqual(refused('ws://agents.example.com/acp'), ['insecure', 'agents.example.com', '']);
    assert.deepEqual(refused('ws://127.0.0.1.example.com/acp')?.[0], 'insecure', 'a name that only starts like loopback');
    assert.deepEqual(refused('ws://localhost.example.com/acp')?.[0], 'insecure');
    assert.deepEqual(refused('ws://agent.localhost/acp')?.[0], 'insecure', 'a *.localhost name may ask DNS');
    assert.deepEqual(refused('ws://127.0.0.2/acp')?.[0], 'insecure', 'VS Code’s proxy goes direct for 127.0.0.1 alone');
    assert.deepEqual(refused('ws://[::ffff:127.0.0.1]/acp')?.[0], 'insecure');
    const http = readAgentUrl('https://agents.example.com/acp');
    assert.equal('url' in http && http.transport, 'http', 'an https URL is Streamable HTTP');
    const local = readAgentUrl('http://localhost:8080/acp');
    assert.equal('url' in local && local.transport, 'http', 'plain http on this machine');
    assert.deepEqual(refused('http://agents.example.com/acp'), ['insecure', 'agents.example.com', '']);
    assert.match(String(refused('wss://me:secret@agents.example.com/acp')?.[2]), /set a token instead/);
    assert.match(String(refused('not a url')?.[2]), /not a URL/);
    assert.match(String(refused('ftp://agents.example.com')?.[2]), /not a WebSocket or HTTP URL/);
  });

  it('speaks one JSON-RPC message per text frame, line breaks inside a frame and all, with the token on the upgrade', async () => {
    const agent = await politeAgent();
    const socket = connect(agent.url, {}, { Authorization: 'Bearer sekrit-token' });
    try {
      const answer = await socket.connection.initialize({}, AbortSignal.timeout(5000), 1);
      assert.equal(answer.agentInfo?.name, 'far-agent', 'a pretty-printed answer is one message');
      assert.equal(socket.host, `127.0.0.1:${new URL(agent.url).port}`);
      assert.deepEqual(agent.headers, ['Bearer sekrit-token']);
      assert.equal(agent.frames.length, 1);
      assert.equal((JSON.parse(agent.frames[0]!) as { method: string }).method, 'initialize', 'one whole message, no trailing newline');
      await socket.dispose();
      const end = await endOf(socket);
      assert.equal(end.reason, 'closed');
      assert.equal(end.expected, true, 'closed by the client: nothing to tell the user');
    } finally {
      await agent.close();
    }
  });

  it('hands over the last message the agent sent before it closed', async () => {
    const server = createServer();
    const wss = new WebSocketServer({ server });
    wss.on('connection', (peer) =>
      peer.once('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number };
        peer.send(
          JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'last', version: '1' } } }),
        );
        peer.close(1000);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const socket = connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const answer = await socket.connection.initialize({}, AbortSignal.timeout(5000), 1);
      assert.equal(answer.agentInfo?.name, 'last');
      const end = await endOf(socket);
      assert.equal(end.reason, 'closed', 'then the close, said as a close');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const hostile: [Hostility, AgentSocketOptions, string][] = [
    ['binary', {}, 'binaryFrame'],
    ['oversized', { maxFrameBytes: 64 * 1024 }, 'frameTooLarge'],
    ['silent', { pingIntervalMs: 50 }, 'unresponsive'],
    ['refuses', {}, 'unauthorized'],
  ];
  for (const [behaviour, options, reason] of hostile) {
    it(`closes the connection with a reason when the server is ${behaviour}: ${reason}`, async () => {
      const server = await serveHostile(behaviour, 100 * 1024);
      const socket = connect(server.url, options);
      try {
        const initialize = socket.connection.initialize({}, AbortSignal.timeout(10_000), 1);
        const end = await endOf(socket);
        assert.equal(end.reason, reason);
        assert.equal(end.expected, false);
        if (reason === 'unauthorized') assert.match(end.detail, /HTTP 401/);
        await assert.rejects(initialize, 'a request in flight fails, it is not left waiting');
      } finally {
        await socket.dispose();
        await server.close();
      }
    });
  }

  it('refuses a certificate Node does not trust, with Node’s words, and never falls back', async () => {
    const tls = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'tls');
    const server = createHttpsServer({ cert: readFileSync(join(tls, 'server.pem')), key: readFileSync(join(tls, 'server-key.pem')) });
    const wss = new WebSocketServer({ server });
    let connected = 0;
    wss.on('connection', () => connected++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const end = await endOf(connect(`wss://127.0.0.1:${(server.address() as AddressInfo).port}/acp`));
      assert.equal(end.reason, 'certificate');
      assert.match(end.detail, /certificate/i);
      assert.equal(connected, 0, 'no connection was made past the handshake');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('says a server that is not there is unreachable, and a ws URL off loopback is refused before connecting', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assert.equal((await endOf(connect(`ws://127.0.0.1:${port}/`))).reason, 'unreachable');
    const insecure = await endOf(connect('ws://agents.example.com/acp'));
    assert.equal(insecure.reason, 'insecure');
    assert.equal(insecure.host, 'agents.example.com');
  });
});
