// Finding the entry a search result points at, in the chat as it shows now. Search Chats indexes a transcript by
// role and position; the chat may show more or fewer entries since (a replay, a restart), so the nearest entry of
// that role that still holds the text wins. Pure.
import type { EntryView } from './protocol';

/** A search hit: the `roleIndex`-th entry of its role, holding `text`. */
export interface MatchTarget {
  readonly role: 'user' | 'agent' | 'thought' | 'tool' | 'compaction';
  readonly roleIndex: number;
  readonly text: string;
}

/** An entry the chat shows, and whether it is above the session's own (an earlier conversation). */
export interface ShownEntry {
  readonly earlier: boolean;
  readonly entry: EntryView;
}

/**
 * The entry `match` points at among the entries shown (the earlier ones first, as the chat shows them): the
 * `roleIndex`-th of its role when it holds the text, else the nearest of that role that does, else the
 * `roleIndex`-th. Undefined when the chat has no entry of that role there.
 */
export function findMatch(earlier: readonly EntryView[], own: readonly EntryView[], match: MatchTarget): ShownEntry | undefined {
  const rows = [...earlier.map((entry) => ({ earlier: true, entry })), ...own.map((entry) => ({ earlier: false, entry }))];
  const ofRole = rows.filter(({ entry }) => (entry.kind === 'message' ? entry.role : entry.kind) === match.role);
  const needle = match.text.toLowerCase();
  const holds = ({ entry }: ShownEntry) =>
    textOf(entry).toLowerCase().includes(needle) || (entry.kind === 'message' && entry.chips.some((c) => c.label.toLowerCase().includes(needle)));
  const exact = ofRole[match.roleIndex];
  if (exact && holds(exact)) return exact;
  let nearest: ShownEntry | undefined;
  let distance = Infinity;
  ofRole.forEach((row, i) => {
    const d = Math.abs(i - match.roleIndex);
    if (d < distance && holds(row)) {
      nearest = row;
      distance = d;
    }
  });
  return nearest ?? exact;
}

function textOf(entry: EntryView): string {
  switch (entry.kind) {
    case 'tool':
      return entry.title;
    case 'compaction':
      return entry.error ? `${entry.summary}\n${entry.error}` : entry.summary;
    default:
      return entry.text;
  }
}
