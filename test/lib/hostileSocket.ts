// WebSocket servers on loopback that break the rules once a client connects, for the bounds of src/acp/socket.ts:
// a binary frame, a frame past the client's bound, an upgrade that is refused, or silence (no pong, no answer).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export type Hostility = 'binary' | 'oversized' | 'silent' | 'refuses';

/** A server that misbehaves once a client connects: a binary frame, a frame past the client's bound, or silence. */
export async function serveHostile(behaviour: Hostility, frameBytes = 33 * 1024 * 1024): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer();
  if (behaviour === 'refuses') {
    server.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
  }
  const wss = new WebSocketServer({
    noServer: behaviour === 'refuses',
    ...(behaviour === 'refuses' ? {} : { server }),
    autoPong: behaviour !== 'silent',
  });
  wss.on('connection', (socket) => {
    if (behaviour === 'binary') socket.send(Buffer.from([1, 2, 3]), { binary: true });
    if (behaviour === 'oversized') socket.send(`{"jsonrpc":"2.0","method":"x","params":{"pad":"${'x'.repeat(frameBytes)}"}}`);
    // 'silent': it takes the connection, answers nothing and no ping.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
