// Full-text search over the kept transcripts. No `vscode` import: the extension gives it the transcript store (as a
// `SearchSource`) and a logger, and it is unit-tested in plain Node.
//
// There may be hundreds of transcripts of up to 1 MiB each, so a keystroke must not read them all. The first search
// builds an inverted index in memory (normalized word → the documents it occurs in), reading the transcripts one at
// a time, newest first, and yielding to the event loop between them (and within a large one). After that a search
// reads only the transcripts that hold every word of the query somewhere, newest first, to find the entries where
// they all occur together and cut a snippet, and stops at its limit. A changed session is re-indexed at the next
// search (`invalidate`, or a new `updatedAt` in the list); a session gone from the list is dropped.
//
// Memory: the index keeps no text. Per word, its documents as one number (most words occur in one chat) or as
// increasing ids coded as varint gaps in a growable byte array (a byte or two per chat); per document, its summary.
// An id whose document changed or went stays in the postings until there are enough of them to be worth a rewrite.
import { errorMessage } from '../acp/errors';
import { shortId, type Logger } from '../acp/log';
import { summaryLabel, type StoredEntry, type Transcript, type TranscriptSummary } from './format';

export interface SearchSource {
  /** Every kept session, newest first (TranscriptStore.list()). */
  list(): Promise<readonly TranscriptSummary[]>;
  /** One transcript, or undefined (TranscriptStore.read()). */
  read(agent: string, sessionId: string): Promise<Transcript | undefined>;
}

export interface SearchHit {
  readonly agent: string;
  readonly sessionId: string;
  readonly cwd: string;
  /** What the history lists the session as: summaryLabel(summary). */
  readonly title: string;
  readonly updatedAt: string;
  /** The index of the matching entry in the transcript's `entries`. */
  readonly entry: number;
  /**
   * How many entries before this one in the same transcript also matched (0 for the first match): the chat uses it
   * to find the same message among its own entries.
   */
  readonly occurrence: number;
  readonly role: 'user' | 'agent' | 'thought' | 'tool';
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

export interface SearchOptions {
  /** The most hits to return (default 50). */
  readonly limit?: number;
  /** A newer keystroke: the search returns what it found so far. */
  readonly signal?: AbortSignal;
  /** Called with the hits so far each time a chat adds some, newest chats first. */
  readonly onProgress?: (hits: readonly SearchHit[]) => void;
}

export interface ChatSearchOptions {
  /** The most hits any one search returns, whatever its `limit` (default 500). */
  readonly maxHits?: number;
}

const DEFAULT_LIMIT = 50;
const DEFAULT_MAX_HITS = 500;
/** Hits from one chat at most: the list shows many chats rather than one chat's every mention. */
const PER_CHAT = 5;
/** Longer words are not indexed (hashes, base64, minified code): they would only fill the index. */
const MAX_WORD_CHARS = 64;
/**
 * Distinct words indexed per chat. A chat with more (an agent can fill one with random tokens) is not indexed
 * further: it is read by every search instead, so the index's memory stays bounded and nothing is missed.
 */
const MAX_WORDS_PER_CHAT = 50_000;
/** Distinct words in the whole index (about 60 bytes each); a chat that would add more is read by every search. */
const MAX_WORDS = 2_000_000;
const SNIPPET_CHARS = 120;
/** Within one transcript, the indexer yields after about this much text, so a large one does not hold the thread. */
const YIELD_CHARS = 256 * 1024;
/** The postings are rewritten without the ids of changed or removed chats once there are this many, and a quarter. */
const MIN_DEAD_FOR_REWRITE = 16;

/** A word, in folded text. */
const WORD = /[\p{L}\p{N}_]+/gu;
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

// ---- Postings: the ids of the documents a word occurs in, increasing ----

/** One id (most words occur in a single chat), or ids coded as varint gaps from the previous one (from -1). */
type Postings = number | PackedIds;

interface PackedIds {
  bytes: Uint8Array;
  /** Bytes in use. */
  used: number;
  last: number;
}

function putGap(packed: PackedIds, id: number): void {
  let gap = id - packed.last;
  packed.last = id;
  if (packed.used + 5 > packed.bytes.length) {
    // Grow by a quarter rather than double: the slack left at the end of every list is what the index wastes.
    const bytes = new Uint8Array(packed.used + Math.max(8, packed.used >> 2));
    bytes.set(packed.bytes.subarray(0, packed.used));
    packed.bytes = bytes;
  }
  while (gap >= 0x80) {
    packed.bytes[packed.used++] = (gap & 0x7f) | 0x80;
    gap >>>= 7;
  }
  packed.bytes[packed.used++] = gap;
}

/** `postings` with `id` appended (greater than every id in it). */
function appendId(postings: Postings | undefined, id: number): Postings {
  if (postings === undefined) return id;
  if (typeof postings === 'number') {
    const packed: PackedIds = { bytes: new Uint8Array(8), used: 0, last: -1 };
    putGap(packed, postings);
    putGap(packed, id);
    return packed;
  }
  putGap(postings, id);
  return postings;
}

function forEachId(postings: Postings, visit: (id: number) => void): void {
  if (typeof postings === 'number') {
    visit(postings);
    return;
  }
  const { bytes, used } = postings;
  let id = -1;
  for (let i = 0; i < used;) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[i++] as number;
      gap += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    id += gap;
    visit(id);
  }
}

