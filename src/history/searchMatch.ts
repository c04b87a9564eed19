// How a search matches: words folded (case and accents), a query's words and its last word as a prefix, an entry
// of a transcript that holds them all with a snippet around the first, and one transcript's hits. Every function is
// linear in its text (the text is the agent's). Plain Node.
import { summaryLabel, type StoredEntry, type Transcript, type TranscriptSummary } from './format';

export interface SearchHit {
  readonly agent: string;
  readonly sessionId: string;
  readonly cwd: string;
  /** What the history lists the session as: summaryLabel(summary). */
  readonly title: string;
  readonly updatedAt: string;
  /** The chat is archived: found all the same, and marked. */
  readonly archived?: true;
  /** The index of the matching entry in the transcript's `entries`. */
  readonly entry: number;
  /**
   * How many entries before this one in the same transcript also matched (0 for the first match): the chat uses it
   * to find the same message among its own entries.
   */
  readonly occurrence: number;
  readonly role: StoredEntry['t'];
  /**
   * How many entries of the same role come before it: a chat the agent replayed has its own entries, in the same
   * order by role, so this finds the message there.
   */
  readonly roleIndex: number;
  /** About 120 characters of context around the first match, on one line, with "…" where cut. */
  readonly snippet: string;
  /** Where the match is in `snippet` (start, length), for highlighting. */
  readonly highlight: readonly [number, number];
}

/** Hits from one chat at most: the list shows many chats rather than one chat's every mention. */
const PER_CHAT = 5;
/** Longer words are not indexed (hashes, base64, minified code): they would only fill the index. */
export const MAX_WORD_CHARS = 64;
const SNIPPET_CHARS = 120;

/** A word, in folded text. */
export const WORD = /[\p{L}\p{N}_]+/gu;
/** A word in the original text: marks included, so a decomposed "é" stays one word with its letter. */
const TOKEN = /[\p{L}\p{N}_\p{M}]+/gu;
const MARKS = /\p{M}+/gu;
const NON_ASCII = /[\u0080-\uffff]/;

/** Case- and accent-insensitive form: lower case, decomposed, without combining marks ("Été" → "ete"). */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  // The marks go before the decomposition too: NFD sorts each run of combining marks, which is quadratic in a long
  // run, and they would be dropped after it anyway (a precomposed letter still decomposes into its base).
  return NON_ASCII.test(lower) ? lower.replace(MARKS, '').normalize('NFD').replace(MARKS, '') : lower;
}

// ---- Queries ----

export interface Query {
  /** Words that must occur whole. */
  readonly words: ReadonlySet<string>;
  /** The last word, which may be the start of a word; undefined when the query ends with a space. */
  readonly prefix: string | undefined;
}

/** The query's folded words; undefined when there are none, or one is too long to be in the index. */
export function parseQuery(query: string): Query | undefined {
  const found = fold(query).match(WORD);
  if (!found || found.some((word) => word.length > MAX_WORD_CHARS)) return undefined;
  // A trailing space says the last word is complete.
  const prefix = /\s$/.test(query) ? undefined : found.pop();
  return { words: new Set(found), prefix };
}

/** The searchable text of an entry: a message's text and its links' names, a tool call's title, a compaction's summary. */
export function fieldsOf(entry: StoredEntry): string[] {
  if (entry.t === 'tool') return [entry.title];
  if (entry.t === 'compaction') return entry.error ? [entry.text, entry.error] : [entry.text];
  return entry.links ? [entry.text, ...entry.links.map((link) => link.name)] : [entry.text];
}

export interface EntryMatch {
  readonly snippet: string;
  readonly highlight: readonly [number, number];
}

/** Whether every word of the query occurs in `entry`, and a snippet around the first match. */
function matchEntry(entry: StoredEntry, query: Query): EntryMatch | undefined {
  const fields = fieldsOf(entry);
  // Quick rejection: a word occurs as a substring before it can occur as a word.
  const folded = fields.map(fold);
  for (const word of query.words) if (!folded.some((text) => text.includes(word))) return undefined;
  const { prefix } = query;
  if (prefix !== undefined && !folded.some((text) => text.includes(prefix))) return undefined;

  // The exact check, on the original text so that the match's position is known.
  const missing = new Set(query.words);
  let prefixFound = prefix === undefined;
  let first: { text: string; start: number; end: number } | undefined;
  for (const text of fields) {
    TOKEN.lastIndex = 0;
    for (let token = TOKEN.exec(text); token; token = TOKEN.exec(text)) {
      const word = fold(token[0]);
      if (word.length > MAX_WORD_CHARS) continue;
      let length = 0; // how much of the original token to highlight
      if (query.words.has(word)) {
        missing.delete(word);
        length = token[0].length;
      }
      if (prefix !== undefined && word.startsWith(prefix)) {
        prefixFound = true;
        length ||= prefixLength(token[0], prefix.length);
      }
      if (length > 0 && !first) first = { text, start: token.index, end: token.index + length };
      if (first && prefixFound && missing.size === 0) return snippetAround(first.text, first.start, first.end);
    }
  }
  return undefined;
}

/**
 * How many characters of `token` fold to `folded` characters (more than that when an accent is decomposed). One
 * pass, each code point folded alone: folding works character by character (the marks it drops are the only thing
 * normalization reorders), so the sums agree with folding each prefix, without its cost (a token of one letter and
 * 400,000 combining marks would take minutes).
 */
