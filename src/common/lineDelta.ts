// Lines added and removed from one text to another, as git's numstat counts them, in bounded time: the texts are
// often the agent's (a diff it reported), and a line diff is quadratic in the lines that differ. Past the bound the
// counts are the whole texts' lines, an over-estimate the card can show. Plain Node.
import { diffLines } from 'diff';

/** The most edits a diff may need before the counts are estimated instead. */
const MAX_EDIT_LENGTH = 2000;
/** The most time a diff may take, in milliseconds, before the counts are estimated instead. */
const TIMEOUT_MS = 200;

export function lineDelta(before: string, after: string): { added: number; removed: number } {
  // Texts that share no line (a file rewritten, or written anew) need no diff: every line went, every line came.
  if (before === '' || after === '' || !sharesALine(before, after)) return { added: lines(after), removed: lines(before) };
  const changes = diffLines(before, after, { maxEditLength: MAX_EDIT_LENGTH, timeout: TIMEOUT_MS });
  if (!changes) return { added: lines(after), removed: lines(before) };
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.added) added += change.count ?? 0;
    else if (change.removed) removed += change.count ?? 0;
  }
  return { added, removed };
}

/** Whether some line of `before` is also a line of `after` (in linear time). */
function sharesALine(before: string, after: string): boolean {
  const seen = new Set(splitLines(before));
  for (const line of splitLines(after)) if (seen.has(line)) return true;
  return false;
}

/** The lines of a text as diffLines compares them: each with its line break, the last one with or without. */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    out.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** How many lines a text has, its last one counted whether or not it ends with a line break. */
function lines(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}
