// Text helpers: pure, so the host adapters stay thin and these stay unit-tested. Each is linear in its input, since
// the text is often the agent's or the workspace's.

/** `text` cut to `max` characters, with an ellipsis to say so; as it is when it fits. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * `text` without the run of `chars` at its end. A backwards loop: a regular expression such as `/\n+$/` tries every
 * start of a long run and is quadratic in it.
 */
export function trimTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** The longest run of `char` in `text` (to choose a Markdown fence that nothing inside can close). */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text[i] === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * The lines `line` (1-based) to `line + limit - 1` of `text`, with their own line endings (LF, CRLF or CR) kept.
 * Without `line` the slice starts at the first line; without `limit` it runs to the end. A start past the end
 * gives the empty string.
 */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  const first = Math.max(1, Math.floor(line ?? 1));
  if (first === 1 && (limit === undefined || limit === null)) return text;
  const count = limit === undefined || limit === null ? Infinity : Math.max(0, Math.floor(limit));
  if (count === 0) return '';
  let start = 0;
  for (let n = 1; n < first; n++) {
    const next = nextLineStart(text, start);
    if (next === -1) return '';
    start = next;
  }
  let end = start;
  for (let n = 0; n < count; n++) {
    const next = nextLineStart(text, end);
    if (next === -1) return text.slice(start);
    end = next;
  }
  return text.slice(start, end);
}

/** Where the line after the one starting at `from` begins, or -1 when `from` is on the last line. */
function nextLineStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i + 1;
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
  }
  return -1;
}

/** A file is treated as binary when its first 8 KiB hold a NUL byte, as git and VS Code do. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes UTF-8 (dropping a BOM), or returns undefined when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `text` with its first character in upper case. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Translates an English message and fills in its `{0}`, `{1}` placeholders: vscode.l10n.t on the host, the webview's own `t`. */
export type Translate = (message: string, ...args: Array<string | number>) => string;
