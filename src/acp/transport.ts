// NDJSON framing for vscode-jsonrpc: one JSON message per line, UTF-8, over the agent's stdio. This is the reader
// (framing, bounds, ids, coalescing) and the pair of both; the writer is ndjsonWriter.ts. vscode-jsonrpc's own
// stream reader/writer speak LSP's Content-Length framing, which ACP does not use.
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';
import { ErrorCodes } from './errors';
import { exceedsDepth, MAX_DEPTH, rawMemberText } from './jsonLimits';
import { silentLogger, type Logger } from './log';
import { RequestIds } from './requestIds';
import { preview } from './tolerance';
import { ACP_CANCEL, JSONRPC_CANCEL, NdjsonMessageWriter, type LineTracer } from './ndjsonWriter';

/** The official SDK's cap on one message. */
const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;
/** The longest error message of the agent's that is passed on (into errors users read, and the log). */
const MAX_ERROR_MESSAGE = 4096;

/**
 * The method of a notification that stands for a run of consecutive notifications.
 * vscode-jsonrpc dispatches every message in its own macrotask; an agent streaming thousands of
 * `session/update`s would pay that per update. The reader coalesces a run of them, in order, into one
 * message, and the connection unpacks it. Nothing else can tell: notifications have no replies.
 * It also bounds vscode-jsonrpc's queue, which takes one message per macrotask while a read delivers hundreds:
 * whatever mix of notifications a read holds, it queues one message for them between two requests or answers,
 * and those are bounded in flight.
 */
export const COALESCED_METHOD = '$/acp/coalesced';
export interface CoalescedParams {
  /** The notifications as they were read (so each may carry `jsonrpc` too). */
  readonly items: { readonly method: string; readonly params: unknown }[];
}

export interface NdjsonReaderOptions {
  readonly log?: Logger;
  /** Lines longer than this are skipped (and logged); the connection lives on. */
  readonly maxLineBytes?: number;
  /** Notification methods whose consecutive runs are delivered as one `COALESCED_METHOD` message. */
  readonly coalesce?: readonly string[];
  /** Drop (with a debug line) notifications not named in `coalesce`: the connection would ignore them anyway. */
  readonly onlyCoalesced?: boolean;
  /** Sees every line as it was received (the user's "trace messages" setting). */
  readonly trace?: LineTracer;
  /**
   * The ids in flight, shared with the writer (see `ndjsonTransport`): the agent's requests reach vscode-jsonrpc under
   * ids of ours, and answers are checked against our requests. Without it, ids pass through as they are.
   */
  readonly ids?: RequestIds;
  /**
   * Request methods that wait on the user or on a command for as long as that takes (a permission, a question, a
   * command's exit): bounded apart from the others, and they never pause reading (see `MAX_PARKED`).
   */
  readonly waiting?: readonly string[];
  /** Request methods that end or release what the waiting ones wait on: taken in whatever the bounds. */
  readonly ending?: readonly string[];
  /** Answers a request that is refused before vscode-jsonrpc sees it. `rawId` is JSON text; null for no usable id. */
  readonly reply?: (rawId: string | null, code: number, message: string) => void;
}

type Json = Record<string, unknown>;

export class NdjsonMessageReader extends AbstractMessageReader {
  private readonly log: Logger;
  private readonly maxLineBytes: number;
  /**
   * Compared with ===, not looked up in a Set: a method JSON.parse just made is not interned, and a Set would hash it
   * on every line (a few percent of the pipeline, see `npm run bench`). The list holds one or two methods.
   */
  private readonly coalesce: readonly string[];
  private callback: DataCallback | undefined;
  /** Bytes of a line that has not ended yet. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while dropping the rest of an oversized line. */
  private discarding = false;
  private run: CoalescedParams['items'] | undefined;
  private readonly onlyCoalesced: boolean;
  private readonly trace: LineTracer | undefined;
  private readonly ids: RequestIds | undefined;
  private readonly waiting: ReadonlySet<string>;
  private readonly ending: ReadonlySet<string>;
  private readonly reply: NdjsonReaderOptions['reply'];

