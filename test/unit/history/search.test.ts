// Search over the kept transcripts: what matches, in what order, what a hit says, and that the index keeps up with
// changes without reading every transcript per search. Real files, through a real TranscriptStore.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEntry, Transcript, TranscriptSummary } from '../../../src/history/format';
import { ChatSearch, type SearchSource } from '../../../src/history/search';
import { snippetAround, type SearchHit } from '../../../src/history/searchMatch';
import { TranscriptStore } from '../../../src/history/transcripts';
import { RecordingLogger } from '../lib/recording-logger';

function transcript(sessionId: string, updatedAt: string, entries: StoredEntry[], title?: string): Transcript {
  return { v: 1, agent: 'Agent', sessionId, cwd: '/work', updatedAt, entries, ...(title ? { title } : {}) };
}

const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`;

/** The store, counting the transcripts read through it. */
class CountingSource implements SearchSource {
  readonly reads: string[] = [];
  constructor(private readonly store: TranscriptStore) {}
  list(): Promise<readonly TranscriptSummary[]> {
    return this.store.list();
  }
  read(agent: string, sessionId: string): Promise<Transcript | undefined> {
    this.reads.push(sessionId);
    return this.store.read(agent, sessionId);
  }
}

const where = (hits: readonly SearchHit[]) => hits.map((h) => `${h.sessionId}#${h.entry}`);

