// The core logs through this interface; the extension implements it with one LogOutputChannel.
// Every line carries a `[component]` tag so a user can tell the transport from the process from a session.

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

type Level = keyof Logger;
const LEVELS: readonly Level[] = ['trace', 'debug', 'info', 'warn', 'error'];

/** A logger that prefixes every line with `[component]`. */
export function tagged(logger: Logger, component: string): Logger {
  const prefix = `[${component}] `;
  const out = {} as Logger;
  for (const level of LEVELS) out[level] = (message) => logger[level](prefix + message);
  return out;
}

/** How a session id appears in log tags (`[session …]`, `[trace …]`): long ids are cut to their first 8 characters. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** Discards everything: for callers that have nowhere to log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Log lines longer than this are cut at the sink. */
export const MAX_LOG_LINE_CHARS = 16 * 1024;

/**
 * `text` cut to `max` characters, with a note of how many were left out (`dropped` counts those the caller already
 * cut off its end). A cut never splits a surrogate pair.
 */
export function capLength(text: string, max: number, dropped = 0): string {
  if (text.length <= max && dropped <= 0) return text;
  let end = Math.min(max, text.length);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${(text.length - end + dropped).toLocaleString('en-US')} more characters)`;
}

export interface RepeatLimits {
  /** How many lines of one kind pass in a window; the rest are counted. */
  readonly perWindow?: number;
  /** The window's length in milliseconds, from the first line of its kind. */
  readonly windowMs?: number;
  /** How many kinds are tracked at once; the least recently seen is forgotten (after its count is written). */
  readonly maxKinds?: number;
  /** The clock windows are measured with (Date.now). */
  readonly now?: () => number;
}

/** A logger that can be disposed of: it writes what it still holds and stops its timer. */
export interface DisposableLogger extends Logger {
  dispose(): void;
}

interface Kind {
  /** Level and kind: the key in the map (a copy, see `detached`). */
  readonly id: string;
  readonly level: 'warn' | 'error';
  readonly key: string;
  readonly until: number;
  passed: number;
  held: number;
}

const KEY_CHARS = 60;
/** How far a `[tag] ` may reach: tags are ours and short. */
const TAG_CHARS = 200;

/**
 * What makes lines "the same kind": the text after the `[tag] ` prefixes, up to its first ': ' and at most 60
 * characters. Only the first few hundred characters of a line are looked at.
 */
export function kindOf(message: string): string {
  let start = 0;
  for (let tags = 0; tags < 8 && message.charCodeAt(start) === 0x5b /* [ */; tags++) {
    const close = message.slice(start, start + TAG_CHARS).indexOf('] ');
    if (close < 0) break;
    start += close + 2;
  }
  const head = message.slice(start, start + KEY_CHARS + 1);
  const colon = head.indexOf(': ');
  // What varies within a kind (a quoted name, an id, a count) does not make a new kind.
  return head
    .slice(0, colon >= 0 && colon < KEY_CHARS ? colon : KEY_CHARS)
    .replace(/"[^"]*"?/g, '"…"')
    .replace(/\d+/g, '#');
}

/**
 * A copy of `text` that does not keep alive the string it was cut from. V8 represents a slice (and a concatenation)
 * by reference to its parts: a 2 KB slice of a 50 MB line kept in a ring would keep the 50 MB.
 */
export function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Rate-limits repeated warnings and errors, so that an agent that sends a million bad messages does not write a
 * million lines: the first `perWindow` lines of a kind (see `kindOf`) pass in each window, the rest are counted, and
 * one line "…and 99,995 more like this: <kind>" is written when the window closes. Other levels pass unchanged.
 */
export function limitRepeats(logger: Logger, limits: RepeatLimits = {}): DisposableLogger {
  const perWindow = limits.perWindow ?? 5;
  const windowMs = limits.windowMs ?? 10_000;
  const maxKinds = limits.maxKinds ?? 500;
  const clock = limits.now ?? Date.now;
  /** By level and kind, least recently seen first. */
  const kinds = new Map<string, Kind>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;

  const summarize = (kind: Kind) => {
    if (kind.held > 0) logger[kind.level](`…and ${kind.held.toLocaleString('en-US')} more like this: ${kind.key}`);
    kind.held = 0;
  };
  /** Writes the counts of the windows that have closed, forgets them, and waits for the next one to close. */
  const sweep = () => {
    timer = undefined;
    timerAt = Infinity;
    const now = clock();
    let next = Infinity;
    for (const [id, kind] of kinds) {
      if (kind.until <= now) {
        summarize(kind);
        kinds.delete(id);
      } else if (kind.held > 0) {
        next = Math.min(next, kind.until);
      }
    }
    if (next < Infinity) schedule(next);
  };
  const schedule = (at: number) => {
    if (at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(sweep, Math.max(0, at - clock()));
    // The count can wait: it must not keep the process alive.
    timer.unref?.();
  };
  const limited = (level: 'warn' | 'error') => (message: string) => {
    const key = kindOf(message);
    const now = clock();
    let kind = kinds.get(`${level}:${key}`);
    if (kind) {
      kinds.delete(kind.id); // set again below: the map stays in order of last use
      if (kind.until <= now) {
        summarize(kind);
        kind = undefined;
      }
    }
    if (!kind) {
      if (kinds.size >= maxKinds) {
        const oldest = kinds.values().next();
        if (!oldest.done) {
          summarize(oldest.value);
          kinds.delete(oldest.value.id);
        }
      }
      const own = detached(key);
      kind = { id: `${level}:${own}`, level, key: own, until: now + windowMs, passed: 0, held: 0 };
    }
    kinds.set(kind.id, kind);
    if (kind.passed < perWindow) {
      kind.passed++;
      logger[level](message);
    } else {
      kind.held++;
      schedule(kind.until);
    }
  };
  return {
    trace: (m) => logger.trace(m),
    debug: (m) => logger.debug(m),
    info: (m) => logger.info(m),
    warn: limited('warn'),
    error: limited('error'),
    dispose() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Infinity;
      for (const kind of kinds.values()) summarize(kind);
      kinds.clear();
    },
  };
}