  constructor(
    private readonly readable: Readable,
    options: NdjsonReaderOptions = {},
  ) {
    super();
    this.log = options.log ?? silentLogger;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.coalesce = [...(options.coalesce ?? [])];
    this.onlyCoalesced = options.onlyCoalesced === true;
    this.trace = options.trace;
    this.ids = options.ids;
    this.waiting = new Set(options.waiting ?? []);
    this.ending = new Set(options.ending ?? []);
    this.reply = options.reply;
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
    this.lines(chunk);
    // Requests pile up faster than they are served: stop reading until half of them are answered.
    if (this.ids?.shouldPause(() => this.readable.resume())) this.readable.pause();
  }

  private lines(chunk: Buffer): void {
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
    try {
      this.trace?.('received', text);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        if (text.trim() !== '') this.log.warn(`skipped a line that is not JSON: ${preview(text)}`);
        return;
      }
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        this.log.warn(`skipped a line that is not a JSON-RPC message: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`);
        return;
      }
      this.deliver(message as Json, text);
    } catch (error) {
      // Nothing in one line may cost the others in the same read. Only the line's length is safe to say here.
      this.log.error(
        `skipped a message of ${text.length} characters that could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Sorts one parsed message. Until the depth check has passed, only its top level is read: a message nested past
   * MAX_DEPTH is refused without anything else walking it.
   */
  private deliver(message: Json, text: string): void {
    const method = message['method'];
    const hasId = 'id' in message;
    // Valid JSON nested d levels deep holds 2d brackets: most lines are too short to need the walk.
    const tooDeep = text.length > 2 * MAX_DEPTH && exceedsDepth(message);
    if (typeof method === 'string' && hasId) {
      this.request(message, method, text, tooDeep);
      return;
    }
    if (typeof method === 'string') {
      this.notification(message, method, tooDeep);
      return;
    }
    if (method !== undefined || !hasId) {
      this.log.warn(`skipped a message with neither method nor id: ${preview(message)}`);
      return;
    }
    this.response(message, tooDeep);
  }

  private request(message: Json, method: string, text: string, tooDeep: boolean): void {
    const id = message['id'];
    if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
      this.refuse(null, ErrorCodes.InvalidRequest, `invalid request ${preview(method)}: the id must be a string, a number or null`);
      return;
    }
    const raw = typeof id === 'number' && !Number.isSafeInteger(id) ? (rawMemberText(text, 'id') ?? JSON.stringify(id)) : JSON.stringify(id);
    if (tooDeep) {
      this.refuse(raw, ErrorCodes.InvalidRequest, `${preview(method)} is nested deeper than ${MAX_DEPTH} levels`);
      return;
    }
    if (method.startsWith('$/')) {
      this.refuse(raw, ErrorCodes.MethodNotFound, `method not found: ${preview(method)}`);
      return;
    }
    if (this.ids) {
      const parked = this.waiting.has(method);
      const local = this.ids.admit(id, raw, parked, this.ending.has(method));
      if (local === undefined) {
        this.refuse(
          raw,
          ErrorCodes.InternalError,
          parked
            ? `${preview(method)} was refused: ${this.ids.maxParked} requests are already waiting for the user or a command`
            : `${preview(method)} was refused: ${this.ids.maxIncoming} requests are already waiting for an answer`,
        );
        return;
      }
      message = { ...message, id: local };
    } else if (id === null) {
      this.log.warn(`skipped a request with an id of null, which this reader cannot answer: ${preview(method)}`);
      return;
    }
    this.flushRun();
    this.dispatch(message as unknown as Message);
  }

  private notification(message: Json, method: string, tooDeep: boolean): void {
    if (tooDeep) {
      this.log.warn(`skipped a notification nested deeper than ${MAX_DEPTH} levels: ${preview(method)}`);
      return;
    }
    if (method.startsWith('$/')) {
      if (method !== ACP_CANCEL) {
        // vscode-jsonrpc's own (`$/cancelRequest`, `$/progress`, ...) and ours (COALESCED_METHOD) are not the agent's
        // to send: ignored like any unknown notification.
        this.log.debug(`ignored ${preview(method)}`);
        return;
      }
      const params = message['params'] as Json | null | undefined;
      const requestId = typeof params === 'object' && params !== null ? params['requestId'] : undefined;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') {
        this.log.warn(`skipped ${method} without a request id to cancel: ${preview(message)}`);
        return;
      }
      const local = this.ids ? this.ids.forCancel(requestId) : requestId;
      if (local === undefined) {
        this.log.debug(`ignored ${method} for ${preview(requestId)}, which is not waiting for an answer`);
        return;
      }
      message = { jsonrpc: '2.0', method: JSONRPC_CANCEL, params: { id: local } };
    } else if (this.coalesce.includes(method)) {
      // The message itself is the item (it has the method and the params): no object more per line.
      const item = message as { method: string; params: unknown };
      if (this.run) this.run.push(item);
      else this.run = [item];
      return;
    } else if (this.onlyCoalesced) {
      this.log.debug(`ignored notification ${preview(method)}`);
      return;
    }
    this.flushRun();
    this.dispatch(message as unknown as Message);
  }

  private response(message: Json, tooDeep: boolean): void {
    const id = message['id'];
    if (this.ids ? !this.ids.takeAnswer(id) : typeof id !== 'string' && typeof id !== 'number') {
      this.log.warn(`skipped an answer that no request of ours is waiting for: id ${preview(id)}`);
      return;
    }
    const problem = tooDeep ? `it is nested deeper than ${MAX_DEPTH} levels` : malformedResponse(message);
    if (problem) {
      this.log.warn(`skipped a malformed answer of the agent's: ${problem} (request ${preview(id)})`);
      message = { jsonrpc: '2.0', id, error: { code: ErrorCodes.InternalError, message: `the agent's answer is malformed: ${problem}` } };
    } else if (isObject(message['error'])) {
      // The agent's words travel on into errors that users read: bounded.
      const error = message['error'];
      const text = error['message'] as string;
      if (text.length > MAX_ERROR_MESSAGE) message = { ...message, error: { ...error, message: `${text.slice(0, MAX_ERROR_MESSAGE)}…` } };
    }
    this.flushRun();
    this.dispatch(message as unknown as Message);
  }

  /** Answers a request with an error at once (when paired with a writer), and says so in the log. */
  private refuse(rawId: string | null, code: number, message: string): void {
    this.log.warn(`refused a request: ${message}${rawId === null ? '' : ` (id ${preview(rawId)})`}`);
    this.reply?.(rawId, code, message);
  }

  /** Hands a message on. Nothing thrown there may escape into the stream's 'data' handler. */
  private dispatch(message: Message): void {
    try {
      this.callback?.(message);
    } catch (error) {
      this.log.error(
        `dropped a message that could not be dispatched (${error instanceof Error ? error.message : String(error)}): ${preview(message)}`,
      );
    }
  }

  private flushRun(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    const params: CoalescedParams = { items: run };
    const first = run[0];
    const message =
      run.length === 1 && first
        ? { jsonrpc: '2.0', method: first.method, params: first.params }
        : { jsonrpc: '2.0', method: COALESCED_METHOD, params };
    this.dispatch(message as Message);
  }
}

/** A reader and a writer on one agent's stdio that share the ids in flight. */
export function ndjsonTransport(
  readable: Readable,
  writable: Writable,
  options: Omit<NdjsonReaderOptions, 'ids' | 'reply'> = {},
): { reader: NdjsonMessageReader; writer: NdjsonMessageWriter; ids: RequestIds } {
  const ids = new RequestIds();
  const writer = new NdjsonMessageWriter(writable, { trace: options.trace, ids });
  const reader = new NdjsonMessageReader(readable, {
    ...options,
    ids,
    reply: (rawId, code, message) => void writer.writeError(rawId, code, message),
  });
  return { reader, writer, ids };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why an answer cannot be read as JSON-RPC, or undefined when it can. */
function malformedResponse(message: Json): string | undefined {
  if ('error' in message && message['error'] !== undefined && message['error'] !== null) {
    const error = message['error'];
    if (!isObject(error)) return 'its error is not an object';
    if (typeof error['code'] !== 'number' || !Number.isInteger(error['code'])) return 'its error has no integer code';
    if (typeof error['message'] !== 'string') return 'its error has no message';
    return undefined;
  }
  return 'result' in message ? undefined : 'it has neither a result nor an error';
}
