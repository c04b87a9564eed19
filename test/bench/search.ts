// `npm run bench:search`: what searching the kept transcripts costs with 500 chats of 1 MB each.
//
// The chats are realistic: text from a seeded generator over a vocabulary of 20,000 words (Zipf-distributed, a few
// accented) and 2,000 identifiers, entries of 200 B to 8 KB, a mix of user messages (some with file links), agent
// messages, thoughts and tool calls, kept through a real TranscriptStore. It prints, for the index
// (src/history/search.ts): building it (the first search, cold; and the longest the event loop waited meanwhile),
// the memory it holds (heap and array buffers), the time to first results and to all results of ~20 queries of 1 to
// 3 words on the warm index (limit 50) and how many transcripts each read, and a query after one chat was
// invalidated; and as the baseline, measured in the same run on the same chats, the naive search that reads and
// scans every transcript, with the ratio. It also checks that both find the same entries.
//
// Environment: BENCH_CHATS (default 500), BENCH_MB (default 1, the size of each chat), BENCH_QUERIES (default 20),
// BENCH_NAIVE (default 3: how many of the queries the naive search runs, each reading every transcript).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/acp/log';
import type { StoredEntry, Transcript, TranscriptSummary } from '../../src/history/format';
import { ChatSearch, type SearchSource } from '../../src/history/search';
import { fold, hitsIn, type SearchHit } from '../../src/history/searchMatch';
import { TranscriptStore } from '../../src/history/transcripts';
import { random } from './lib/random';
import { brokenExitCode, out, runBench } from './lib/run';

const CHATS = Math.max(1, Number(process.env['BENCH_CHATS'] ?? 500));
const MB = Math.max(0.01, Number(process.env['BENCH_MB'] ?? 1));
const QUERIES = Math.max(1, Number(process.env['BENCH_QUERIES'] ?? 20));
const NAIVE = Math.max(1, Math.min(QUERIES, Number(process.env['BENCH_NAIVE'] ?? 3)));
const LIMIT = 50;
const VOCABULARY = 20_000;

const next = random(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;

/** 20,000 distinct made-up words of one to four syllables; about one in fifty carries an accent. */
function makeVocabulary(): string[] {
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'st', 'tr', 'pl', 'ch', 'sh'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'x', 'nd', 'ck'];
  const accents: Record<string, string> = { a: 'à', e: 'é', i: 'ï', o: 'ô', u: 'ü' };
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const syllables = 1 + Math.floor(next() * next() * 4);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(onsets) + pick(vowels) + pick(codas);
    if (next() < 0.02) word = word.replace(/[aeiou]/, (vowel) => accents[vowel] ?? vowel);
    words.add(word);
  }
  return [...words];
}

const vocabulary = makeVocabulary();
/** Zipf: the word of rank r is drawn with a weight of 1/(r+1). */
const cumulative = (() => {
  const sums = new Float64Array(vocabulary.length);
  let total = 0;
  for (let r = 0; r < vocabulary.length; r++) sums[r] = total += 1 / (r + 1);
  return sums.map((sum) => sum / total);
})();

function word(): string {
  const x = next();
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((cumulative[middle] as number) < x) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low] as string;
}

/** The code a chat mentions: a project's identifiers, a finite set (not a new one every time). */
const identifiers = Array.from({ length: 2000 }, () => `${word()}_${word()}`);

/** Prose with a little code in it, about `length` characters. */
function text(length: number): string {
  let result = '';
  while (result.length < length) {
    const words = 5 + Math.floor(next() * 16);
    let sentence = '';
    for (let w = 0; w < words; w++) {
      const roll = next();
      const token = roll < 0.03 ? `\`${pick(identifiers)}()\`` : roll < 0.05 ? `src/${word()}/${word()}.ts` : word();
      sentence += w === 0 ? token.charAt(0).toUpperCase() + token.slice(1) : ` ${token}`;
    }
    result += `${sentence}${next() < 0.2 ? '.\n\n' : '. '}`;
  }
  return result;
}

function entry(index: number): StoredEntry {
  const roll = next();
  // 200 B to 8 KB, most of them short.
  const length = Math.round(200 * 40 ** (next() * next()));
  if (roll < 0.15) {
    const links = next() < 0.3 ? [{ uri: `file:///work/src/${word()}.ts`, name: `${word()}.ts` }] : undefined;
    return { t: 'user', text: text(length), ...(links ? { links } : {}) };
  }
  if (roll < 0.55) return { t: 'agent', text: text(length) };
  if (roll < 0.75) return { t: 'thought', text: text(length) };
  const verb = pick(['Read', 'Edit', 'Run', 'Search for', 'Write']);
  return { t: 'tool', id: `call-${index}`, title: `${verb} src/${word()}/${word()}.ts`, kind: 'read', status: 'completed' };
}

