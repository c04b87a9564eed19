// What the fake model servers share: one HTTP server on 127.0.0.1 (a free port), a key each request must carry, and
// the request's body read whole before the server's own handler answers it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class FakeModelServer {
  readonly key: string;
  private server: Server | undefined;
  /** Numbers the ids of messages, responses and tool calls. */
  protected ids = 0;

  constructor(keyPrefix: string) {
    this.key = `${keyPrefix}${randomUUID()}`;
  }

  /** Listens; resolves with `http://127.0.0.1:<port>`. */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.receive(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.handle(req, res, Buffer.concat(chunks).toString('utf8'));
  }

  /** Answers one request whose body is `body`. */
  protected abstract handle(req: IncomingMessage, res: ServerResponse, body: string): void;
}
