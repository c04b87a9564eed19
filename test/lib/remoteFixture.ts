// The fixture agent on "another machine": the SDK's own server (`AcpServer` with its Node upgrade handler over the
// `ws` library, or its Node HTTP handler for Streamable HTTP) on loopback, plain or over TLS, each connection a
// fixture agent subprocess behind it, and a check of the bearer token before anything reaches it, as a real
// deployment puts in front of it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocketServer } from 'ws';

type Message = Parameters<WritableStreamDefaultWriter<AnyMessage>['write']>[0];

export interface RemoteAgent {
  /** `ws://127.0.0.1:<port>/acp` */
  readonly url: string;
  /** The agents the server ran, one per connection. */
  readonly children: readonly ChildProcess[];
  /** Cuts every connection (as a network drop does), and keeps listening. */
  dropConnections(): void;
  close(): Promise<void>;
}

/**
 * Serves the fixture agent with `scenario` over WebSocket on loopback: with `tls`, as wss:// behind the certificate
 * only the tests trust (test/fixtures/tls); a `token` makes the server refuse any other.
 */
export async function serveRemoteFixture(
  /** The bundled fixture agent (out/test/fixtures/agent.js). */
  agentPath: string,
  scenario: string,
  /** `http`: Streamable HTTP (the SDK's Node HTTP handler) instead of WebSocket. */
  options: { readonly env?: Record<string, string>; readonly token?: string; readonly tls?: boolean; readonly http?: boolean } = {},
): Promise<RemoteAgent> {
  const { env = {}, token } = options;
  const children: ChildProcess[] = [];
  /** Every TCP connection to the server: a WebSocket's, or Streamable HTTP's requests and event streams. */
  const sockets = new Set<Duplex>();
  const acp = new AcpServer({
    createAgent: () => ({
      connect(stream) {
        const child = spawn(process.execPath, [agentPath, '--scenario', scenario], {
          env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ACP_FIXTURE_MAX_LIFETIME_MS: '90000', ...env },
          stdio: ['pipe', 'pipe', 'ignore'],
        });
        children.push(child);
        const writer = stream.writable.getWriter();
        let partial = '';
        child.stdout!.setEncoding('utf8');
        child.stdout!.on('data', (text: string) => {
          const lines = (partial + text).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') void writer.write(JSON.parse(line) as Message).catch(() => undefined);
        });
        const closed = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        void (async () => {
          const reader = stream.readable.getReader();
          for (;;) {
            const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
            if (done) break;
            child.stdin!.write(`${JSON.stringify(value)}\n`);
          }
          child.stdin!.end();
        })();
        void closed.then(() => writer.close().catch(() => undefined));
        return { closed };
      },
    }),
  });
  const wss = new WebSocketServer({ noServer: true });
  const upgrade = createNodeWebSocketUpgradeHandler(acp, wss);
  const refused = (request: IncomingMessage) => token !== undefined && request.headers.authorization !== `Bearer ${token}`;
  const overHttp = createNodeHttpHandler(acp);
  const notFound = (request: IncomingMessage, response: ServerResponse) => {
    if (!options.http) return void response.writeHead(404).end();
    if (refused(request)) return void response.writeHead(401).end();
    overHttp(request, response);
  };
  // Next to the bundled agent (out/test/fixtures): the certificates stay in the source tree.
  const tls = join(dirname(agentPath), '..', '..', '..', 'test', 'fixtures', 'tls');
  const server = options.tls
    ? createHttpsServer({ cert: readFileSync(join(tls, 'server.pem')), key: readFileSync(join(tls, 'server-key.pem')) }, notFound)
    : createServer(notFound);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refused(request)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    upgrade(request, socket, head);
  });
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const scheme = options.http ? (options.tls ? 'https' : 'http') : options.tls ? 'wss' : 'ws';
  const url = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/acp`;
  return {
    url,
    children,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await acp.close();
      for (const child of children) child.kill();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
