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
import { errorMessage } from '../acp/errors';
import { shortId, type Logger } from '../acp/log';
import type { Transcript, TranscriptSummary } from './format';
import { fieldsOf, fold, MAX_WORD_CHARS, parseQuery, scan, WORD, type Query, type SearchHit } from './searchMatch';
import { appendId, detach, forEachId, lowerBound, type Postings } from './searchPostings';

export interface SearchSource {
  /** Every kept session, newest first (TranscriptStore.list()). */
  list(): Promise<readonly TranscriptSummary[]>;
  /** One transcript, or undefined (TranscriptStore.read()). */
  read(agent: string, sessionId: string): Promise<Transcript | undefined>;
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
/**
 * Distinct words indexed per chat. A chat with more (an agent can fill one with random tokens) is not indexed
 * further: it is read by every search instead, so the index's memory stays bounded and nothing is missed.
 */
const MAX_WORDS_PER_CHAT = 50_000;
/** Distinct words in the whole index (about 60 bytes each); a chat that would add more is read by every search. */
const MAX_WORDS = 2_000_000;
/** Within one transcript, the indexer yields after about this much text, so a large one does not hold the thread. */
const YIELD_CHARS = 256 * 1024;
/** The postings are rewritten without the ids of changed or removed chats once there are this many, and a quarter. */
const MIN_DEAD_FOR_REWRITE = 16;

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
