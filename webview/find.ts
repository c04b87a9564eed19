// Find in the chat: what each row of the conversation (and the plan) can be found by, and where the matches are.
// Rows outside the page (earlier than its window, or not yet filled in), folded thoughts and tool output are searched
// in the entries themselves, so that every match is counted; the page then shows the row of the current one. Pure.
import type { EntryView } from '../src/chat/protocol';

/** Matches counted at most: past this, the count says "N+". */
export const MAX_MATCHES = 5000;

/** Something that can be found: a row of the conversation (by key), or the plan. */
export interface FindTarget {
  readonly key: string;
  readonly text: string;
}

/** One match: its row, and which of the row's matches it is. */
export interface Match {
  readonly key: string;
  readonly nth: number;
}

/** The text a row is found by: a message's, a tool card's title, text, command output and raw input and output. */
export function entryText(entry: EntryView): string {
  switch (entry.kind) {
    case 'message':
      return entry.text;
    case 'compaction':
      return entry.summary;
    case 'tool':
      return [entry.title, ...entry.content, ...entry.terminals.map((t) => t.output), entry.rawInput ?? '', entry.rawOutput ?? ''].join('\n');
  }
}

/**
 * `text` in lower case, each character of the same length as before (a few, such as "İ", grow when lowered: those
 * stay as they are), so that an index into it is an index into `text`.
 */
function folded(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const char of text) {
    const low = char.toLowerCase();
    out += low.length === char.length ? low : char;
  }
  return out;
}

/** Where `query` occurs in `text` (start indices, not overlapping), at most `limit` of them. */
export function occurrences(text: string, query: string, matchCase: boolean, limit = MAX_MATCHES): number[] {
  if (query === '') return [];
  const haystack = matchCase ? text : folded(text);
  const needle = matchCase ? query : folded(query);
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at >= 0 && found.length < limit; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** Every match in `targets`, in their order, at most MAX_MATCHES. */
export function findMatches(targets: readonly FindTarget[], query: string, matchCase: boolean): Match[] {
  const matches: Match[] = [];
  for (const target of targets) {
    const count = occurrences(target.text, query, matchCase, MAX_MATCHES - matches.length).length;
    for (let nth = 0; nth < count; nth++) matches.push({ key: target.key, nth });
    if (matches.length >= MAX_MATCHES) break;
  }
  return matches;
}

/** The match to go to from `current` by `step` (wrapping), or 0 for a new search. */
export function stepped(current: number, step: 1 | -1, count: number): number {
  if (count === 0) return -1;
  if (current < 0) return step === 1 ? 0 : count - 1;
  return (current + step + count) % count;
}
