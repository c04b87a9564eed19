// Bounds on the shape of what an agent sends, checked before anything else walks a parsed message. V8's JSON.parse
// copes with any nesting, but JSON.stringify, zod, structured clone and every recursive walk over a 5,000-level value
// overflow the stack, so a message nested deeper than MAX_DEPTH is refused at the door. Both checks are linear: the
// depth walk in the number of arrays and objects, the raw-member scan in the line's length.

/** The deepest nesting of arrays and objects accepted in one message. ACP's own shapes need about 8. */
export const MAX_DEPTH = 128;

const STRUCTURE = /["[\]{}]/g;

/**
 * True when `value`, as JSON.parse made it, nests arrays and objects deeper than `limit`. It looks only at arrays and
 * objects (a long string costs nothing), allocates nothing, and stops at the first value past the limit, so it costs
 * a fraction of the parse that built the value. It recurses, but never deeper than `limit` frames: a value nested
 * past that is refused before the walk goes down further. Callers skip it for lines of at most 2 × limit characters,
 * which cannot nest that deep.
 */
export function exceedsDepth(value: unknown, limit = MAX_DEPTH): boolean {
  return typeof value === 'object' && value !== null && deeperThan(value, 1, limit);
}

/** True when a value under `value`, which sits at `depth`, is an array or object deeper than `limit`. */
function deeperThan(value: object, depth: number, limit: number): boolean {
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) {
      if (typeof child === 'object' && child !== null && (depth >= limit || deeperThan(child, depth + 1, limit))) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue; // what a polluted prototype would add is not the message's
    const child = record[key];
    if (typeof child === 'object' && child !== null && (depth >= limit || deeperThan(child, depth + 1, limit))) return true;
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or -1. Each backslash is looked at once. */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let k = quote - 1; k > open && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * The raw text of the value of the top-level member `name` of the JSON object in `text` (the last one, as
 * JSON.parse keeps the last), or undefined. Used for ids that a JavaScript number cannot hold exactly (2^60, 1.50):
 * they are answered with the digits the agent sent.
 */
export function rawMemberText(text: string, name: string): string | undefined {
  const key = JSON.stringify(name);
  let depth = 0;
  let at = 0;
  let found: string | undefined;
  for (;;) {
    STRUCTURE.lastIndex = at;
    const match = STRUCTURE.exec(text);
    if (!match) return found;
    const i = match.index;
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) return found;
      at = end + 1;
      if (depth === 1 && end + 1 - i === key.length && text.startsWith(key, i)) {
        const colon = skipSpace(text, end + 1);
        if (text.charCodeAt(colon) === 0x3a) {
          const start = skipSpace(text, colon + 1);
          const value = /^-?[0-9][0-9.eE+-]*/.exec(text.slice(start, start + 400));
          if (value) found = value[0];
        }
      }
      continue;
    }
    if (c === 0x5b || c === 0x7b) depth++;
    else depth--;
    at = i + 1;
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    at++;
  }
  return at;
}