function prefixLength(token: string, folded: number): number {
  let length = 0;
  for (let end = 0; end < token.length;) {
    const width = isHighSurrogate(token.charCodeAt(end)) && isLowSurrogate(token.charCodeAt(end + 1)) ? 2 : 1;
    length += fold(token.slice(end, end + width)).length;
    end += width;
    if (length >= folded) return end;
  }
  return token.length;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** About SNIPPET_CHARS characters of `text` around [start, end), on one line, with "…" where cut. */
export function snippetAround(text: string, start: number, end: number): EntryMatch {
  const match = text.slice(start, Math.min(end, start + SNIPPET_CHARS));
  const room = SNIPPET_CHARS - match.length;
  // Twice the room on each side, before whitespace is collapsed, is plenty; what is left past it is cut.
  const from = Math.max(0, start - 2 * room);
  const to = Math.min(text.length, end + 2 * room);
  let before = text.slice(from, start).replace(/\s+/g, ' ');
  let after = text.slice(end, to).replace(/\s+/g, ' ');
  if (from === 0) before = before.trimStart();
  if (to === text.length) after = after.trimEnd();
  // A third of the room before the match, more when the text after it is short.
  const beforeRoom = Math.min(before.length, Math.max(Math.floor(room / 3), room - after.length));
  const afterRoom = Math.min(after.length, room - beforeRoom);
  const cutStart = from > 0 || before.length > beforeRoom;
  const cutEnd = to < text.length || after.length > afterRoom;
  before = before.slice(before.length - beforeRoom);
  after = after.slice(0, afterRoom);
  if (cutStart) {
    if (isLowSurrogate(before.charCodeAt(0))) before = before.slice(1);
    // Start at a word when one starts near the cut.
    const space = before.indexOf(' ');
    before = (space >= 0 && space < 16 ? before.slice(space + 1) : before).trimStart();
  }
  if (cutEnd) {
    if (isHighSurrogate(after.charCodeAt(after.length - 1))) after = after.slice(0, -1);
    const space = after.lastIndexOf(' ');
    after = (space >= 0 && after.length - space < 16 ? after.slice(0, space) : after).trimEnd();
  }
  const head = cutStart ? '…' : '';
  return { snippet: `${head}${before}${match}${after}${cutEnd ? '…' : ''}`, highlight: [head.length + before.length, match.length] };
}

/** The hits of one transcript for `query`, as a search finds them there (for a baseline that reads every transcript). */
export function hitsIn(transcript: Transcript, summary: TranscriptSummary, query: string): SearchHit[] {
  const parsed = parseQuery(query);
  const hits: SearchHit[] = [];
  if (parsed) scan(transcript, summary, parsed, hits, Number.POSITIVE_INFINITY);
  return hits;
}

/**
 * Adds the hits of one transcript, in the order of its entries, at most PER_CHAT of them and `limit` in all: the
 * entries that hold every word. A chat that holds every word, but never in one entry, still counts: it gets one
 * hit, at the entry that holds the most of them (so every chat the index found is a result, and the first results
 * come after one read).
 */
export function scan(transcript: Transcript, summary: TranscriptSummary, query: Query, hits: SearchHit[], limit: number): void {
  const title = summaryLabel(summary);
  const hit = (entry: number, occurrence: number, match: EntryMatch): SearchHit => ({
    agent: summary.agent,
    sessionId: summary.sessionId,
    cwd: summary.cwd,
    title,
    updatedAt: summary.updatedAt,
    ...(summary.archived ? { archived: true as const } : {}),
    entry,
    occurrence,
    role: (transcript.entries[entry] as StoredEntry).t,
    roleIndex: transcript.entries.slice(0, entry).filter((e) => e.t === transcript.entries[entry]?.t).length,
    ...match,
  });
  let occurrence = 0;
  for (let entry = 0; entry < transcript.entries.length && hits.length < limit && occurrence < PER_CHAT; entry++) {
    const match = matchEntry(transcript.entries[entry] as StoredEntry, query);
    if (match) hits.push(hit(entry, occurrence++, match));
  }
  if (occurrence > 0 || hits.length >= limit) return;
  const best = closest(transcript, query);
  if (best) hits.push(hit(best.entry, best.occurrence, best.match));
}

/** The entry that holds the most of the query's words (as words), and a snippet at the first of them. */
function closest(transcript: Transcript, query: Query): { entry: number; occurrence: number; match: EntryMatch } | undefined {
  const words = [...query.words, ...(query.prefix !== undefined ? [query.prefix] : [])];
  const single = (word: string): Query =>
    query.words.has(word) ? { words: new Set([word]), prefix: undefined } : { words: new Set(), prefix: word };
  // Only a chat that holds every word (as a word, somewhere) counts: the index finds no other.
  if (!words.every((word) => transcript.entries.some((stored) => matchEntry(stored, single(word))))) return undefined;
  // Counted as substrings first (cheap), then checked as words, best first: a substring of a longer word is no match.
  const ranked = transcript.entries
    .map((stored, entry) => {
      const folded = fieldsOf(stored).map(fold);
      return { entry, present: words.filter((word) => folded.some((text) => text.includes(word))) };
    })
    .filter((r) => r.present.length > 0)
    .sort((a, b) => b.present.length - a.present.length || a.entry - b.entry);
  for (const { entry, present } of ranked) {
    for (const word of present) {
      const match = matchEntry(transcript.entries[entry] as StoredEntry, single(word));
      if (!match) continue;
      // Which of the entries that hold that word this is, for the chat to find the same one.
      let occurrence = 0;
      for (let i = 0; i < entry; i++) if (matchEntry(transcript.entries[i] as StoredEntry, single(word))) occurrence++;
      return { entry, occurrence, match };
    }
  }
  return undefined;
}
