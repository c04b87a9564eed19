// Lines added and removed from one text to another, as git's numstat counts them, in bounded time: the texts are
// often the agent's (a diff it reported), and a line diff is quadratic in the lines that differ. Past the bound the
// counts are the whole texts' lines, an over-estimate the card can show. Plain Node.
import { diffLines } from 'diff';

/** The most edits a diff may need before the counts are estimated instead. */
const MAX_EDIT_LENGTH = 2000;
/** The most time a diff may take, in milliseconds, before the counts are estimated instead. */
const TIMEOUT_MS = 200;

export function lineDelta(before: string, after: string): { added: number; removed: number } {
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

/** How many lines a text has, its last one counted whether or not it ends with a line break. */
function lines(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}
