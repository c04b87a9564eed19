// The local transcript store: what it keeps of a session (compactly), its bounds, and how it survives bad files.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionModel } from '../../../src/acp/sessionModel';
import {
  boundTranscript,
  replayTranscript,
  storedEntries,
  summaryLabel,
  workspaceKey,
  type StoredEntry,
  type Transcript,
} from '../../../src/history/format';
import { TranscriptRecorder } from '../../../src/history/recorder';
import { TranscriptStore } from '../../../src/history/transcripts';
import { waitFor } from '../../lib/wait';
import { RecordingLogger } from '../lib/recording-logger';

function transcript(sessionId: string, updatedAt: string, entries: StoredEntry[] = [{ t: 'user', text: `hello from ${sessionId}` }]): Transcript {
  return { v: 1, agent: 'Agent', sessionId, cwd: '/work', updatedAt, entries };
}

/** A model that went through a small conversation, chunk by chunk as agents send it. */
function conversation(): SessionModel {
  const model = new SessionModel('s-1');
  model.beginTurn([
    { type: 'text', text: 'Fix the test' },
    { type: 'resource', resource: { uri: 'file:///work/src/a.ts', text: 'x'.repeat(10_000) } },
    { type: 'image', mimeType: 'image/png', data: 'A'.repeat(5000) },
  ]);
  model.apply({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Let me ' } });
  model.apply({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'look.' } });
  model.apply({
    sessionUpdate: 'tool_call',
    toolCallId: 'c1',
    title: 'Read a.ts',
    kind: 'read',
    status: 'pending',
    rawInput: { path: '/work/src/a.ts', blob: 'y'.repeat(10_000) },
  });
  model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawOutput: { text: 'z'.repeat(10_000) } });
  for (const text of ['', 'Done', ', the ', 'test passes.']) model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  model.apply({ sessionUpdate: 'plan', entries: [{ content: 'Fix it', status: 'completed', priority: 'high' }] });
  model.apply({ sessionUpdate: 'session_info_update', title: 'Fixing the test' });
  return model;
}

