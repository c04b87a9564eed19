// What `acp.trace` writes for each line to or from an agent. Pure: the adapter (src/log.ts) decides when to call it.
//
//   messages  [trace Gemini 3f2a9c1b…] → request session/prompt #3
//             [trace Gemini 3f2a9c1b…] ← response session/prompt #3 (1204 ms)
//   verbose   the same, then the payload (params, result or error), secrets redacted, long ones elided in the middle.
//
// A response names the method of the request it answers, found by id in a bounded map of requests in flight, and the
// session that request was for.
import { detached, shortId } from './log';
import { redact } from './redact';
import { preview } from './tolerance';

export type TraceLevel = 'off' | 'messages' | 'verbose';
export type TraceDirection = 'received' | 'sent';

export interface TraceOptions {
  /** Payloads longer than this are elided in the middle (verbose). */
  readonly maxPayloadChars?: number;
  /** How many requests in flight are remembered per direction; the oldest is forgotten first. */
  readonly maxPending?: number;
  /** The clock for response times. */
  readonly now?: () => number;
  /** Longer lines are traced by their length only: they are not parsed a second time for the trace. */
  readonly maxParseChars?: number;
}

const DEFAULT_MAX_PAYLOAD_CHARS = 2000;
const DEFAULT_MAX_PENDING = 1000;
const DEFAULT_MAX_PARSE_CHARS = 1024 * 1024;
/** Method names, ids and kinds are agent text too: a trace line shows at most this much of each. */
const MAX_NAME_CHARS = 100;

interface Pending {
  readonly method: string;
  readonly session: string | undefined;
  readonly at: number;
}

type Json = Record<string, unknown>;

/** Formats the trace of one agent connection: it remembers requests so that responses can name them. */
export class MessageTrace {
  private readonly maxPayload: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  private readonly maxParse: number;
  /** Requests in flight, keyed by the direction they went and their id. */
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly agent: string,
    options: TraceOptions = {},
  ) {
    this.maxPayload = options.maxPayloadChars ?? DEFAULT_MAX_PAYLOAD_CHARS;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    this.now = options.now ?? Date.now;
    this.maxParse = options.maxParseChars ?? DEFAULT_MAX_PARSE_CHARS;
  }

  /** How many requests are remembered now (bounded by `maxPending`). */
  get remembered(): number {
    return this.pending.size;
  }

  /** The trace line for one raw NDJSON line. */
  line(direction: TraceDirection, text: string, verbose: boolean): string {
    const arrow = direction === 'sent' ? '→' : '←';
    // The payload of such a line could not be shown anyway, and its secrets could not be redacted from a cut.
    if (text.length > this.maxParse)
      return `${this.tag(undefined)} ${arrow} a line of ${text.length.toLocaleString('en-US')} chars, too long to trace`;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      const what = `${arrow} unparseable line (${text.length} chars)`;
      return `${this.tag(undefined)} ${verbose ? `${what} ${elide(text, this.maxPayload)}` : what}`;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      const what = `${arrow} not a JSON-RPC message`;
      return `${this.tag(undefined)} ${verbose ? `${what} ${this.payload(message)}` : what}`;
    }
    const m = message as Json;
    const method = typeof m['method'] === 'string' ? short(m['method']) : undefined;
    const id = m['id'];
    // An id too long to show is not remembered either: a thousand of them would be a lot of memory.
    const hasId = (typeof id === 'string' && id.length <= MAX_NAME_CHARS) || typeof id === 'number';
    const params = m['params'];
    let session = sessionOf(params);
    let what: string;
    let body: unknown;
    if (method !== undefined) {
      if (hasId) {
        this.remember(direction, id, {
          method: detached(method),
          session: session === undefined ? undefined : detached(shortId(session)),
          at: this.now(),
        });
        what = `request ${method} #${id}`;
      } else {
        const kind = method === 'session/update' && isObject(params) && isObject(params['update']) ? params['update']['sessionUpdate'] : undefined;
        what = `notification ${method}${typeof kind === 'string' ? ` ${short(kind)}` : ''}`;
      }
      body = params;
    } else {
      // A response answers a request that went the other way.
      const request = hasId ? this.answer(direction === 'sent' ? 'received' : 'sent', id) : undefined;
      const result = m['result'];
      session ??= sessionOf(result) ?? request?.session;
      const answers = `${request ? `${request.method} ` : ''}#${hasId ? id : preview(id, MAX_NAME_CHARS)}${request ? ` (${this.now() - request.at} ms)` : ''}`;
      const error = m['error'];
      if (error !== undefined) {
        const e = isObject(error) ? error : {};
        const code = typeof e['code'] === 'number' ? ` ${e['code']}` : '';
        const said = typeof e['message'] === 'string' ? ` ${JSON.stringify(elide(e['message'], 200))}` : '';
        what = `error ${answers}${code}${said}`;
        body = error;
      } else {
        what = `response ${answers}`;
        body = result;
      }
    }
    const line = `${this.tag(session)} ${arrow} ${what}`;
    return verbose ? `${line} ${this.payload(body)}` : line;
  }

  private tag(session: string | undefined): string {
    return session === undefined ? `[trace ${this.agent}]` : `[trace ${this.agent} ${shortId(session)}]`;
  }

  private payload(body: unknown): string {
    if (body === undefined) return '(no payload)';
    return elide(JSON.stringify(redact(body)) ?? String(body), this.maxPayload);
  }

  private remember(direction: TraceDirection, id: string | number, request: Pending): void {
    const key = `${direction}:${typeof id}:${id}`;
    this.pending.delete(key);
    this.pending.set(key, request);
    if (this.pending.size > this.maxPending) {
      const oldest = this.pending.keys().next();
      if (!oldest.done) this.pending.delete(oldest.value);
    }
  }

  private answer(direction: TraceDirection, id: string | number): Pending | undefined {
    const key = `${direction}:${typeof id}:${id}`;
    const request = this.pending.get(key);
    this.pending.delete(key);
    return request;
  }
}

/**
 * `text` cut to about `max` characters: the start and the end are kept, and the middle says how much was left out.
 * A cut never splits a surrogate pair.
 */
export function elide(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max);
  let head = Math.ceil(keep * 0.75);
  let tail = keep - head;
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail > 0 && isLowSurrogate(text.charCodeAt(text.length - tail))) tail--;
  const left = `…[${text.length - head - tail} chars left out]`;
  return tail > 0 ? `${text.slice(0, head)} ${left}… ${text.slice(text.length - tail)}` : `${text.slice(0, head)} ${left}`;
}

/** Agent text shown in a trace line's head, cut short. */
function short(text: string): string {
  return elide(text, MAX_NAME_CHARS);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sessionOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const id = value['sessionId'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}
