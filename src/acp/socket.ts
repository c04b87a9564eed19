// An agent at a URL: ACP over WebSocket, one JSON-RPC message per text frame, as the SDK's `ws-stream` transport and
// `ws-server` speak it. The frames go through the same pipeline as a subprocess's stdio (transport.ts: bounds, depth,
// ids, coalescing, the trace), each frame said as one line, so a remote agent is held to the same limits. The `ws`
// library makes the connection over Node's http/https, which VS Code's proxy and certificate settings already cover.
// TLS is required off loopback; a binary frame, an oversized frame or an agent that stops answering pings closes
// the connection with the reason said (errors.ts `AgentDisconnectedError`).
import { PassThrough, type Writable } from 'node:stream';
import WebSocket from 'ws';
import { AcpClientConnection, type ConnectionOptions } from './connection';
import { AgentDisconnectedError, errorMessage, type DisconnectReason } from './errors';
import type { ClientHandler } from './inbound';
import { silentLogger, tagged, type Logger } from './log';
import { lineSink, type LineTracer } from './ndjsonWriter';
import { agentTransport, type AgentEnd, type AgentLink } from './process';
import { failureOfConnection, readAgentUrl, type AgentRemote } from './agentUrl';

export interface AgentSocketOptions {
  readonly log?: Logger;
  readonly trace?: LineTracer;
  /** The largest frame taken (bytes); a larger one closes the connection. As a subprocess's line. */
  readonly maxFrameBytes?: number;
  /** How long the opening handshake may take. */
  readonly connectTimeoutMs?: number;
  /** How often the agent is pinged; no pong by the next ping closes the connection. */
  readonly pingIntervalMs?: number;
  /** How long a close may take before the connection is cut. */
  readonly closeGraceMs?: number;
}

const DEFAULT_MAX_FRAME = 32 * 1024 * 1024;

export class AgentSocket implements AgentLink {
  readonly connection: AcpClientConnection;
  readonly exited: Promise<AgentEnd>;
  readonly pid = undefined;
  readonly host: string;
  private readonly log: Logger;
  private socket: WebSocket | undefined;
  private readonly incoming = new PassThrough();
  private ended = false;
  private disposing = false;
  private settle!: (end: AgentEnd) => void;
  private pinger: NodeJS.Timeout | undefined;
  /** The client stopped reading the socket (backpressure): a pong cannot be read meanwhile, so none is missed. */
  private paused = false;
  /** The agent answered the last ping (or none was sent since the client read again). */
  private answered = true;
  /** Frames taken in this turn of the event loop, handed to the reader together (see `frame`). */
  private batch: Buffer[] = [];
  private readonly outgoingStream: Writable;

  private constructor(
    readonly remote: AgentRemote,
    handler: ClientHandler,
    connectionOptions: ConnectionOptions,
    private readonly options: AgentSocketOptions,
  ) {
    this.log = options.log ?? silentLogger;
    this.exited = new Promise((resolve) => (this.settle = resolve));
    const read = readAgentUrl(remote.url);
    this.host = read.host;
    const connectionLog = connectionOptions.log ?? this.log;
    const outgoing = (this.outgoingStream = this.outgoing());
    const { reader, writer } = agentTransport(this.incoming, outgoing, tagged(connectionLog, 'transport'), options.trace);
    outgoing.on('error', (error) => this.log.debug(`not sent: ${error.message}`));
    this.connection = new AcpClientConnection(reader, writer, handler, { ...connectionOptions, log: connectionLog, closeWhenInputEnds: false });
    if ('problem' in read) {
      queueMicrotask(() => this.finish(new AgentDisconnectedError(read.problem, read.host, read.detail)));
      return;
    }
    let socket: WebSocket;
    try {
      socket = new WebSocket(read.url, {
        headers: { ...remote.headers },
        maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME,
        handshakeTimeout: options.connectTimeoutMs ?? 30_000,
        perMessageDeflate: false,
        followRedirects: false,
      });
    } catch (error) {
      // A header value ws refuses (a token with a line break, say): said, not thrown.
      queueMicrotask(() => this.finish(new AgentDisconnectedError('error', this.host, errorMessage(error))));
      return;
    }
    this.socket = socket;
    outgoing.cork();
    socket.once('open', () => {
      this.log.info(`connected to ${this.host}`);
      outgoing.uncork();
      this.keepAlive(socket);
    });
    socket.on('message', (data, isBinary) => this.frame(data, isBinary));
    this.incoming.on('drain', () => {
      this.paused = false;
      this.answered = true; // a pong may have waited unread: the next ping starts afresh
      socket.resume();
    });
    socket.once('unexpected-response', (request, response) => {
      const status = response.statusCode ?? 0;
      request.destroy();
      const reason = status === 401 || status === 403 ? 'unauthorized' : 'unreachable';
      this.finish(new AgentDisconnectedError(reason, this.host, `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`));
    });
    socket.on('error', (error) => this.finish(failureOfConnection(error, this.host)));
    socket.once('close', (code, why) => {
      // 1006: the connection went without a close frame (a network drop); 1000 and 1005: a plain close.
      const detail = why.length > 0 ? why.toString('utf8').slice(0, 500) : code === 1000 || code === 1005 || code === 1006 ? '' : `code ${code}`;
      this.finish(new AgentDisconnectedError('closed', this.host, detail, this.disposing));
    });
  }

