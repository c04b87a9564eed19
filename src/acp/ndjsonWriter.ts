// The NDJSON writer for vscode-jsonrpc: one JSON message per line, UTF-8, to the agent's stdin. Answers go out under
// the agent's own request ids (requestIds.ts), and vscode-jsonrpc's cancellation is spelled as ACP spells it.
import { Writable } from 'node:stream';
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc/node';
import { ErrorCodes } from './errors';
import type { RequestIds } from './requestIds';

/** Called with each raw line read from or written to the agent; it decides itself whether to log. */
export type LineTracer = (direction: 'received' | 'sent', line: string) => void;

// ACP spells cancellation `$/cancel_request {requestId}`; vscode-jsonrpc spells it `$/cancelRequest {id}`.
export const ACP_CANCEL = '$/cancel_request';
export const JSONRPC_CANCEL = '$/cancelRequest';

type Json = Record<string, unknown>;

export interface NdjsonWriterOptions {
  readonly trace?: LineTracer;
  /** The ids in flight, shared with the reader: answers go out under the agent's own ids. */
  readonly ids?: RequestIds;
}

export class NdjsonMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;
  private readonly trace: LineTracer | undefined;
  private readonly ids: RequestIds | undefined;

  constructor(
    private readonly writable: Writable,
    options: NdjsonWriterOptions = {},
  ) {
    super();
    this.trace = options.trace;
    this.ids = options.ids;
    writable.on('error', (error: Error) => this.fireError(error));
    writable.once('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    // JSON.stringify escapes newlines inside strings, so one message is always one line.
    return this.send(this.serialize(message), message);
  }

  /** Answers a request with an error; `rawId` is the id's JSON text, or null. */
  writeError(rawId: string | null, code: number, message: string): Promise<void> {
    const json = `{"jsonrpc":"2.0","id":${rawId ?? 'null'},"error":${JSON.stringify({ code, message })}}`;
    return this.send(json).catch(() => {});
  }

  private serialize(message: Message): string {
    const m = message as unknown as Json;
    const ids = this.ids;
    if (!ids) return JSON.stringify(toWire(message));
    if (m['method'] === undefined && 'id' in m) {
      const raw = ids.answered(m['id']);
      if (raw === undefined) return JSON.stringify(message);
      const { id: _local, jsonrpc: _version, ...rest } = m;
      let body: string;
      try {
        body = JSON.stringify(rest);
      } catch (error) {
        // Every request is answered: a result that cannot be written becomes an error.
        const reason = error instanceof Error ? error.message : String(error);
        body = JSON.stringify({ error: { code: ErrorCodes.InternalError, message: `the answer could not be written: ${reason}` } });
      }
      return `{"jsonrpc":"2.0","id":${raw}${body === '{}' ? '}' : `,${body.slice(1)}`}`;
    }
    const id = m['id'];
    if (typeof m['method'] === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.sent(id);
    return JSON.stringify(toWire(message));
  }

  private send(json: string, message?: Message): Promise<void> {
    this.trace?.('sent', json);
    const line = `${json}\n`;
    return new Promise<void>((resolve, reject) => {
      const done = (error: Error | null | undefined) => {
        if (error) {
          this.errorCount++;
          this.fireError(error, message, this.errorCount);
          reject(error);
        } else {
          this.errorCount = 0;
          resolve();
        }
      };
      if (this.writable.destroyed || this.writable.writableEnded) {
        done(new Error('the agent\u2019s input is closed'));
        return;
      }
      this.writable.write(line, 'utf8', done);
    });
  }

  end(): void {
    this.writable.end();
  }
}

function toWire(message: Message): Message {
  const m = message as unknown as Json;
  if (m['method'] === JSONRPC_CANCEL) {
    const params = m['params'] as Json | undefined;
    return { jsonrpc: '2.0', method: ACP_CANCEL, params: { requestId: params?.['id'] } } as unknown as Message;
  }
  return message;
}

/**
 * The writer's side for a transport that carries one message at a time (a WebSocket frame, an HTTP request): each
 * whole line the writer writes goes to `send`, which calls `done` once the lines of that write have gone.
 */
export function lineSink(send: (lines: readonly string[], done: (error?: Error | null) => void) => void): Writable {
  let partial = '';
  return new Writable({
    decodeStrings: false,
    write: (chunk: string | Buffer, _encoding, done) => {
      const lines = (partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'))).split('\n');
      partial = lines.pop() ?? '';
      const whole = lines.filter((line) => line.length > 0);
      if (whole.length === 0) return done();
      send(whole, done);
    },
  });
}