/** A chat of about BENCH_MB megabytes, its `updatedAt` by its index (chat 0 is the oldest). */
function chat(index: number): Transcript {
  const entries: StoredEntry[] = [];
  let size = 0;
  const budget = MB * 1024 * 1024 * 0.97;
  while (size < budget) {
    const e = entry(entries.length);
    size += (e.t === 'tool' ? e.title.length : e.text.length) + 60;
    entries.push(e);
  }
  const updatedAt = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
  return { v: 1, agent: 'Bench', sessionId: `chat-${index}`, cwd: '/work', title: `Chat ${index}`, updatedAt, entries };
}

const WORD = /[\p{L}\p{N}_]+/gu;

/** 1 to 3 words in a row from one entry, the last cut to a prefix every other time: what a user remembers. */
function queryFrom(transcript: Transcript, n: number): string | undefined {
  const texts = transcript.entries.filter((e): e is Extract<StoredEntry, { text: string }> => 'text' in e && e.text.length > 200);
  const words = fold(pick(texts).text).match(WORD) ?? [];
  const count = 1 + (n % 3);
  for (let attempt = 0; attempt < 20; attempt++) {
    const start = Math.floor(next() * Math.max(1, words.length - count));
    const chosen = words.slice(start, start + count);
    // Words of five letters or more: nobody searches for "the".
    if (chosen.length < count || chosen.some((w) => w.length < 5)) continue;
    if (n % 2 === 0) chosen[chosen.length - 1] = (chosen[chosen.length - 1] as string).slice(0, 4);
    return chosen.join(' ');
  }
  return undefined;
}

/** The baseline: every transcript read and every entry scanned, as a search without an index would, matching alike. */
async function naiveSearch(store: TranscriptStore, summaries: readonly TranscriptSummary[], query: string): Promise<string[]> {
  const found: string[] = [];
  for (const summary of summaries) {
    const transcript = await store.read(summary.agent, summary.sessionId);
    if (transcript) for (const hit of hitsIn(transcript, summary, query)) found.push(`${hit.sessionId}#${hit.entry}`);
  }
  return found;
}

/** The store, counting reads. */
class CountingSource implements SearchSource {
  reads = 0;
  constructor(private readonly store: TranscriptStore) {}
  list(): Promise<readonly TranscriptSummary[]> {
    return this.store.list();
  }
  read(agent: string, sessionId: string): Promise<Transcript | undefined> {
    this.reads++;
    return this.store.read(agent, sessionId);
  }
}

async function timedSearch(search: ChatSearch, query: string): Promise<{ ms: number; firstMs: number; hits: SearchHit[] }> {
  const start = performance.now();
  let firstMs = Number.NaN;
  const hits = await search.search(query, {
    limit: LIMIT,
    onProgress: () => {
      if (Number.isNaN(firstMs)) firstMs = performance.now() - start;
    },
  });
  return { ms: performance.now() - start, firstMs, hits };
}

