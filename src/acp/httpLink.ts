// An agent at an http(s) URL: ACP over Streamable HTTP (POST for the client's messages, SSE streams for the agent's,
// a connection id and per-session streams, 409 for a session to reattach, affinity cookies), spoken by the pinned
// SDK's own client stream (`@agentclientprotocol/sdk/experimental/http-client`), which defines the wire. Its messages
// are said as lines to the client's own pipeline (transport.ts), so an agent over HTTP is held to the same bounds,
// ids and coalescing as a subprocess; the SDK's stream bounds each message first (32 MiB, as a line), and the SSE
// bodies are read only while the client's reader takes more. HTTP goes through the extension host's `fetch`.
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { failureOfConnection, type AgentRemote } from './agentUrl';
import { AcpClientConnection, type ConnectionOptions } from './connection';
import { AgentDisconnectedError } from './errors';
import type { ClientHandler } from './inbound';
import { silentLogger, tagged, type Logger } from './log';
import { lineSink, type LineTracer } from './ndjsonWriter';
import { agentTransport, type AgentEnd, type AgentLink } from './process';

const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** How long closing the connection may take before it is cut. */
const CLOSE_GRACE_MS = 2000;

export class AgentHttp implements AgentLink {
  readonly connection: AcpClientConnection;
  readonly exited: Promise<AgentEnd>;
  readonly pid = undefined;
  private readonly log: Logger;
  private readonly incoming = new PassThrough();
  private readonly outgoing: Writable;
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  private ended = false;
  private disposing = false;
  private settle!: (end: AgentEnd) => void;
  /** Aborts every request of the SDK's stream (and a wait for the reader) once the link has ended. */
  private readonly abort = new AbortController();
  /** Set while the reader does not take more: the agent's SSE bodies are not read meanwhile. */
  private paused: Promise<void> | undefined;

  private constructor(
    url: URL,
    readonly host: string,
    remote: AgentRemote,
    handler: ClientHandler,
    connectionOptions: ConnectionOptions,
    options: { readonly log?: Logger; readonly trace?: LineTracer },
  ) {
    this.log = options.log ?? silentLogger;
    this.exited = new Promise((resolve) => (this.settle = resolve));
    const connectionLog = connectionOptions.log ?? this.log;
    const stream = createHttpStream(url.href, {
      headers: { ...remote.headers },
      maxMessageBytes: MAX_MESSAGE_BYTES,
      cookies: 'include',
      fetch: (input, init) => this.fetch(input, init),
    });
    this.writer = stream.writable.getWriter();
    this.outgoing = this.lines();
    this.outgoing.on('error', (error) => this.log.debug(`not sent: ${error.message}`));
    const { reader, writer } = agentTransport(this.incoming, this.outgoing, tagged(connectionLog, 'transport'), options.trace);
    this.connection = new AcpClientConnection(reader, writer, handler, { ...connectionOptions, log: connectionLog, closeWhenInputEnds: false });
    void this.pump(stream.readable.getReader());
  }

  /** Connects to the agent. Never throws: a refused or failed connection settles `exited`. */
  static connect(
    url: URL,
    host: string,
    remote: AgentRemote,
    handler: ClientHandler,
    connection: ConnectionOptions,
    options: { readonly log?: Logger; readonly trace?: LineTracer } = {},
  ): AgentHttp {
    return new AgentHttp(url, host, remote, handler, connection, options);
  }

  get hasExited(): boolean {
    return this.ended;
  }

  stderrTail(): string[] {
    return [];
  }

  /**
   * Ends the connection (the SDK's stream deletes it at the agent; the agent's sessions stay the agent's). A close
   * that takes longer than the grace period (a POST or the DELETE hanging) is cut.
   */
  async dispose(): Promise<void> {
    if (this.ended) return;
    this.disposing = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
    await Promise.race([this.writer.close().catch(() => undefined), grace]);
    clearTimeout(timer);
    this.finish(new AgentDisconnectedError('closed', this.host, '', true));
  }

  /**
   * The extension host's `fetch`, for the SDK's stream: every request ends with the link, and the agent's SSE bodies
   * are read only while the client's reader takes more, so a flood waits in the network, not in memory.
   */
  private async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const signal = init?.signal ? AbortSignal.any([init.signal, this.abort.signal]) : this.abort.signal;
    const response = await fetch(input, { ...init, signal });
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
    const body = response.body.getReader();
    const held = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        await this.paused;
        const { value, done } = await body.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => body.cancel(reason),
    });
    return new Response(held, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** The agent's messages, each said as one line to the reader; the SSE bodies wait while the reader does. */
  private async pump(reader: ReadableStreamDefaultReader<AnyMessage>): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.ended) break;
        if (!this.incoming.write(`${JSON.stringify(value)}\n`)) {
          this.paused = once(this.incoming, 'drain', { signal: this.abort.signal }).then(
            () => undefined,
            () => undefined,
          );
          await this.paused;
          this.paused = undefined;
        }
      }
      this.finish(new AgentDisconnectedError('closed', this.host, '', this.disposing));
    } catch (error) {
      this.finish(failureOfConnection(error, this.host));
    }
  }

  /** The writer's lines, each handed to the SDK's stream as one message. */
  private lines(): Writable {
    return lineSink((lines, done) => {
      for (const line of lines) {
        let message: AnyMessage;
        try {
          message = JSON.parse(line) as AnyMessage;
        } catch {
          continue; // the client's writer writes whole JSON lines: never here
        }
        // A request's failure comes back as its answer, or ends the stream (pump): nothing more to do here.
        this.writer.write(message).catch((error: unknown) => this.finish(failureOfConnection(error, this.host)));
      }
      done();
    });
  }

  private finish(end: AgentDisconnectedError): void {
    if (this.ended) return;
    this.ended = true;
    if (end.expected) this.log.info(`disconnected from ${this.host}`);
    else this.log.warn(end.message);
    this.incoming.end();
    this.outgoing.destroy();
    this.connection.close(end);
    this.connection.dispose();
    this.abort.abort(end);
    void this.writer.abort(end).catch(() => undefined);
    this.settle(end);
  }
}
