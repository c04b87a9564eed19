// The bench's pipeline over WebSocket (src/acp/socket.ts): a `ws` server on loopback sends each line of the stream as
// one text frame, and the client takes them as an agent at a URL does, into the same session model. The server runs
// in the bench's own process, so its sending is counted too: the figure is an upper bound on the client's cost. The
// transport alone is measured beside it in the same setup: a bare `ws` client that only parses each frame.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { SessionModel } from '../../../src/acp/sessionModel';
import { AgentSocket } from '../../../src/acp/socket';

/** Frames sent per turn of the event loop, as a pipe's read delivers a run of lines. */
const FRAMES_PER_TURN = 300;

/** The transport alone, in the same setup: a bare `ws` client that parses each frame (`JSON.parse`) and applies nothing. */
export function bareWebSocket(lines: readonly string[]): Promise<number> {
  return overLoopback(lines, (url, each) => {
    const client = new WebSocket(url, { perMessageDeflate: false });
    client.on('message', (data) => {
      if (JSON.parse(String(data)) !== null) each();
    });
    return () => client.terminate();
  });
}

/** Milliseconds from the first frame sent until every update was applied. */
export function oursOverWebSocket(lines: readonly string[]): Promise<number> {
  return overLoopback(lines, (url, each) => {
    const model = new SessionModel('sess-1');
    const socket = AgentSocket.connect(
      { url },
      {
        requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
        sessionUpdate: (n) => {
          model.apply(n.update);
          each();
        },
      },
      { clientInfo: { name: 'bench', version: '0' } },
    );
    return async () => {
      await socket.dispose();
      model.dispose();
    };
  });
}

/**
 * Sends `lines` as text frames from a loopback server to the client `connect` makes (which calls `each` per message),
 * paced as reads of a socket arrive; resolves with the milliseconds until the client had them all.
 */
async function overLoopback(lines: readonly string[], connect: (url: string, each: () => void) => () => unknown): Promise<number> {
  const server = createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  let received = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const connected = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const close = connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`, () => {
    if (++received === lines.length) done();
  });
  const peer = await connected;
  const start = performance.now();
  let i = 0;
  const next = () => {
    for (const end = Math.min(lines.length, i + FRAMES_PER_TURN); i < end; i++) peer.send(lines[i]!);
    if (i < lines.length) setImmediate(next);
  };
  next();
  await all;
  const ms = performance.now() - start;
  await close();
  wss.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return ms;
}