function quantile(values: number[], q: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(1).padStart(8)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1).padStart(8)} MB`;
const gc = () => (globalThis as { gc?: () => void }).gc?.();
/** The heap, and the array buffers outside it (where the longer posting lists live). */
const heap = () => {
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

runBench('bench:search', 30 * 60_000, async () => {
  const broken: string[] = [];
  if (!(globalThis as { gc?: unknown }).gc) broken.push('run with --expose-gc, or the heap figures are noise');
  out(`node ${process.version}, load ${loadavg()[0]?.toFixed(2)}, ${CHATS} chats of ${MB} MB, limit ${LIMIT}`);
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-search-'));
  try {
    const store = new TranscriptStore(dir, silentLogger, { sessions: 1000, bytes: 1024 * 1024 });
    const queries: string[] = [];
    const writing = performance.now();
    for (let i = 0; i < CHATS; i++) {
      const transcript = chat(i);
      // Queries from chats spread over the history, newest and oldest alike.
      if (queries.length < QUERIES && i % Math.max(1, Math.floor(CHATS / QUERIES)) === 0) {
        const query = queryFrom(transcript, queries.length);
        if (query) queries.push(query);
      }
      await store.save(transcript);
    }
    await store.flush();
    const summaries = await store.list();
    out(`wrote ${summaries.length} transcripts in ${((performance.now() - writing) / 1000).toFixed(1)} s`);
    out();

    const source = new CountingSource(store);
    const heapBefore = heap();
    const search = new ChatSearch(source, silentLogger);
    // How long the event loop waits at worst while the index is built: what the extension host would feel.
    let stall = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last - 5);
      last = now;
    }, 5);
    const coldQuery = queries[0] as string;
    const buildStart = performance.now();
    const cold = await timedSearch(search, coldQuery);
    while (search.progress.indexed < search.progress.total || search.progress.total === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const build = performance.now() - buildStart;
    clearInterval(ticker);
    const heapAfter = heap();
    out(`index, cold (the first search builds it, ${search.progress.indexed} chats):`);
    out(`  first results of "${coldQuery}"   ${ms(cold.firstMs)}   all ${cold.hits.length} ${ms(cold.ms)}`);
    out(`  index built                    ${ms(build)}   longest event-loop wait meanwhile ${ms(stall)}`);
    out(`  memory held by the index       ${mb(heapAfter - heapBefore)}   (${mb(heapBefore)} before, ${mb(heapAfter)} after)`);
    out();

    const firsts: number[] = [];
    const alls: number[] = [];
    const reads: number[] = [];
    const results = new Map<string, SearchHit[]>();
    for (const query of queries) {
      source.reads = 0;
      const run = await timedSearch(search, query);
      firsts.push(run.firstMs);
      alls.push(run.ms);
      reads.push(source.reads);
      results.set(query, run.hits);
      if (run.hits.length === 0) broken.push(`"${query}" found nothing, though it was taken from a chat`);
    }
    out(`index, warm (${queries.length} queries of 1 to 3 words, the last a prefix every other time):`);
    out(`  first results (onProgress)     median ${ms(quantile(firsts, 0.5))}   p90 ${ms(quantile(firsts, 0.9))}   max ${ms(quantile(firsts, 1))}`);
    out(`  all results (up to ${LIMIT})        median ${ms(quantile(alls, 0.5))}   p90 ${ms(quantile(alls, 0.9))}   max ${ms(quantile(alls, 1))}`);
    out(`  transcripts read per query     median ${quantile(reads, 0.5)}   max ${quantile(reads, 1)} (of ${summaries.length})`);
    out(`  queries: ${queries.map((q) => `"${q}"`).join(', ')}`);
    out();

    // One chat in the middle of the history gets a new message, as a chat being recorded does.
    const changed = summaries[Math.floor(summaries.length / 2)] as TranscriptSummary;
    const before = (await store.read(changed.agent, changed.sessionId)) as Transcript;
    await store.save({ ...before, entries: [...before.entries, { t: 'agent', text: 'A brand new zyxwvutique answer.' }] });
    await store.flush();
    search.invalidate(changed.agent, changed.sessionId);
    source.reads = 0;
    const afterChange = await timedSearch(search, 'zyxwvutique');
    const readsAfterChange = source.reads;
    if (afterChange.hits.length !== 1 || afterChange.hits[0]?.sessionId !== changed.sessionId)
      broken.push(`the word added to ${changed.sessionId} was found ${afterChange.hits.length} times`);
    search.invalidate(changed.agent, changed.sessionId);
    const warmQuery = queries[queries.length - 1] as string;
    const afterChangeWarm = await timedSearch(search, warmQuery);
    out('after one chat was invalidated (the next search re-indexes it):');
    out(`  a word new in that chat        ${ms(afterChange.ms)}   (${readsAfterChange} transcripts read)`);
    out(`  "${warmQuery}"${' '.repeat(Math.max(1, 29 - warmQuery.length))}${ms(afterChangeWarm.ms)}`);
    out();

    const naive: number[] = [];
    const indexed: number[] = [];
    for (const query of queries.slice(0, NAIVE)) {
      const start = performance.now();
      const found = await naiveSearch(store, summaries, query);
      naive.push(performance.now() - start);
      indexed.push(alls[queries.indexOf(query)] as number);
      const mine = (results.get(query) ?? []).map((h) => `${h.sessionId}#${h.entry}`);
      if (mine.join() !== found.slice(0, LIMIT).join())
        broken.push(`"${query}": the index found ${mine.length} hits, the naive search ${found.length}, not the same first ${LIMIT}`);
    }
    const n = quantile(naive, 0.5);
    const i = quantile(indexed, 0.5);
    out(`baseline, naive (read and scan all ${summaries.length} transcripts; ${NAIVE} of the queries):`);
    out(`  naive search                   median ${ms(n)}`);
    out(`  index, the same queries        median ${ms(i)}   ratio ${(n / i).toFixed(0)}x faster`);
    search.dispose();
    store.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return brokenExitCode(broken);
});