// ---- Queries ----

interface Query {
  /** Words that must occur whole. */
  readonly words: ReadonlySet<string>;
  /** The last word, which may be the start of a word; undefined when the query ends with a space. */
  readonly prefix: string | undefined;
}

/** The query's folded words; undefined when there are none, or one is too long to be in the index. */
function parseQuery(query: string): Query | undefined {
  const found = fold(query).match(WORD);
  if (!found || found.some((word) => word.length > MAX_WORD_CHARS)) return undefined;
  // A trailing space says the last word is complete.
  const prefix = /\s$/.test(query) ? undefined : found.pop();
  return { words: new Set(found), prefix };
}

/** The searchable text of an entry: a message's text and its links' names, or a tool call's title. */
function fieldsOf(entry: StoredEntry): string[] {
  if (entry.t === 'tool') return [entry.title];
  return entry.links ? [entry.text, ...entry.links.map((link) => link.name)] : [entry.text];
}

interface EntryMatch {
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

// ---- The index ----

/** One kept session, as the index knows it. */
interface Doc {
  readonly key: string;
  summary: TranscriptSummary;
  /** Its id in the postings; -1 while it is not indexed. */
  id: number;
  /**
   * pending: to be read (it is in the queue); indexing: being read; indexed: its words are in the postings;
   * failed: it could not be read (logged), not tried again until it changes.
   */
  state: 'pending' | 'indexing' | 'indexed' | 'failed';
  /** Counts changes, so that an indexing that a change overtook is not committed. */
  generation: number;
  /** It held more distinct words than are indexed per chat: every search reads it (it may hold any word). */
  partial?: boolean;
  /** For a search waiting for the indexer to read it: resolved with the transcript once read. */
  ready?: { readonly promise: Promise<Transcript | undefined>; readonly resolve: (t: Transcript | undefined) => void };
}

function keyOf(agent: string, sessionId: string): string {
  return `${agent}\0${sessionId}`;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A copy of a word that shares no memory with the text it was cut from. V8 keeps a substring of 13 characters or
 * more as a view of the whole string, so an index key cut from a transcript would keep all of its text alive.
 */
function detach(word: string): string {
  return word.length < 13 ? word : Buffer.from(word, 'utf8').toString('utf8');
}

/** `promise`'s value, or undefined as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export class ChatSearch {
  private readonly maxHits: number;
  private disposed = false;
  /** Every session of the last list, by keyOf(agent, sessionId). */
  private readonly docs = new Map<string, Doc>();
  /** The documents by id; undefined for an id whose document changed or went (its postings are stale). */
  private byId: (Doc | undefined)[] = [];
  private dead = 0;
  /** Bumped when ids are renumbered, so that a search in progress recomputes its candidates. */
  private epoch = 0;
  private readonly postings = new Map<string, Postings>();
  /** Every indexed word, sorted (for the last word's prefix), and those added since it was sorted. */
  private sorted: string[] = [];
  private unsorted: string[] = [];
  /** Pending documents, newest first: what the indexer reads next. */
  private queue: Doc[] = [];
  private indexing: Promise<void> | undefined;
  /** Sessions that changed since the last search, by key. */
  private readonly invalidated = new Set<string>();

  constructor(
    private readonly source: SearchSource,
    private readonly log: Logger,
    options: ChatSearchOptions = {},
  ) {
    this.maxHits = Math.max(1, options.maxHits ?? DEFAULT_MAX_HITS);
  }

  /** Indexing state, for the UI: how many chats are indexed, of how many. */
  get progress(): { indexed: number; total: number } {
    let indexed = 0;
    for (const doc of this.docs.values()) if (doc.state === 'indexed' || doc.state === 'failed') indexed++;
    return { indexed, total: this.docs.size };
  }

  /** A session's transcript changed (or was removed): it is re-read at the next search, not now. */
  invalidate(agent: string, sessionId: string): void {
    // A session the index does not know yet is found by the next search's list anyway.
    const key = keyOf(agent, sessionId);
    if (this.docs.has(key)) this.invalidated.add(key);
  }

  /**
   * Hits for `query`, newest chats first; every word of the query must occur in the same entry (case- and
   * accent-insensitive; the last word may be the start of a word, unless the query ends with a space). Searches
   * message text, tool titles and link names. An aborted search returns what it found so far.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const { signal, onProgress } = options;
    const limit = Math.min(options.limit ?? DEFAULT_LIMIT, this.maxHits);
    const parsed = parseQuery(query);
    const hits: SearchHit[] = [];
    if (!parsed || limit <= 0 || this.disposed) return hits;
    const summaries = await unlessAborted(this.sync(), signal);
    let candidates: Uint8Array | undefined;
    let epoch = -1;
    for (const summary of summaries ?? []) {
      if (signal?.aborted || this.disposed || hits.length >= limit) break;
      const doc = this.docs.get(keyOf(summary.agent, summary.sessionId));
      if (!doc || doc.state === 'failed') continue;
      let transcript: Transcript | undefined;
      if (doc.state === 'indexed') {
        // Ids only grow between renumberings: a document indexed since the candidates were found is past their end.
        if (!candidates || epoch !== this.epoch || doc.id >= candidates.length) {
          candidates = this.candidates(parsed);
          epoch = this.epoch;
        }
        if (!candidates[doc.id]) continue;
        transcript = await unlessAborted(this.readIndexed(doc), signal);
      } else {
        // Not indexed yet: the indexer, which goes newest first too, hands it over when it reads it.
        doc.ready ??= deferred();
        transcript = await unlessAborted(doc.ready.promise, signal);
      }
      if (!transcript || signal?.aborted) continue;
      const found = hits.length;
      scan(transcript, summary, parsed, hits, limit);
      if (hits.length > found) onProgress?.([...hits]);
    }
    return hits;
  }

  dispose(): void {
    this.disposed = true;
    for (const doc of this.docs.values()) doc.ready?.resolve(undefined);
    this.docs.clear();
    this.postings.clear();
    this.byId = [];
    this.sorted = [];
    this.unsorted = [];
    this.queue = [];
    this.invalidated.clear();
  }

  /** Brings the documents in line with the list, queues what is new or changed, and starts the indexer. */
  private async sync(): Promise<readonly TranscriptSummary[]> {
    let summaries: readonly TranscriptSummary[];
    try {
      summaries = await this.source.list();
    } catch (error) {
      this.log.warn(`could not list the transcripts to search them: ${errorMessage(error)}`);
      return [];
    }
    if (this.disposed) return [];
    const listed = new Set<string>();
    const queue: Doc[] = [];
    for (const summary of summaries) {
      const key = keyOf(summary.agent, summary.sessionId);
      listed.add(key);
      let doc = this.docs.get(key);
      if (!doc) {
        doc = { key, summary, id: -1, state: 'pending', generation: 0 };
        this.docs.set(key, doc);
      } else if (doc.summary.updatedAt !== summary.updatedAt || this.invalidated.has(key)) {
        if (doc.state !== 'pending') {
          this.retire(doc);
          doc.generation++;
          doc.state = 'pending';
        }
      }
      doc.summary = summary;
      if (doc.state === 'pending') queue.push(doc);
    }
    this.invalidated.clear();
    for (const doc of this.docs.values()) {
      if (listed.has(doc.key)) continue;
      this.retire(doc);
      this.docs.delete(doc.key);
      doc.ready?.resolve(undefined);
    }
    this.queue = queue;
    if (queue.length > 0) this.indexing ??= this.runIndexer();
    else if (!this.indexing) this.tidy();
    return summaries;
  }

  /** Indexes what is queued, one transcript at a time, yielding between them. Never rejects. */
  private async runIndexer(): Promise<void> {
    try {
      for (let doc = this.queue.shift(); doc && !this.disposed; doc = this.queue.shift()) {
        if (doc.state !== 'pending' || this.docs.get(doc.key) !== doc) continue;
        await this.indexOne(doc);
        // Between documents, so that searches coming one after another (which keep this run going) do not defer it.
        this.tidy();
        await yieldToLoop();
      }
    } catch (error) {
      this.log.error(`indexing the transcripts for search failed: ${errorMessage(error)}`);
    }
    // In the same tick as the queue was found empty: a sync after this starts a new run.
    this.indexing = undefined;
  }

  private async indexOne(doc: Doc): Promise<void> {
    const generation = doc.generation;
    const current = () => !this.disposed && this.docs.get(doc.key) === doc && doc.generation === generation;
    doc.state = 'indexing';
    doc.partial = false;
    const transcript = await this.read(doc);
    // A search waiting for this chat scans it now, while its words are gathered; one that asks meanwhile waits anew.
    handOver(doc, transcript);
    try {
      if (!current()) return;
      if (!transcript) {
        doc.state = 'failed';
        return;
      }
      const words = new Set<string>();
      let since = 0;
      for (const entry of transcript.entries) {
        for (const field of fieldsOf(entry)) {
          for (const word of fold(field).match(WORD) ?? []) if (word.length <= MAX_WORD_CHARS && words.size < MAX_WORDS_PER_CHAT) words.add(word);
          if (words.size >= MAX_WORDS_PER_CHAT) doc.partial = true;
          since += field.length;
        }
        if (since >= YIELD_CHARS) {
          since = 0;
          await yieldToLoop();
          if (!current()) return;
        }
      }
      // All at once, so a search never sees a document half indexed.
      const id = this.byId.length;
      this.byId.push(doc);
      doc.id = id;
      doc.state = 'indexed';
      for (const word of words) {
        const postings = this.postings.get(word);
        if (postings === undefined && this.postings.size >= MAX_WORDS) {
          doc.partial = true;
          continue;
        }
        if (postings === undefined) {
          const key = detach(word);
          this.postings.set(key, id);
          this.unsorted.push(key);
        } else {
          const appended = appendId(postings, id);
          if (appended !== postings) this.postings.set(word, appended);
        }
      }
    } finally {
      // Whoever asked while the words were being gathered gets the transcript too. When a change overtook this
      // reading, they wait for the next one instead (a removal or dispose() answers them).
      if (current()) handOver(doc, transcript);
    }
  }

  /** An indexed chat's transcript, for its matches; one that cannot be read any more is marked failed (logged). */
  private async readIndexed(doc: Doc): Promise<Transcript | undefined> {
    const generation = doc.generation;
    const transcript = await this.read(doc);
    if (doc.generation !== generation || this.docs.get(doc.key) !== doc) return transcript;
    if (!transcript) {
      this.retire(doc);
      doc.state = 'failed';
    } else if (transcript.updatedAt !== doc.summary.updatedAt) {
      // Saved since it was indexed, without an invalidate: its words are re-read at the next search.
      this.invalidated.add(doc.key);
    }
    return transcript;
  }

  /** Reads a transcript; a failure is logged here, once per change of the chat (a failed chat is not read again). */
  private async read(doc: Doc): Promise<Transcript | undefined> {
    const { agent, sessionId } = doc.summary;
    try {
      const transcript = await this.source.read(agent, sessionId);
      if (transcript) return transcript;
      this.log.warn(`search skips the transcript of session ${shortId(sessionId)}: it could not be read`);
    } catch (error) {
      this.log.warn(`search skips the transcript of session ${shortId(sessionId)}: ${errorMessage(error)}`);
    }
    return undefined;
  }

  /** Takes a document's id out of use: its postings are stale until the next rewrite. */
  private retire(doc: Doc): void {
    if (doc.id < 0) return;
    this.byId[doc.id] = undefined;
    this.dead++;
    doc.id = -1;
  }

  /** 1 at the id of every indexed document that holds every word of the query somewhere. */
  private candidates(query: Query): Uint8Array {
    const size = this.byId.length;
    const result = new Uint8Array(size);
    for (let id = 0; id < size; id++) if (this.byId[id]) result[id] = 1;
    const keep = (mark: (hit: Uint8Array) => void) => {
      const hit = new Uint8Array(size);
      mark(hit);
      for (let id = 0; id < size; id++) if (!hit[id] && !this.byId[id]?.partial) result[id] = 0;
    };
    const setIn = (hit: Uint8Array) => (id: number) => {
      hit[id] = 1;
    };
    for (const word of query.words) {
      keep((hit) => {
        const postings = this.postings.get(word);
        if (postings !== undefined) forEachId(postings, setIn(hit));
      });
    }
    const { prefix } = query;
    if (prefix !== undefined) {
      keep((hit) => {
        const sorted = this.sortedWords();
        for (let i = lowerBound(sorted, prefix); i < sorted.length; i++) {
          const word = sorted[i] as string;
          if (!word.startsWith(prefix)) break;
          const postings = this.postings.get(word);
          if (postings !== undefined) forEachId(postings, setIn(hit));
        }
      });
    }
    return result;
  }

  /** Every indexed word in code unit order; new words are sorted and merged in when a prefix is looked up. */
  private sortedWords(): readonly string[] {
    if (this.unsorted.length === 0) return this.sorted;
    const added = this.unsorted.sort();
    const old = this.sorted;
    const merged: string[] = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length)
      merged[k++] = (old[i] as string) < (added[j] as string) ? (old[i++] as string) : (added[j++] as string);
    while (i < old.length) merged[k++] = old[i++] as string;
    while (j < added.length) merged[k++] = added[j++] as string;
    this.sorted = merged;
    this.unsorted = [];
    return merged;
  }

