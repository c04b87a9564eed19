// A real HTTP server on loopback for registry tests: it serves a registry document and archives, with ETags, and
// misbehaves on request (hangs, cuts a body short, claims a size it never sends, redirects, streams without end).
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Route =
  /** A body; `etag` sends an ETag and answers a matching If-None-Match with 304; `chunkDelayMs` sends it slowly. */
  | { body: Buffer | string; type?: string; etag?: boolean; chunkDelayMs?: number; chunkBytes?: number }
  /** Takes the request and never answers. */
  | { hang: true }
  /** Claims `claim` bytes, sends `truncate`, and closes the connection. */
  | { truncate: Buffer; claim: number }
  /** A status, with a Location for redirects. */
  | { status: number; location?: string }
  /** `stream` bytes of zeros in chunks, with no Content-Length. */
  | { stream: number };

export class RegistryServer {
  readonly requests: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<RegistryServer> {
    let self: RegistryServer | undefined;
    const server = http.createServer((req, res) => self?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new RegistryServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  url(path: string): string {
    return this.origin + path;
  }

  route(path: string, route: Route): void {
    this.routes.set(path, route);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = new URL(req.url ?? '/', this.origin).pathname;
    this.requests.push({ path, headers: req.headers });
    const route = this.routes.get(path);
    if (!route) {
      res.writeHead(404).end('not found');
      return;
    }
    if ('hang' in route) return;
    if ('status' in route) {
      res.writeHead(route.status, route.location ? { location: route.location } : {}).end();
      return;
    }
    if ('truncate' in route) {
      res.writeHead(200, { 'content-length': String(route.claim) });
      res.write(route.truncate, () => res.socket?.destroy());
      return;
    }
    if ('stream' in route) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let left = route.stream;
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (left > 0) {
          const part = chunk.subarray(0, Math.min(chunk.length, left));
          left -= part.length;
          if (!res.write(part)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      pump();
      return;
    }
    const body = typeof route.body === 'string' ? Buffer.from(route.body) : route.body;
    const headers: Record<string, string> = { 'content-type': route.type ?? 'application/octet-stream', 'content-length': String(body.length) };
    if (route.etag) {
      const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
      headers['etag'] = etag;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag }).end();
        return;
      }
    }
    res.writeHead(200, headers);
    if (!route.chunkDelayMs) {
      res.end(body);
      return;
    }
    const size = route.chunkBytes ?? 1024;
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(body.subarray(at, at + size));
      at += size;
      if (at >= body.length) {
        clearInterval(timer);
        res.end();
      }
    }, route.chunkDelayMs);
  }

  /** Stops the server, closing every connection (hanging ones too). */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
