// The editor's tools as an MCP server over Streamable HTTP, for the agents of this window: one server, started on first
// use, listening on 127.0.0.1 only. Each session gets a secret of its own (a grant), sent to its agent as a bearer
// token and revoked when the session ends; a request without a live one gets 401, one with an Origin header (a web
// page) 403. Requests are bounded in size, and in number at once, per grant and in all. Each request is answered by a
// fresh stateless MCP server (the official SDK's), so nothing lives between requests but the grants. Plain Node: no
// `vscode`, unit-tested with real HTTP on loopback.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { Grants } from './grants';
import { loadMcp } from './mcpLoader';
import type { EditorTool } from './tools';

/** A request body past this is refused (413): tool arguments are a path, a position, a query. */
const MAX_BODY_BYTES = 256 * 1024;
/** Requests answered at once, for one session and in all; past these the client is told to retry (429, 503). */
const MAX_PER_GRANT = 4;
const MAX_IN_ALL = 16;
/**
 * Connections that have not yet shown a live secret, held at once: past it, the oldest of them is dropped, never the
 * newcomer. Any account of this computer can connect to loopback; connections that send nothing must not keep out an
 * agent, whose request (with its secret) comes at once.
 */
const MAX_UNPROVEN = 64;
/** A connection that has not shown a live secret by then is dropped. */
const PROVE_MS = 3_000;
/** Connections at once in all: a backstop on the host's sockets. */
const MAX_CONNECTIONS = 512;
/** A request body that does not arrive in this time is dropped (a client that opens and never sends). */
const BODY_TIMEOUT_MS = 10_000;

const TOO_LARGE = Symbol('tooLarge');

export class EditorToolsServer {
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private inFlight = 0;
  /** Connections that have not shown a live secret yet, oldest first. */
  private readonly unproven = new Set<Socket>();

  constructor(
    private readonly grants: Grants,
    private readonly tools: () => readonly EditorTool[],
    private readonly log: Logger,
  ) {}

  /** The endpoint's URL, once the server listens (it starts on the first call). */
  async url(): Promise<string> {
    const port = await this.listen();
    return `http://127.0.0.1:${port}/mcp`;
  }

  /** `127.0.0.1:<port>` once it listens. */
  address(): string | undefined {
    const port = (this.server?.address() as AddressInfo | null)?.port;
    return port ? `127.0.0.1:${port}` : undefined;
  }

  /** A new connection: dropped unless it shows a live secret within PROVE_MS; the oldest unproven goes past the bound. */
  private admit(socket: Socket): void {
    this.unproven.add(socket);
    socket.setTimeout(PROVE_MS, () => socket.destroy());
    socket.once('close', () => this.unproven.delete(socket));
    if (this.unproven.size > MAX_UNPROVEN) {
      const oldest = this.unproven.values().next().value;
      this.unproven.delete(oldest!);
      oldest?.destroy();
    }
  }

  /** The connection showed a live secret: it is the agent's, and kept as HTTP keeps it. */
  private prove(socket: Socket): void {
    if (!this.unproven.delete(socket)) return;
    socket.setTimeout(0);
  }

  dispose(): void {
    this.unproven.clear();
    this.server?.close();
    this.server?.closeAllConnections();
    this.server = undefined;
    this.listening = undefined;
  }

  private listen(): Promise<number> {
    this.listening ??= new Promise<number>((resolve, reject) => {
      // Timeouts are checked every second (Node's default is every 30 s), so that a slow client is dropped in time.
      const server = createServer(
        { connectionsCheckingInterval: 1000, headersTimeout: PROVE_MS, requestTimeout: 60_000 },
        (req, res) => void this.handle(req, res),
      );
      server.maxHeadersCount = 64;
      server.maxConnections = MAX_CONNECTIONS;
      server.on('connection', (socket: Socket) => this.admit(socket));
      server.once('error', (error) => {
        this.listening = undefined;
        reject(error);
      });
      server.listen(0, '127.0.0.1', () => {
        this.server = server;
        const port = (server.address() as AddressInfo).port;
        this.log.info(`[editor-tools] listening on 127.0.0.1:${port}`);
        resolve(port);
      });
    });
    return this.listening;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.refusal(req);
    if (refused) {
      // Refused before its body is read: the connection is closed, not kept to drain what the client still sends.
      answer(res, refused.status, refused.text, refused.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}, true);
      return;
    }
    const grant = this.grants.find(bearer(req))!;
    this.prove(req.socket);
    if (this.inFlight >= MAX_IN_ALL || grant.requests >= MAX_PER_GRANT) {
      answer(res, this.inFlight >= MAX_IN_ALL ? 503 : 429, 'Too many requests at once; retry shortly.', { 'Retry-After': '1' }, true);
      return;
    }
    this.inFlight++;
    grant.requests++;
    let served: { close(): Promise<void> }[] = [];
    try {
      const body = await readBody(req);
      if (body === TOO_LARGE) return answer(res, 413, `A request is at most ${MAX_BODY_BYTES} bytes.`, {}, true);
      if (body === undefined) return answer(res, 400, 'The request body is not JSON.');
      // One message a request: MCP dropped batches (2025-06-18), and a batch would run many calls under one slot.
      if (Array.isArray(body)) return answer(res, 400, 'Batches are not served: send one JSON-RPC message a request.');
      const { toolServer, httpTransport } = await loadMcp();
      const mcp = toolServer(this.tools(), grant, this.log);
      const transport = httpTransport();
      served = [transport, mcp];
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      this.log.warn(`[editor-tools] a request for ${grant.label()} failed: ${errorMessage(error)}`);
      if (!res.headersSent) answer(res, 500, 'The request failed.');
    } finally {
      this.inFlight--;
      grant.requests--;
      for (const closing of served) void closing.close().catch(() => undefined);
    }
  }

  /** Why a request is refused before it is read, if it is. */
  private refusal(req: IncomingMessage): { status: number; text: string } | undefined {
    // A browser sends Origin: no web page may call the editor's tools. The Host must be ours (DNS rebinding).
    if (req.headers.origin !== undefined) return { status: 403, text: 'Requests from web pages are refused.' };
    const port = (this.server?.address() as AddressInfo | null)?.port;
    if (req.headers.host !== `127.0.0.1:${port}`) return { status: 403, text: 'Unexpected Host.' };
    const token = bearer(req);
    if (!this.grants.find(token)) return { status: 401, text: 'A valid bearer token is required.' };
    if (pathOf(req.url) !== '/mcp') return { status: 404, text: 'Not found.' };
    if (req.method !== 'POST') return { status: 405, text: 'Only POST is served (stateless, JSON responses).' };
    return undefined;
  }
}

/** The path a request names, or undefined when its target is not a URL (`//[`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://127.0.0.1').pathname;
  } catch {
    return undefined;
  }
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header) : null;
  return match?.[1];
}

/** A plain answer; `close`: the connection ends with it (a request whose body is not read). */
function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}, close = false): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    ...(close ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(text, () => {
    if (close) res.socket?.destroy();
  });
}

/** The JSON body, at most MAX_BODY_BYTES; undefined when it is not JSON. */
function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      req.resume();
      resolve(TOO_LARGE);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('the request body did not arrive in time'));
    }, BODY_TIMEOUT_MS);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        clearTimeout(timer);
        req.removeAllListeners('data');
        req.resume();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
