// NDJSON framing for vscode-jsonrpc: one JSON message per line, UTF-8, over the agent's stdio.
// vscode-jsonrpc's own stream reader/writer speak LSP's Content-Length framing, which ACP does not use.
import type { Readable, Writable } from 'node:stream';
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  type DataCallback,
  type Disposable,
  type Message,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { silentLogger, type Logger } from './log';
import { preview } from './tolerance';

/** The official SDK's cap on one message. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/**
 * The method of a notification that stands for a run of consecutive notifications of one method.
 * vscode-jsonrpc dispatches every message in its own macrotask; an agent streaming thousands of
 * `session/update`s would pay that per update. The reader coalesces a run of them, in order, into one
 * message, and the connection unpacks it. Nothing else can tell: notifications have no replies.
 */
export const COALESCED_METHOD = '$/acp/coalesced';
export interface CoalescedParams {
  readonly method: string;
  readonly items: unknown[];
}

// ACP spells cancellation `$/cancel_request {requestId}`; vscode-jsonrpc spells it `$/cancelRequest {id}`.
const ACP_CANCEL = '$/cancel_request';
const JSONRPC_CANCEL = '$/cancelRequest';

export interface NdjsonReaderOptions {
  readonly log?: Logger;
  /** Lines longer than this are skipped (and logged); the connection lives on. */
  readonly maxLineBytes?: number;
  /** Notification methods whose consecutive runs are delivered as one `COALESCED_METHOD` message. */
  readonly coalesce?: readonly string[];
  /** Sees every line as it was received (the user's "trace messages" setting). */
  readonly trace?: LineTracer;
}

/** Called with each raw line read from or written to the agent; it decides itself whether to log. */
export type LineTracer = (direction: 'received' | 'sent', line: string) => void;

type Json = Record<string, unknown>;

export class NdjsonMessageReader extends AbstractMessageReader {
  private readonly log: Logger;
  private readonly maxLineBytes: number;
  private readonly coalesce: ReadonlySet<string>;
  private callback: DataCallback | undefined;
  /** Bytes of a line that has not ended yet. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while dropping the rest of an oversized line. */
  private discarding = false;
  private run: { method: string; items: unknown[] } | undefined;
  private readonly trace: LineTracer | undefined;

  constructor(
    private readonly readable: Readable,
    options: NdjsonReaderOptions = {},
  ) {
    super();
    this.log = options.log ?? silentLogger;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.coalesce = new Set(options.coalesce ?? []);
    this.trace = options.trace;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string) => this.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const onError = (error: Error) => this.fireError(error);
    const onEnd = () => {
      this.end();
      this.fireClose();
    };
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.once('end', onEnd);
    return {
      dispose: () => {
        this.readable.off('data', onData);
        this.readable.off('error', onError);
        this.readable.off('end', onEnd);
        this.callback = undefined;
      },
    };
  }

  /** Feeds raw bytes; complete lines are delivered at once. Exposed for tests and benchmarks. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingBytes === 0) {
        this.line(chunk, start, nl);
      } else {
        this.pending.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(this.pending, this.pendingBytes + nl - start);
        this.pending = [];
        this.pendingBytes = 0;
        this.line(whole, 0, whole.length);
      }
      start = nl + 1;
    }
    if (start < chunk.length && !this.discarding) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      // A trailing CR may be the first half of a CRLF, which does not count towards the line's length.
      if (this.pendingBytes > this.maxLineBytes + (chunk[chunk.length - 1] === 13 ? 1 : 0)) {
        this.oversized(this.pendingBytes);
        this.pending = [];
        this.pendingBytes = 0;
        this.discarding = true;
      }
    }
    this.flushRun();
  }

  /** The stream ended: a last line without a newline still counts. */
  private end(): void {
    if (this.pendingBytes > 0 && !this.discarding) {
      const whole = Buffer.concat(this.pending, this.pendingBytes);
      this.line(whole, 0, whole.length);
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.flushRun();
  }

  private oversized(bytes: number): void {
    this.log.warn(`skipped a message of more than ${this.maxLineBytes} bytes (${bytes} bytes so far)`);
  }

  private line(buf: Buffer, start: number, end: number): void {
    if (end > start && buf[end - 1] === 13) end--; // CRLF
    if (end - start > this.maxLineBytes) {
      this.oversized(end - start);
      return;
    }
    const text = buf.toString('utf8', start, end);
    this.trace?.('received', text);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (text.trim() !== '') this.log.warn(`skipped a line that is not JSON: ${preview(text)}`);
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.log.warn(`skipped a line that is not a JSON-RPC message: ${preview(message)}`);
      return;
    }
    this.deliver(message as Json);
  }

  private deliver(message: Json): void {
    const method = message['method'];
    if (typeof method === 'string' && message['id'] === undefined) {
      if (this.coalesce.has(method)) {
        if (this.run && this.run.method !== method) this.flushRun();
        if (this.run) this.run.items.push(message['params']);
        else this.run = { method, items: [message['params']] };
        return;
      }
      if (method === JSONRPC_CANCEL) {
        // Not ACP's name for it: ignored like any unknown notification. Passed on, vscode-jsonrpc would act on it,
        // and throw out of this stream's 'data' handler when its id is missing.
        this.log.debug(`ignored ${method}: ACP cancels with ${ACP_CANCEL}`);
        return;
      }
      if (method === ACP_CANCEL) {
        const params = message['params'] as Json | null | undefined;
        const requestId = typeof params === 'object' ? params?.['requestId'] : undefined;
        // vscode-jsonrpc throws on an id that is neither string nor number (null is a valid RequestId in the schema).
        if (typeof requestId !== 'string' && typeof requestId !== 'number') {
          this.log.warn(`skipped ${method} without a request id to cancel: ${preview(message)}`);
          return;
        }
        message = { jsonrpc: '2.0', method: JSONRPC_CANCEL, params: { id: requestId } };
      }
    } else if (typeof method !== 'string' && message['id'] === undefined) {
      this.log.warn(`skipped a message with neither method nor id: ${preview(message)}`);
      return;
    }
    this.flushRun();
    this.dispatch(message as unknown as Message);
  }

  /** Hands a message on. Nothing thrown there may escape into the stream's 'data' handler. */
  private dispatch(message: Message): void {
    try {
      this.callback?.(message);
    } catch (error) {
      this.log.error(`dropped a message that could not be dispatched (${error instanceof Error ? error.message : String(error)}): ${preview(message)}`);
    }
  }

  private flushRun(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    const params: CoalescedParams = run;
    const message =
      run.items.length === 1
        ? { jsonrpc: '2.0', method: run.method, params: run.items[0] }
        : { jsonrpc: '2.0', method: COALESCED_METHOD, params };
    this.dispatch(message as Message);
  }
}

export class NdjsonMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(
    private readonly writable: Writable,
    private readonly trace?: LineTracer,
  ) {
    super();
    writable.on('error', (error: Error) => this.fireError(error));
    writable.once('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const wire = toWire(message);
    // JSON.stringify escapes newlines inside strings, so one message is always one line.
    const json = JSON.stringify(wire);
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
