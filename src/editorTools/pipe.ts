// The editor's tools for agents that take MCP servers over stdio only: the agent runs the bundled bridge
// (dist/mcp-stdio.js), which connects here, over a Unix socket in a folder only the user can open (a named pipe on
// Windows), proves itself with its session's secret on the first line, and then carries MCP's newline-delimited
// JSON-RPC both ways. Bounded like the HTTP way: the first line, each message, connections per session and in all.
// Plain Node: unit-tested over a real socket.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import * as path from 'node:path';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { Grants, LiveGrant } from './grants';
import { loadMcp } from './mcpLoader';
import { socketFolderPrefix, sweepStaleSocketFolders } from './staleSockets';
import type { EditorTool } from './tools';

/** The first line (the secret) must come within this time and size. */
const HELLO_MS = 5000;
const HELLO_BYTES = 256;
/** One JSON-RPC message is at most this big. */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** Bridges connected at once, for one session and in all. */
const MAX_PER_GRANT = 4;
const MAX_IN_ALL = 32;

export class EditorToolsPipe {
  private server: Server | undefined;
  private listening: Promise<string> | undefined;
  private folder: string | undefined;
  private readonly connections = new Map<LiveGrant, number>();
  private open = 0;

  constructor(
    private readonly grants: Grants,
    private readonly tools: () => readonly EditorTool[],
    private readonly log: Logger,
  ) {}

  /** The socket's path (it starts listening on the first call). */
  address(): Promise<string> {
    this.listening ??= new Promise<string>((resolve, reject) => {
      let address: string;
      if (process.platform === 'win32') address = `\\\\.\\pipe\\acp-editor-tools-${randomBytes(16).toString('hex')}`;
      else {
        // mkdtemp makes the folder 0700: no other user can reach the socket in it. Its name says whose it is, so
        // that the folders of extension hosts that were killed can be told and removed (staleSockets.ts).
        this.folder = mkdtempSync(socketFolderPrefix());
        address = path.join(this.folder, 's');
        void sweepStaleSocketFolders(this.log);
      }
      const server = createServer((socket) => this.accept(socket));
      server.maxConnections = MAX_IN_ALL;
      server.once('error', (error) => {
        this.listening = undefined;
        reject(error);
      });
      server.listen(address, () => {
        this.server = server;
        this.log.info('[editor-tools] the stdio bridge can connect');
        resolve(address);
      });
    });
    return this.listening;
  }

  /** Whether it listens. */
  get started(): boolean {
    return this.server !== undefined;
  }

  dispose(): void {
    this.server?.close();
    this.server = undefined;
    this.listening = undefined;
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    let hello = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), HELLO_MS);
    const onData = (chunk: Buffer) => {
      hello = Buffer.concat([hello, chunk]);
      const end = hello.indexOf('\n');
      if (end < 0) {
        if (hello.length > HELLO_BYTES) socket.destroy();
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      const grant = this.grants.find(hello.subarray(0, end).toString('utf8').trim());
      if (!grant) {
        this.log.warn('[editor-tools] a bridge connected without a live secret; closed');
        socket.end('unauthorized\n');
        return;
      }
      const rest = hello.subarray(end + 1);
      void this.serve(socket, grant, rest);
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  }

  private async serve(socket: Socket, grant: LiveGrant, rest: Buffer): Promise<void> {
    const count = this.connections.get(grant) ?? 0;
    if (count >= MAX_PER_GRANT) {
      socket.end('too many connections\n');
      return;
    }
    this.connections.set(grant, count + 1);
    this.open++;
    let mcp: { close(): Promise<void> } | undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.open--;
      const left = (this.connections.get(grant) ?? 1) - 1;
      if (left > 0) this.connections.set(grant, left);
      else this.connections.delete(grant);
      void mcp?.close().catch(() => undefined);
      socket.destroy();
    };
    socket.once('close', close);
    let sdk;
    try {
      sdk = await loadMcp();
    } catch (error) {
      this.log.warn(`[editor-tools] a bridge of ${grant.label()} could not be served: ${errorMessage(error)}`);
      close();
      return;
    }
    if (closed) return;
    const server = sdk.toolServer(this.tools(), grant, this.log);
    const transport = sdk.stdioTransport(socket, socket, MAX_MESSAGE_BYTES);
    mcp = server;
    transport.onerror = () => close();
    await server.connect(transport);
    if (rest.length > 0) socket.unshift(rest);
    socket.resume();
  }
}