describe('chat search', () => {
  let dir: string;
  let log: RecordingLogger;
  let store: TranscriptStore;
  let source: CountingSource;
  let search: ChatSearch;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-search-'));
    log = new RecordingLogger();
    store = new TranscriptStore(dir, log);
    source = new CountingSource(store);
    search = new ChatSearch(source, log);
  });

  afterEach(async () => {
    search.dispose();
    await store.flush();
    store.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('what matches', () => {
    beforeEach(async () => {
      await store.save(
        transcript(
          'a',
          day(1),
          [
            { t: 'user', text: 'Please fix the flaky parser test', links: [{ uri: 'file:///work/src/tokenizer.ts', name: 'tokenizer.ts' }] },
            { t: 'thought', text: 'The parser has a race in its cache.' },
            { t: 'tool', id: 'c1', title: 'Read grammar.ebnf', kind: 'read', status: 'completed' },
            { t: 'agent', text: 'Fixed: the Component now awaits the cache. Été café naïve.' },
          ],
          'Parser work',
        ),
      );
    });

    it('finds words in user and agent text, thoughts, tool titles and link names, with the chat and entry', async () => {
      const [user] = await search.search('flaky');
      assert.deepEqual(
        { ...user, snippet: undefined, highlight: undefined },
        {
          agent: 'Agent',
          sessionId: 'a',
          cwd: '/work',
          title: 'Parser work',
          updatedAt: day(1),
          entry: 0,
          occurrence: 0,
          role: 'user',
          roleIndex: 0,
          snippet: undefined,
          highlight: undefined,
        },
      );
      assert.deepEqual(
        (await search.search('cache')).map((h) => [h.entry, h.role, h.occurrence]),
        [
          [1, 'thought', 0],
          [3, 'agent', 1],
        ],
      );
      assert.deepEqual(
        (await search.search('grammar')).map((h) => [h.entry, h.role]),
        [[2, 'tool']],
      );
      assert.deepEqual(
        (await search.search('tokenizer.ts')).map((h) => [h.entry, h.role, h.snippet]),
        [[0, 'user', 'tokenizer.ts']],
      );
    });

    it('finds the entries with every word; a chat with the words apart comes once, at the entry with the most of them', async () => {
      assert.deepEqual(where(await search.search('parser race')), ['a#1']);
      assert.deepEqual(where(await search.search('flaky race')), ['a#0'], 'flaky and race are in different entries: one hit, at the first');
      assert.deepEqual(where(await search.search('flaky race cache')), ['a#1'], 'the entry with two of the three words');
      assert.deepEqual(where(await search.search('flaky nowhere')), [], 'a word in no entry: no hit');
      assert.deepEqual(where(await search.search('flaky tokenizer')), ['a#0'], 'a link name counts as the entry');
      assert.deepEqual(where(await search.search('')), []);
      assert.deepEqual(where(await search.search(' .,; ')), []);
    });

    it('takes the last word as the start of a word, and only the last', async () => {
      assert.deepEqual(where(await search.search('compo')), ['a#3']);
      assert.deepEqual(where(await search.search('compo ')), [], 'a trailing space makes the word whole');
      assert.deepEqual(where(await search.search('compo awaits')), [], 'only the last word is a prefix');
      assert.deepEqual(where(await search.search('awaits compo')), ['a#3']);
      assert.deepEqual(where(await search.search('pars')), ['a#0', 'a#1']);
    });

    it('ignores case and accents, in the text and in the query', async () => {
      assert.deepEqual(where(await search.search('ETE CAFE')), ['a#3']);
      assert.deepEqual(where(await search.search('été naïve')), ['a#3']);
      assert.deepEqual(where(await search.search('COMPONENT')), ['a#3']);
      // A decomposed accent in the query is the same word.
      assert.deepEqual(where(await search.search('cafe\u0301')), ['a#3']);
    });

    it('cuts a snippet around the first match and says where the match is in it', async () => {
      const [hit] = await search.search('cache component');
      assert.ok(hit);
      assert.equal(hit.snippet, 'Fixed: the Component now awaits the cache. Été café naïve.');
      assert.equal(hit.snippet.slice(hit.highlight[0], hit.highlight[0] + hit.highlight[1]), 'Component', 'the first match');
      const [prefix] = await search.search('caf');
      assert.ok(prefix);
      assert.equal(prefix.snippet.slice(prefix.highlight[0], prefix.highlight[0] + prefix.highlight[1]), 'caf', 'the prefix only');
    });
  });

  it('cuts a long text on one line with "…" on the sides that were cut', () => {
    const text = `${'lorem ipsum dolor\n\n'.repeat(40)}the NEEDLE here\t\t${'sit amet consectetur\n'.repeat(40)}`;
    const start = text.indexOf('NEEDLE');
    const { snippet, highlight } = snippetAround(text, start, start + 6);
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'), snippet);
    assert.ok(!/[\n\t]/.test(snippet), 'on one line');
    assert.ok(snippet.length <= 122 && snippet.length >= 90, `about 120 characters: ${snippet.length}`);
    assert.equal(snippet.slice(highlight[0], highlight[0] + highlight[1]), 'NEEDLE');
    assert.match(snippet, /the NEEDLE here sit/);
    // At the start of a short text nothing is cut.
    assert.deepEqual(snippetAround('  NEEDLE in a short text ', 2, 8), { snippet: 'NEEDLE in a short text', highlight: [0, 6] });
  });

  it('lists the newest chats first, and the entries of a chat in order, up to the limit', async () => {
    await store.save(transcript('old', day(1), [{ t: 'user', text: 'deploy the thing' }]));
    await store.save(
      transcript('new', day(3), [
        { t: 'user', text: 'deploy again' },
        { t: 'agent', text: 'nothing to see' },
        { t: 'agent', text: 'deployed, as asked: deploy done' },
      ]),
    );
    await store.save(transcript('middle', day(2), [{ t: 'agent', text: 'Deploy failed' }]));
    const hits = await search.search('deploy');
    assert.deepEqual(where(hits), ['new#0', 'new#2', 'middle#0', 'old#0']);
    assert.deepEqual(
      hits.map((h) => h.occurrence),
      [0, 1, 0, 0],
      'occurrence counts the earlier matches in the same chat',
    );
    assert.deepEqual(where(await search.search('deploy', { limit: 2 })), ['new#0', 'new#2']);
    assert.deepEqual(where(await new ChatSearch(source, log, { maxHits: 1 }).search('deploy')), ['new#0']);
  });

  it('reports partial results as chats are searched, and its progress', async () => {
    for (let i = 1; i <= 3; i++) await store.save(transcript(`s${i}`, day(i), [{ t: 'user', text: `shared word ${i}` }]));
    assert.deepEqual(search.progress, { indexed: 0, total: 0 }, 'nothing is read before the first search');
    const partial: string[][] = [];
    const hits = await search.search('shared', { onProgress: (so) => partial.push(where(so)) });
    assert.deepEqual(partial, [['s3#0'], ['s3#0', 's2#0'], ['s3#0', 's2#0', 's1#0']]);
    assert.deepEqual(where(hits), ['s3#0', 's2#0', 's1#0']);
    assert.deepEqual(search.progress, { indexed: 3, total: 3 });
  });

  it('reads only the chats that hold the words once the index is built', async () => {
    for (let i = 1; i <= 5; i++) await store.save(transcript(`s${i}`, day(i), [{ t: 'user', text: `common words and unique${i}` }]));
    await search.search('nothing-matches-this');
    assert.equal(source.reads.length, 5, 'the first search indexes every chat');
    source.reads.length = 0;
    assert.deepEqual(where(await search.search('unique3')), ['s3#0']);
    assert.deepEqual(source.reads, ['s3'], 'the second search reads the one chat that matches');
    source.reads.length = 0;
    assert.deepEqual(where(await search.search('uniq common')), [], 'prefix of the last word only');
    assert.deepEqual(source.reads, []);
    assert.deepEqual(where(await search.search('common uniq')).length, 5);
  });

  it('indexes a bounded number of words per chat, and still finds what is past the bound by reading that chat', async () => {
    // An agent can fill a chat with random tokens: past the bound the chat is read by every search, not indexed.
    const flood = Array.from({ length: 55_000 }, (_, i) => `tok${i.toString(36)}x`).join(' ');
    await store.save(transcript('flood', day(1), [{ t: 'agent', text: `${flood} needle` }]));
    await store.save(transcript('plain', day(2), [{ t: 'user', text: 'nothing here' }]));
    assert.deepEqual(where(await search.search('needle')), ['flood#0'], 'the word past the bound is found');
    source.reads.length = 0;
    assert.deepEqual(where(await search.search('nothing')), ['plain#0']);
    assert.deepEqual(source.reads.sort(), ['flood', 'plain'], 'the chat past the bound is read, as a candidate for every word');
  });

  it('re-indexes an invalidated chat at the next search: new text found, old text gone', async () => {
    await store.save(transcript('a', day(1), [{ t: 'user', text: 'first version' }]));
    await store.save(transcript('b', day(2), [{ t: 'user', text: 'other chat' }]));
    assert.deepEqual(where(await search.search('first')), ['a#0']);
    // The same updatedAt: only the invalidate tells the index.
    await store.save(transcript('a', day(1), [{ t: 'user', text: 'second version' }]));
    search.invalidate('Agent', 'a');
    source.reads.length = 0;
    assert.deepEqual(where(await search.search('second')), ['a#0']);
    assert.deepEqual(source.reads, ['a'], 'only the invalidated chat is read again');
    assert.deepEqual(where(await search.search('first')), []);
    // A new updatedAt in the list is a change too, without an invalidate.
    await store.save(transcript('a', day(3), [{ t: 'user', text: 'third version' }]));
    assert.deepEqual(where(await search.search('third')), ['a#0']);
    assert.deepEqual(where(await search.search('version')), ['a#0']);
  });

  it('drops a removed chat, and forgets the ids of changed chats after enough changes', async () => {
    await store.save(transcript('gone', day(1), [{ t: 'user', text: 'remove me' }]));
    await store.save(transcript('kept', day(2), [{ t: 'user', text: 'keep me' }]));
    assert.deepEqual(where(await search.search('me')), ['kept#0', 'gone#0']);
    await store.remove('Agent', 'gone');
    search.invalidate('Agent', 'gone');
    assert.deepEqual(where(await search.search('me')), ['kept#0']);
    assert.deepEqual(search.progress, { indexed: 1, total: 1 });
    // Many changes to one chat: the index stays right while stale ids are rewritten away.
    for (let i = 0; i < 40; i++) {
      await store.save(transcript('kept', day(2), [{ t: 'user', text: `keep me version${i}` }]));
      search.invalidate('Agent', 'kept');
      assert.deepEqual(where(await search.search(`version${i}`)), ['kept#0']);
    }
    assert.deepEqual(where(await search.search('version1')), []);
    assert.deepEqual(where(await search.search('version3')), ['kept#0'], 'version3 and version39 share the prefix');
  });

  it('skips a transcript that became invalid, with one log line however many searches', async () => {
    await store.save(transcript('good', day(1), [{ t: 'user', text: 'needle in a good chat' }]));
    await store.save(transcript('bad', day(2), [{ t: 'user', text: 'needle in a bad chat' }]));
    assert.deepEqual(where(await search.search('needle')), ['bad#0', 'good#0']);
    const file = `${createHash('sha256').update('Agent\0bad').digest('hex').slice(0, 32)}.json`;
    writeFileSync(join(dir, file), '{ not json');
    search.invalidate('Agent', 'bad');
    for (let i = 0; i < 3; i++) assert.deepEqual(where(await search.search('needle')), ['good#0']);
    assert.equal(log.find('search skips the transcript of session bad').length, 1, log.toString());

    // A source that keeps failing, without the store forgetting the chat: still one line.
    const failing = new RecordingLogger();
    const broken: SearchSource = {
      list: () => store.list(),
      read: (agent, sessionId) => (sessionId === 'good' ? Promise.reject(new Error('disk on fire')) : store.read(agent, sessionId)),
    };
    const other = new ChatSearch(broken, failing);
    for (let i = 0; i < 3; i++) assert.deepEqual(where(await other.search('needle')), []);
    assert.deepEqual(
      failing.lines.map((l) => l.message),
      ['search skips the transcript of session good: disk on fire'],
    );
    other.dispose();
  });

  it('returns early when a newer keystroke aborts it', async () => {
    for (let i = 1; i <= 4; i++) await store.save(transcript(`s${i}`, day(i), [{ t: 'user', text: `shared ${i}` }]));
    const aborted = new AbortController();
    aborted.abort();
    assert.deepEqual(await search.search('shared', { signal: aborted.signal }), []);
    // Cold: aborted after the first chat, while the index is being built; what was found so far comes back.
    const controller = new AbortController();
    const hits = await search.search('shared', { signal: controller.signal, onProgress: () => controller.abort() });
    assert.deepEqual(where(hits), ['s4#0']);
    // The index is still built in the background, and a later search sees everything.
    assert.deepEqual(where(await search.search('shared')), ['s4#0', 's3#0', 's2#0', 's1#0']);
    // Warm: the same.
    const warm = new AbortController();
    assert.deepEqual(where(await search.search('shared', { signal: warm.signal, onProgress: () => warm.abort() })), ['s4#0']);
  });

  it('answers nothing once disposed', async () => {
    await store.save(transcript('a', day(1), [{ t: 'user', text: 'hello' }]));
    search.dispose();
    assert.deepEqual(await search.search('hello'), []);
  });
});