  /** Connects to the agent. Never throws: a URL that cannot be used, or a refused connection, settles `exited`. */
  static connect(remote: AgentRemote, handler: ClientHandler, connection: ConnectionOptions, options: AgentSocketOptions = {}): AgentSocket {
    return new AgentSocket(remote, handler, connection, options);
  }

  get hasExited(): boolean {
    return this.ended;
  }

  stderrTail(): string[] {
    return [];
  }

  /** Closes the connection (the agent's sessions stay the agent's); cut after the grace period. */
  async dispose(): Promise<void> {
    if (this.ended) return;
    this.disposing = true;
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CONNECTING) {
      socket?.terminate();
      this.finish(new AgentDisconnectedError('closed', this.host, '', true));
      return;
    }
    clearInterval(this.pinger);
    socket.close(1000);
    const timer = setTimeout(() => socket.terminate(), this.options.closeGraceMs ?? 2000);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One frame: a text frame is one message, said as one line (a JSON text's line breaks are only whitespace). The
   * frames of one read of the socket reach the reader together, as the lines of one read of a pipe do, so a run of
   * updates is coalesced as it is over stdio.
   */
  private frame(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.ended) return;
    if (isBinary) return this.cut('binaryFrame', 1003);
    const text = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const line = text.includes(10) || text.includes(13) ? Buffer.from(text.toString('utf8').replace(/[\r\n]/g, ' '), 'utf8') : text;
    if (this.batch.push(line, NEWLINE) === 2) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const frames = this.batch;
    this.batch = [];
    if (this.ended || frames.length === 0) return;
    // The reader paused (requests pile up), or reads slower than frames come: stop reading the socket meanwhile.
    if (!this.incoming.write(Buffer.concat(frames))) {
      this.paused = true;
      this.socket?.pause();
    }
  }

  /** The writer's lines, each sent as one text frame once the socket is open. */
  private outgoing(): Writable {
    return lineSink((lines, done) => {
      const socket = this.socket;
      if (!socket || socket.readyState !== WebSocket.OPEN) return done(new Error(`the connection to ${this.host} is not open`));
      let left = lines.length;
      for (const line of lines) {
        socket.send(line, { binary: false }, (error) => {
          if (error) return done(error);
          if (--left === 0) done();
        });
      }
    });
  }

  /** Pings the agent; one that has not answered the last ping by the next is gone. */
  private keepAlive(socket: WebSocket): void {
    socket.on('pong', () => (this.answered = true));
    this.pinger = setInterval(() => {
      if (this.paused) return; // not reading: a pong may be waiting unread
      if (!this.answered) return this.cut('unresponsive');
      this.answered = false;
      socket.ping();
    }, this.options.pingIntervalMs ?? 20_000);
    this.pinger.unref();
  }

  /** Ends the connection for a reason of the client's: the agent broke a rule, or stopped answering. */
  private cut(reason: DisconnectReason, code?: number): void {
    this.finish(new AgentDisconnectedError(reason, this.host, ''));
    if (code !== undefined && this.socket?.readyState === WebSocket.OPEN) this.socket.close(code, reason);
    else this.socket?.terminate();
  }

  private finish(end: AgentDisconnectedError): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.pinger);
    if (end.expected) this.log.info(`disconnected from ${this.host}`);
    else this.log.warn(end.message);
    // Frames read just before the close (ws emits them before 'close'): the reader still gets them.
    if (this.batch.length > 0) this.incoming.write(Buffer.concat(this.batch));
    this.batch = [];
    this.incoming.end();
    this.outgoingStream.destroy(); // writes waiting for an open that never came are dropped
    this.connection.close(end);
    this.connection.dispose();
    this.settle(end);
  }
}

const NEWLINE = Buffer.from('\n');