describe('transcripts', () => {
  let dir: string;
  let log: RecordingLogger;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-transcripts-'));
    log = new RecordingLogger();
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('what is kept', () => {
    it('keeps messages with their chunks joined, attachments as links, and tool calls without their raw payloads', () => {
      const entries = storedEntries(conversation());
      assert.deepEqual(entries, [
        { t: 'user', text: 'Fix the test', links: [{ uri: 'file:///work/src/a.ts', name: 'a.ts' }], sent: true },
        { t: 'thought', text: 'Let me look.' },
        { t: 'tool', id: 'c1', title: 'Read a.ts', kind: 'read', status: 'completed' },
        { t: 'agent', text: 'Done, the test passes.' },
      ]);
      assert.ok(JSON.stringify(entries).length < 400, 'no file content, image data or raw payload');
    });

    it('replays a transcript into a model that shows the same conversation, two messages in a row kept apart', () => {
      const entries: StoredEntry[] = [
        ...storedEntries(conversation()),
        { t: 'agent', text: 'A second message.' },
        { t: 'tool', id: 'c2', title: 'Stopped', kind: 'weird-kind', status: 'cancelled' },
      ];
      const model = replayTranscript({
        sessionId: 's-1',
        entries,
        title: 'Fixing the test',
        plan: [{ content: 'Fix it', status: 'completed', priority: 'high' }],
      });
      assert.deepEqual(storedEntries(model), [
        ...entries.slice(0, -1),
        { t: 'tool', id: 'c2', title: 'Stopped', kind: 'other', status: 'cancelled' },
      ]);
      // The user's message is the user's record again; an agent's record of one stays the agent's.
      const users = model.entries.filter((e) => e.type === 'message' && e.role === 'user');
      assert.deepEqual(
        users.map((e) => e.type === 'message' && e.sent),
        [true],
      );
      const replayed = replayTranscript({
        sessionId: 's-2',
        entries: [{ t: 'user', text: 'as the agent recorded it', links: [{ uri: 'file:///x', name: 'x' }] }],
      });
      assert.equal(replayed.entries[0]?.type === 'message' && replayed.entries[0].sent, undefined);
      replayed.dispose();
      assert.equal(model.title, 'Fixing the test');
      assert.equal(model.plan.length, 1);
      assert.equal(model.turn.phase, 'idle');
      model.dispose();
    });
  });

  describe('the store', () => {
    it('saves, lists the newest first with a label, and reads a transcript back', async () => {
      const store = new TranscriptStore(dir, log);
      await store.save(transcript('old', '2026-01-01T00:00:00.000Z'));
      await store.save({ ...transcript('new', '2026-02-01T00:00:00.000Z'), title: 'The new one' });
      assert.deepEqual(
        (await store.list()).map((s) => [s.sessionId, summaryLabel(s)]),
        [
          ['new', 'The new one'],
          ['old', 'hello from old'],
        ],
      );
      assert.deepEqual(await store.read('Agent', 'old'), transcript('old', '2026-01-01T00:00:00.000Z'));
      assert.equal(await store.read('Other agent', 'old'), undefined, 'transcripts are per agent');
      // A new store on the same folder (the next window) sees the same.
      assert.deepEqual(
        (await new TranscriptStore(dir, log).list()).map((s) => s.sessionId),
        ['new', 'old'],
      );
    });

    it('keeps both of a rename and an archive asked at once, and the later of two renames', async () => {
      const store = new TranscriptStore(dir, log);
      await store.save(transcript('s', '2026-01-01T00:00:00.000Z'));
      assert.deepEqual(await Promise.all([store.retitle('Agent', 's', 'First'), store.setArchived('Agent', 's', true)]), [true, true]);
      assert.deepEqual(await Promise.all([store.retitle('Agent', 's', 'Second'), store.retitle('Agent', 's', 'Third')]), [true, true]);
      await store.flush();
      const kept = await new TranscriptStore(dir, log).read('Agent', 's');
      assert.equal(kept?.title, 'Third');
      assert.equal(kept?.archived, true);
    });

    it('archives and unarchives a kept transcript in its place, with the mark in the list and on disk', async () => {
      const store = new TranscriptStore(dir, log);
      await store.save(transcript('old', '2026-01-01T00:00:00.000Z'));
      await store.save(transcript('new', '2026-02-01T00:00:00.000Z'));
      assert.equal(await store.setArchived('Agent', 'old', true), true);
      assert.equal(await store.setArchived('Agent', 'missing', true), false, 'nothing kept, nothing archived');
      assert.deepEqual(
        (await store.list()).map((s) => [s.sessionId, s.archived ?? false]),
        [
          ['new', false],
          ['old', true],
        ],
        'archiving is not a change of the conversation: the order stays',
      );
      assert.equal((await new TranscriptStore(dir, log).read('Agent', 'old'))?.archived, true, 'kept on disk');
      await store.setArchived('Agent', 'old', false);
      const back = await new TranscriptStore(dir, log).read('Agent', 'old');
      assert.deepEqual(back, transcript('old', '2026-01-01T00:00:00.000Z'), 'unarchived leaves no mark');
    });

    it('keeps at most the configured number of sessions, dropping the least recently updated with their files', async () => {
      const store = new TranscriptStore(dir, log, { sessions: 3, bytes: 1024 * 1024 });
      const removed: string[] = [];
      store.onDidRemove(({ sessionId }) => removed.push(sessionId));
      for (let i = 1; i <= 5; i++) await store.save(transcript(`s${i}`, `2026-01-0${i}T00:00:00.000Z`));
      assert.deepEqual(removed, ['s1', 's2'], 'whoever keeps more of a session (its checkpoints) hears it went');
      await store.remove('Agent', 's4');
      assert.deepEqual(removed, ['s1', 's2', 's4']);
      assert.deepEqual(
        (await store.list()).map((s) => s.sessionId),
        ['s5', 's3'],
      );
      assert.equal(await store.read('Agent', 's1'), undefined);
      assert.equal(readdirSync(dir).filter((f) => f !== 'index.json').length, 2, 'the dropped transcripts are deleted');
    });

    it('keeps a transcript within its size by dropping the oldest entries, and says how many', async () => {
      const limit = 4000;
      const store = new TranscriptStore(dir, log, { sessions: 100, bytes: limit });
      const entries: StoredEntry[] = Array.from({ length: 100 }, (_, i) => ({ t: i % 2 ? 'agent' : 'user', text: `message ${i} ${'.'.repeat(90)}` }));
      await store.save(transcript('big', '2026-01-01T00:00:00.000Z', entries));
      const files = readdirSync(dir).filter((f) => f !== 'index.json');
      assert.ok(statSync(join(dir, files[0]!)).size <= limit, `the file has ${statSync(join(dir, files[0]!)).size} bytes`);
      const kept = await store.read('Agent', 'big');
      assert.ok(kept);
      assert.ok(kept.entries.length > 10 && kept.entries.length < 100);
      assert.equal((kept.dropped ?? 0) + kept.entries.length, 100);
      const last = kept.entries[kept.entries.length - 1];
      assert.ok(last && 'text' in last && last.text.startsWith('message 99 '), 'the newest entries stay');
    });

    it('keeps the end of a single entry that is larger than the bound, without splitting a character', () => {
      const text = `${'😀'.repeat(3000)}THE END`;
      const bounded = boundTranscript(transcript('huge', '2026-01-01T00:00:00.000Z', [{ t: 'agent', text }]), 2000);
      assert.ok(Buffer.byteLength(JSON.stringify(bounded)) <= 2000);
      const first = bounded.entries[0];
      assert.ok(first && 'text' in first && first.text.endsWith('THE END') && first.text.startsWith('…'));
      assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(first.text), 'no lone surrogate');
    });

    it('skips a transcript that is not JSON, or does not validate, with a log line, and drops it from the list', async () => {
      const store = new TranscriptStore(dir, log);
      await store.save(transcript('bad-json', '2026-01-01T00:00:00.000Z'));
      await store.save(transcript('bad-shape', '2026-01-02T00:00:00.000Z'));
      await store.save(transcript('good', '2026-01-03T00:00:00.000Z'));
      const fileOf = (id: string) =>
        readdirSync(dir)
          .filter((f) => f !== 'index.json')
          .find((f) => readFileSync(join(dir, f), 'utf8').includes(`"${id}"`));
      writeFileSync(join(dir, fileOf('bad-json')!), '{"v":1,"agent":');
      writeFileSync(
        join(dir, fileOf('bad-shape')!),
        JSON.stringify({ ...transcript('bad-shape', '2026-01-02T00:00:00.000Z'), entries: [{ t: 'user', text: 42 }] }),
      );
      assert.equal(await store.read('Agent', 'bad-json'), undefined);
      assert.equal(await store.read('Agent', 'bad-shape'), undefined);
      assert.equal(log.find(/skipped the transcript [0-9a-f]{32}\.json: it is not readable JSON/, 'warn').length, 1, log.toString());
      assert.equal(log.find(/skipped the transcript [0-9a-f]{32}\.json: entries\.0\.text: /, 'warn').length, 1, log.toString());
      await store.flush();
      assert.deepEqual(
        (await store.list()).map((s) => s.sessionId),
        ['good'],
      );
      assert.equal((await store.read('Agent', 'good'))?.sessionId, 'good');
      assert.equal(readdirSync(dir).length, 4, 'the files that do not validate stay on disk');
    });

    it('rebuilds a corrupt index from the transcripts, with a log line', async () => {
      const first = new TranscriptStore(dir, log);
      await first.save(transcript('a', '2026-01-01T00:00:00.000Z'));
      await first.save(transcript('b', '2026-01-02T00:00:00.000Z'));
      writeFileSync(join(dir, 'index.json'), '{"v":1,"sessions":[{"agent":3}]}');
      const store = new TranscriptStore(dir, log);
      assert.deepEqual(
        (await store.list()).map((s) => s.sessionId),
        ['b', 'a'],
      );
      assert.equal(log.find('the history index does not validate', 'warn').length, 1, log.toString());
      assert.deepEqual(
        (await new TranscriptStore(dir, log).list()).map((s) => s.sessionId),
        ['b', 'a'],
        'the rebuilt index was written',
      );
      assert.equal(log.find('the history index does not validate', 'warn').length, 1, 'once');
    });

    it('is empty when its folder does not exist yet, and creates nothing until a save', async () => {
      const store = new TranscriptStore(join(dir, 'not-yet'), log);
      assert.deepEqual(await store.list(), []);
      assert.equal(await store.read('Agent', 'x'), undefined);
      assert.equal(existsSync(join(dir, 'not-yet')), false);
      assert.deepEqual(log.lines, [], 'a missing folder is no problem');
    });

    it('writes one file at a time, the latest save of a session winning, and reads see saves not yet written', async () => {
      const store = new TranscriptStore(dir, log);
      let rounds = 0;
      store.onDidChange(() => rounds++);
      const saves: Promise<void>[] = [];
      // A thousand saves of ten sessions, as fast as chats could ask: nothing waits for the disk in between.
      for (let i = 0; i < 1000; i++) {
        const id = `s${i % 10}`;
        saves.push(
          store.save(
            transcript(id, `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`, [{ t: 'user', text: `save ${i}` }]),
          ),
        );
        if (i === 500) assert.deepEqual((await store.read('Agent', id))?.entries, [{ t: 'user', text: 'save 500' }], 'a read sees the latest save');
      }
      await Promise.all(saves);
      await store.flush();
      assert.ok(rounds <= 4, `${rounds} rounds of writes for 1000 saves: the pending saves of a session are one write`);
      const again = new TranscriptStore(dir, log);
      for (let n = 0; n < 10; n++) {
        const last = 990 + n;
        assert.deepEqual((await again.read('Agent', `s${n}`))?.entries, [{ t: 'user', text: `save ${last}` }], `s${n} holds its last save`);
      }
      assert.equal((await again.list()).length, 10);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.tmp')),
        [],
        'no temporary file is left',
      );
      assert.deepEqual(log.lines, []);
    });

    it('flushes what was asked before and while flushing', async () => {
      const store = new TranscriptStore(dir, log);
      void store.save(transcript('a', '2026-01-01T00:00:00.000Z'));
      const flushed = store.flush();
      void store.save(transcript('b', '2026-01-02T00:00:00.000Z'));
      void store.remove('Agent', 'a');
      await flushed;
      assert.deepEqual(
        (await new TranscriptStore(dir, log).list()).map((s) => s.sessionId),
        ['b'],
      );
      assert.equal(await new TranscriptStore(dir, log).read('Agent', 'a'), undefined);
    });

    it('lists what was saved and removed before the list was asked for, whether or not it is on disk yet', async () => {
      const store = new TranscriptStore(dir, log);
      void store.save(transcript('a', '2026-01-01T00:00:00.000Z'));
      void store.save(transcript('b', '2026-01-02T00:00:00.000Z'), 'a'); // b carries a on
      assert.deepEqual(
        (await store.list()).map((s) => s.sessionId),
        ['b'],
      );
      void store.remove('Agent', 'b');
      assert.deepEqual(await store.list(), []);
    });

    it('says when a transcript cannot be written, and the save still settles', async () => {
      writeFileSync(join(dir, 'blocked'), 'a file where the folder should be');
      const store = new TranscriptStore(join(dir, 'blocked'), log);
      await store.save(transcript('lost', '2026-01-02T00:00:00.000Z'));
      assert.equal(log.find(/could not keep the transcript of session lost/, 'warn').length, 1, log.toString());
      assert.deepEqual(await store.list(), []);
    });

    it('names a workspace\u2019s folder by a hash of its identity', () => {
      assert.match(workspaceKey('file:///home/me/project'), /^[0-9a-f]{24}$/);
      assert.notEqual(workspaceKey('file:///home/me/project'), workspaceKey('file:///home/me/other'));
    });
  });

  describe('the recorder', () => {
    it('writes a changing session once per delay, and at once on dispose', async () => {
      const store = new TranscriptStore(dir, log);
      let saves = 0;
      store.onDidChange(() => saves++);
      const model = new SessionModel('rec');
      const recorder = new TranscriptRecorder(store, { agent: 'Agent', sessionId: 'rec', cwd: '/work' }, model, { delayMs: 50 });
      model.beginTurn([{ type: 'text', text: 'hi' }]);
      for (let i = 0; i < 100; i++) model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ` } });
      assert.equal(await store.read('Agent', 'rec'), undefined, 'nothing is written at once');
      await waitFor(() => saves === 1, { what: 'the debounced write' });
      assert.ok(await store.read('Agent', 'rec'));
      assert.equal(saves, 1, 'a hundred chunks, one write');
      model.apply({ sessionUpdate: 'session_info_update', title: 'Greeting' });
      recorder.dispose();
      assert.equal((await store.read('Agent', 'rec'))?.title, 'Greeting', 'dispose asks for what is pending');
      await store.flush();
      assert.equal(saves, 2);
      assert.equal((await new TranscriptStore(dir, log).read('Agent', 'rec'))?.title, 'Greeting', 'and the flush puts it on disk');
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'after' } });
      await store.flush();
      assert.equal(saves, 2, 'a disposed recorder writes nothing more');
    });

    it('keeps no transcript for a session without messages', async () => {
      const store = new TranscriptStore(dir, log);
      const model = new SessionModel('empty');
      const recorder = new TranscriptRecorder(store, { agent: 'Agent', sessionId: 'empty', cwd: '/work' }, model, { delayMs: 10 });
      model.apply({ sessionUpdate: 'available_commands_update', availableCommands: [] });
      recorder.dispose();
      await store.flush();
      assert.deepEqual(await store.list(), []);
    });

    it('carries an earlier transcript on: its entries and title first, and the earlier session\u2019s own transcript removed', async () => {
      const store = new TranscriptStore(dir, log);
      await store.save({
        ...transcript('before', '2026-01-01T00:00:00.000Z', [
          { t: 'user', text: 'earlier' },
          { t: 'agent', text: 'answer' },
        ]),
        title: 'Old title',
      });
      const earlier = (await store.read('Agent', 'before'))!;
      const model = new SessionModel('after');
      const recorder = new TranscriptRecorder(store, { agent: 'Agent', sessionId: 'after', cwd: '/work' }, model, {
        prefix: earlier.entries,
        title: earlier.title,
        replaces: 'before',
        delayMs: 10,
      });
      recorder.dispose(); // closed without a word: the carried conversation is kept all the same
      await store.flush();
      assert.deepEqual(
        (await store.list()).map((s) => [s.sessionId, s.title]),
        [['after', 'Old title']],
      );
      assert.deepEqual((await store.read('Agent', 'after'))?.entries, earlier.entries);
      assert.equal(await store.read('Agent', 'before'), undefined);
      assert.equal(readdirSync(dir).length, 2, 'its file and the index');
    });
  });
});
