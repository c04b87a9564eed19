// The agent's end of an in-memory connection: the test plays the agent by reading the client's lines and writing
// its own. The client end is the real AcpClientConnection over the real NDJSON reader and writer.
import { PassThrough } from 'node:stream';
import { AcpClientConnection, type ConnectionOptions } from '../../../src/acp/connection';
import { type ClientHandler } from '../../../src/acp/inbound';
import { ENDING_METHODS, WAITING_METHODS } from '../../../src/acp/methods';
import { ndjsonTransport } from '../../../src/acp/transport';
import { RecordingLogger } from './recording-logger';
import { waitFor } from '../../lib/wait';

export type Json = Record<string, any>;

export class WireAgent {
  /** Agent → client bytes. */
  readonly toClient = new PassThrough();
  /** Client → agent bytes. */
  readonly fromClient = new PassThrough();
  /** Every line the client wrote, exactly as written. */
  readonly lines: string[] = [];
  readonly log = new RecordingLogger();
  readonly connection: AcpClientConnection;
  /** Messages not yet taken by `next()` or `response()`. */
  private readonly inbox: Json[] = [];
  private partial = '';

  constructor(handler: ClientHandler, options: Partial<ConnectionOptions> = {}) {
    this.fromClient.setEncoding('utf8');
    this.fromClient.on('data', (text: string) => {
      const parts = (this.partial + text).split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        this.inbox.push(JSON.parse(line) as Json);
      }
    });
    const { reader, writer } = ndjsonTransport(this.toClient, this.fromClient, {
      log: this.log,
      coalesce: ['session/update'],
      waiting: WAITING_METHODS,
      ending: ENDING_METHODS,
    });
    this.connection = new AcpClientConnection(reader, writer, handler, {
      clientInfo: { name: 'acp-client-tests', version: '0.0.1' },
      log: this.log,
      ...options,
    });
  }

  /** The next message the client sent, in order. */
  async next(what = 'the next message from the client'): Promise<Json> {
    await waitFor(() => this.inbox.length > 0, { timeoutMs: 2000, what });
    return this.inbox.shift() as Json;
  }

  /** The next message, which must be a request for `method`. */
  async expectRequest(method: string): Promise<Json> {
    const message = await this.next(`a ${method} request`);
    if (message['method'] !== method || message['id'] === undefined) {
      throw new Error(`expected a ${method} request, got ${JSON.stringify(message)}`);
    }
    return message;
  }

  /** The client's answer to our request `id`, whenever it comes (other messages stay in the inbox). */
  async response(id: number | string): Promise<Json> {
    const index = await waitFor(
      () => {
        const i = this.inbox.findIndex((m) => m['id'] === id && m['method'] === undefined);
        return i === -1 ? undefined : i + 1;
      },
      { timeoutMs: 2000, what: `the client's answer to request ${JSON.stringify(id)}` },
    );
    return this.inbox.splice(index - 1, 1)[0] as Json;
  }

  /** Messages the client sent that nobody took yet. */
  get unread(): readonly Json[] {
    return this.inbox;
  }

  send(message: Json): void {
    this.toClient.write(`${JSON.stringify(message)}\n`);
  }

  sendRaw(bytes: string | Buffer): void {
    this.toClient.write(bytes);
  }

  reply(id: number | string, result: unknown): void {
    this.send({ jsonrpc: '2.0', id, result });
  }

  replyError(id: number | string, code: number, message: string, data?: unknown): void {
    this.send({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  update(sessionId: string, update: Json): void {
    this.notify('session/update', { sessionId, update });
  }

  /** Sends a request to the client and returns its answer. */
  async request(id: number | string, method: string, params: unknown): Promise<Json> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.response(id);
  }

  /** Runs initialize to completion, answering with these capabilities. */
  async initialize(agentCapabilities: Json = {}, extra: Json = {}): Promise<Json> {
    const done = this.connection.initialize();
    const request = await this.expectRequest('initialize');
    this.reply(request['id'], { protocolVersion: 1, agentCapabilities, ...extra });
    await done;
    return request;
  }

  /** The agent's output ends, as when the agent exits. */
  end(): void {
    this.toClient.end();
  }

  dispose(): void {
    this.connection.dispose();
    this.toClient.destroy();
    this.fromClient.destroy();
  }
}