  /**
   * Rewrites the postings without the ids of changed and removed chats, renumbering the rest, once there are
   * enough of them to matter. Ids keep their order, so every list stays increasing.
   */
  private tidy(): void {
    if (this.disposed) return;
    const live = this.byId.length - this.dead;
    if (this.dead < MIN_DEAD_FOR_REWRITE || this.dead * 4 < live) return;
    const renumbered = new Int32Array(this.byId.length).fill(-1);
    const byId: Doc[] = [];
    this.byId.forEach((doc, id) => {
      if (!doc) return;
      renumbered[id] = byId.length;
      doc.id = byId.length;
      byId.push(doc);
    });
    for (const [word, postings] of this.postings) {
      let rewritten: Postings | undefined;
      forEachId(postings, (id) => {
        const next = renumbered[id] as number;
        if (next >= 0) rewritten = appendId(rewritten, next);
      });
      if (rewritten === undefined) this.postings.delete(word);
      else if (typeof rewritten === 'number') this.postings.set(word, rewritten);
      else this.postings.set(word, { ...rewritten, bytes: rewritten.bytes.slice(0, rewritten.used) });
    }
    this.sorted = this.sorted.filter((word) => this.postings.has(word));
    this.unsorted = this.unsorted.filter((word) => this.postings.has(word));
    this.byId = byId;
    this.dead = 0;
    this.epoch++;
  }
}

/** Resolves the searches waiting for `doc` with its transcript, and lets go of it. */
function handOver(doc: Doc, transcript: Transcript | undefined): void {
  doc.ready?.resolve(transcript);
  doc.ready = undefined;
}

function deferred(): NonNullable<Doc['ready']> {
  let resolve!: (t: Transcript | undefined) => void;
  const promise = new Promise<Transcript | undefined>((r) => (resolve = r));
  return { promise, resolve };
}

/** The first index in `sorted` whose word is not below `word`. */
function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < word) low = middle + 1;
    else high = middle;
  }
  return low;
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
function scan(transcript: Transcript, summary: TranscriptSummary, query: Query, hits: SearchHit[], limit: number): void {
  const title = summaryLabel(summary);
  const hit = (entry: number, occurrence: number, match: EntryMatch): SearchHit => ({
    agent: summary.agent,
    sessionId: summary.sessionId,
    cwd: summary.cwd,
    title,
    updatedAt: summary.updatedAt,
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
