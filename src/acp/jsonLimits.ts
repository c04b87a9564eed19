// Bounds on the shape of what an agent sends, checked on the raw line before anything walks the parsed value.
// V8's JSON.parse copes with any nesting, but JSON.stringify, zod and every recursive walk over a 5,000-level value
// overflow the stack, so a message nested deeper than MAX_DEPTH is refused at the door. Both scans are linear in the
// line's length and cost a typical message (a few hundred bytes, a handful of brackets) next to nothing.

/** The deepest nesting of arrays and objects accepted in one message. ACP's own shapes need about 8. */
export const MAX_DEPTH = 128;

const OPENERS = /[[{]/g;
const STRUCTURE = /["[\]{}]/g;

/** True when `text` nests arrays and objects deeper than `limit` (brackets inside strings do not count). */
export function exceedsDepth(text: string, limit = MAX_DEPTH): boolean {
  // A line needs more than `limit` opening brackets to nest deeper than `limit`: most lines stop here.
  if (text.length <= limit) return false;
  OPENERS.lastIndex = 0;
  let openers = 0;
  while (OPENERS.test(text)) {
    if (++openers > limit) return nestingDepth(text, limit) > limit;
  }
  return false;
}

/** The nesting depth of `text`, counted up to `limit + 1` (the scan stops there). Strings are skipped whole. */
export function nestingDepth(text: string, limit = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return deepest;
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
