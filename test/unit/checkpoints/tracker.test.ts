// The tracker of one chat's checkpoints, on real files in a temp folder: the client's own record stands for the
// snapshots here (the shadow repository has its own tests), and the files are read and written on disk.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { silentLogger } from '../../../src/acp/log';
import { ABSENT, ClientRecord, GitSnapshotter, type FileState, type TrackedFile } from '../../../src/checkpoints/points';
import { ShadowRepo } from '../../../src/checkpoints/shadowGit';
import type { WorkspaceIO } from '../../../src/checkpoints/moves';
import { ChatCheckpoints } from '../../../src/checkpoints/tracker';
import { fitted, type SavedTurn, type TurnStore } from '../../../src/checkpoints/turnStore';
import { waitFor } from '../../lib/wait';

const words = {
  skipped: () => 'skipped',
  clientOnly: () => 'client only',
  early: () => 'early',
  failed: (reason: string) => `failed: ${reason}`,
};

describe('checkpoints: the tracker', () => {
  let folder: string;
  let record: ClientRecord;
  let tracker: ChatCheckpoints;
  const file = (rel: string): TrackedFile => ({ folder, rel });
  const path = (rel: string) => join(folder, rel);
  const read = (rel: string) => (existsSync(path(rel)) ? readFileSync(path(rel), 'utf8') : undefined);
  const state = (text: string | undefined): FileState => (text === undefined ? ABSENT : { exists: true, bytes: Buffer.from(text) });

  const io: WorkspaceIO = {
    current: (f) => Promise.resolve(state(existsSync(join(f.folder, f.rel)) ? readFileSync(join(f.folder, f.rel), 'utf8') : undefined)),
    async apply(writes) {
      for (const w of writes) {
        const p = join(w.file.folder, w.file.rel);
        if (!w.state.exists) rmSync(p, { force: true });
        else {
          mkdirSync(dirname(p), { recursive: true });
          writeFileSync(p, w.state.bytes);
        }
      }
    },
  };

  /** The agent writes through the client: the file changes, and the record hears of it. */
  function agentWrites(rel: string, text: string | undefined): void {
    const before = state(read(rel));
    if (text === undefined) rmSync(path(rel));
    else writeFileSync(path(rel), text);
    record.wrote(file(rel), before, state(text), true);
  }

  async function playTurn(turn: number, changes: Record<string, string | undefined>): Promise<void> {
    await tracker.beforeTurn(turn, turn - 1);
    for (const [rel, text] of Object.entries(changes)) agentWrites(rel, text);
    await tracker.afterTurn();
  }

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'acp-tracker-'));
    record = new ClientRecord();
    tracker = new ChatCheckpoints({
      snapshotter: Promise.resolve(record),
      io,
      label: (f) => f.rel,
      words,
      log: silentLogger,
      refPrefix: 'test',
    });
    // The first checkpoint runs in the background; these tests begin once it is done, as a chat usually does.
    await tracker.ready();
  });
  afterEach(() => {
    tracker.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists what a turn changed, with line counts, and undoes and redoes it', async () => {
    writeFileSync(path('a.txt'), 'one\n');
    writeFileSync(path('gone.txt'), 'bye\n');
    await playTurn(1, { 'a.txt': 'one\ntwo\n', 'gone.txt': undefined, 'new.txt': 'hi\n' });
    const card = tracker.view().cards.find((c) => c.turn === 1);
    assert.deepEqual(card?.files.map((f) => `${f.status} ${f.path} +${f.added} -${f.removed}`).sort(), [
      'A new.txt +1 -0',
      'D gone.txt +0 -1',
      'M a.txt +1 -0',
    ]);
    assert.equal(card?.note, 'client only');

    // Without git, deleting the file the turn created waits for the user's word.
    const undoing = tracker.undo(1);
    const question = await waitFor(() => tracker.view().question);
    assert.equal(question.kind, 'delete');
    assert.deepEqual(question.files, ['new.txt']);
    assert.equal(read('a.txt'), 'one\ntwo\n', 'nothing moves while the question waits');
    tracker.answer(question.id, 'overwrite');
    assert.equal(await undoing, true);
    assert.equal(read('a.txt'), 'one\n');
    assert.equal(read('gone.txt'), 'bye\n');
    assert.equal(read('new.txt'), undefined);
    assert.equal(tracker.view().cards.find((c) => c.turn === 1)?.state, 'undone');

    const redoing = tracker.redo(1);
    const again = await waitFor(() => tracker.view().question);
    assert.deepEqual([again.kind, ...again.files], ['delete', 'gone.txt']);
    tracker.answer(again.id, 'overwrite');
    assert.equal(await redoing, true);
    assert.equal(read('a.txt'), 'one\ntwo\n');
    assert.equal(read('gone.txt'), undefined);
    assert.equal(read('new.txt'), 'hi\n');
  });

  it('without git, keeps the files a turn created when the user says so, and never deletes without asking', async () => {
    writeFileSync(path('a.txt'), 'one\n');
    await playTurn(1, { 'a.txt': 'two\n', 'new.txt': 'hi\n' });
    const undoing = tracker.undo(1);
    const question = await waitFor(() => tracker.view().question);
    assert.equal(question.kind, 'delete');
    tracker.answer(question.id, 'skip');
    assert.equal(await undoing, true);
    assert.equal(read('a.txt'), 'one\n');
    assert.equal(read('new.txt'), 'hi\n', 'kept');
  });

  it('leaves a file that changed while the question waited: the answer was about what was there before', async () => {
    await playTurn(1, { 'new.txt': 'hi\n' });
    const undoing = tracker.undo(1);
    const question = await waitFor(() => tracker.view().question);
    writeFileSync(path('new.txt'), 'the user saved more\n');
    tracker.answer(question.id, 'overwrite');
    assert.equal(await undoing, true);
    assert.equal(read('new.txt'), 'the user saved more\n', 'not deleted');
  });

  it('without git, never writes back what the agent only reported: a diff can be shown, not applied', async () => {
    writeFileSync(path('users.txt'), 'the user\u2019s file\n');
    writeFileSync(path('made-up.txt'), 'real text\n');
    await tracker.beforeTurn(1, 0);
    // The agent reports a diff that "created" an existing file, and one with an old text the file never held.
    record.wrote(file('users.txt'), ABSENT, state('agent\n'), false);
    record.wrote(file('made-up.txt'), state('invented\n'), state('real text\n'), false);
    await tracker.afterTurn();
    const card = tracker.view().cards.find((c) => c.turn === 1);
    assert.deepEqual(card?.files.map((f) => f.path).sort(), ['made-up.txt', 'users.txt'], 'both are shown');
    assert.equal(await tracker.undo(1), true);
    assert.equal(tracker.view().question, undefined, 'nothing to ask: nothing is written');
    assert.equal(read('users.txt'), 'the user\u2019s file\n', 'not deleted');
    assert.equal(read('made-up.txt'), 'real text\n', 'not overwritten with the made-up text');
  });

  it('asks before overwriting a file the user changed since, and skips it when told to', async () => {
    writeFileSync(path('mine.txt'), 'base\n');
    writeFileSync(path('theirs.txt'), 'base\n');
    await playTurn(1, { 'mine.txt': 'agent\n', 'theirs.txt': 'agent\n' });
    writeFileSync(path('mine.txt'), 'agent\nuser\n');
    const undoing = tracker.undo(1);
    const question = await waitFor(() => tracker.view().question);
    assert.equal(question.kind, 'conflicts');
    assert.deepEqual(question.files, ['mine.txt']);
    assert.equal(read('theirs.txt'), 'agent\n', 'nothing moves while the question waits');
    assert.equal(tracker.answer(question.id, 'skip'), true);
    assert.equal(await undoing, true);
    assert.equal(read('mine.txt'), 'agent\nuser\n');
    assert.equal(read('theirs.txt'), 'base\n');
    assert.equal(tracker.view().question, undefined);
  });

  it('a cancelled question leaves every file as it was', async () => {
    writeFileSync(path('mine.txt'), 'base\n');
    await playTurn(1, { 'mine.txt': 'agent\n' });
    writeFileSync(path('mine.txt'), 'user\n');
    const undoing = tracker.undo(1);
    const question = await waitFor(() => tracker.view().question);
    tracker.answer(question.id, 'cancel');
    assert.equal(await undoing, false);
    assert.equal(read('mine.txt'), 'user\n');
    assert.equal(tracker.view().cards.find((c) => c.turn === 1)?.state, 'open');
  });

  it('restores to before a message across later turns after the user agrees, and Redo Changes takes it back', async () => {
    writeFileSync(path('x.txt'), 'x0\n');
    await playTurn(1, { 'x.txt': 'x1\n' });
    await playTurn(2, { 'x.txt': 'x2\n', 'z.txt': 'z2\n' });
    const restoring = tracker.restore(1);
    const question = await waitFor(() => tracker.view().question);
    assert.equal(question.kind, 'restore');
    assert.deepEqual([...question.files].sort(), ['x.txt', 'z.txt']);
    tracker.answer(question.id, 'restore');
    const deleting = await waitFor(() => (tracker.view().question?.kind === 'delete' ? tracker.view().question : undefined));
    assert.deepEqual(deleting.files, ['z.txt']);
    tracker.answer(deleting.id, 'overwrite');
    assert.equal(await restoring, 'restored');
    assert.equal(read('x.txt'), 'x0\n');
    assert.equal(read('z.txt'), undefined);
    assert.deepEqual(tracker.view().restored, { turn: 1, files: 2 });
    assert.deepEqual(
      tracker.view().cards.map((c) => c.state),
      ['undone', 'undone'],
    );
    assert.equal(await tracker.redoRestore(), true);
    assert.equal(read('x.txt'), 'x2\n');
    assert.equal(read('z.txt'), 'z2\n');
    assert.equal(tracker.view().restored, undefined);
  });

  it('keeps a card: it stays, collapsed, and its files are no longer unreviewed', async () => {
    await playTurn(1, { 'k.txt': 'new\n' });
    assert.deepEqual(
      tracker.unreviewed().map((u) => u.file.rel),
      ['k.txt'],
    );
    tracker.keep(1);
    assert.equal(tracker.view().cards[0]?.state, 'kept');
    assert.deepEqual(tracker.unreviewed(), []);
    assert.deepEqual(tracker.totals(), { added: 1, removed: 0 });
  });

  it('a turn that changed nothing gets no card, but its message can still be restored to', async () => {
    await playTurn(1, {});
    assert.deepEqual(tracker.view().cards, []);
    assert.deepEqual(tracker.view().restorable, [1]);
  });

  it('closing the chat cancels a question that waits', async () => {
    writeFileSync(path('mine.txt'), 'base\n');
    await playTurn(1, { 'mine.txt': 'agent\n' });
    writeFileSync(path('mine.txt'), 'user\n');
    const undoing = tracker.undo(1);
    await waitFor(() => tracker.view().question);
    tracker.dispose();
    assert.equal(await undoing, false);
    assert.equal(read('mine.txt'), 'user\n');
  });

  it('a chat opened again finds its turns on the replayed messages, with their cards, and can still undo them', async () => {
    const repoFolder = mkdtempSync(join(tmpdir(), 'acp-tracker-git-'));
    const shadow = await ShadowRepo.open({ git: 'git', gitDir: join(repoFolder, 'shadow.git'), workTree: folder });
    let kept: readonly SavedTurn[] = [];
    const store: TurnStore = { load: () => Promise.resolve(kept), save: (turns) => (kept = turns) };
    const deps = (userMessages: number[]) => ({
      snapshotter: Promise.resolve(new GitSnapshotter(new Map([[folder, shadow]]))),
      io,
      label: (f: TrackedFile) => f.rel,
      words,
      log: silentLogger,
      refPrefix: 'reopen',
      store,
      userMessages,
    });
    try {
      writeFileSync(path('g.txt'), 'one\n');
      const first = new ChatCheckpoints(deps([]));
      await first.ready();
      await first.beforeTurn(7, 0);
      writeFileSync(path('g.txt'), 'two\n');
      await first.afterTurn();
      first.keep(7);
      await waitFor(() => kept.length === 1 && kept[0]?.state === 'kept', { what: 'the turn to be kept' });
      first.dispose();

      const again = new ChatCheckpoints(deps([42]));
      const card = await waitFor(() => again.view().cards[0]);
      assert.deepEqual(
        { turn: card.turn, state: card.state, files: card.files.map((f) => `${f.status} ${f.path}`) },
        { turn: 42, state: 'kept', files: ['M g.txt'] },
      );
      assert.equal(await again.undo(42), true);
      assert.equal(read('g.txt'), 'one\n');
      again.dispose();
    } finally {
      shadow.dispose();
      rmSync(repoFolder, { recursive: true, force: true });
    }
  });

  it('a chat opened again keeps what its turns\u2019 start left out for the size budget: Undo deletes none of those files', async () => {
    const repoFolder = mkdtempSync(join(tmpdir(), 'acp-tracker-budget-'));
    const shadow = await ShadowRepo.open({ git: 'git', gitDir: join(repoFolder, 'shadow.git'), workTree: folder, maxSnapshotBytes: 350 * 1024 });
    let kept: readonly SavedTurn[] = [];
    const store: TurnStore = { load: () => Promise.resolve(kept), save: (turns) => (kept = turns) };
    const deps = (userMessages: number[]) => ({
      snapshotter: Promise.resolve(new GitSnapshotter(new Map([[folder, shadow]]))),
      io,
      label: (f: TrackedFile) => f.rel,
      words,
      log: silentLogger,
      refPrefix: 'budget',
      store,
      userMessages,
    });
    try {
      // The user's files, more than one snapshot takes: some are left out of the turn's start.
      for (let i = 0; i < 10; i++) writeFileSync(path(`data${i}.txt`), `${i}`.repeat(100 * 1024));
      const first = new ChatCheckpoints(deps([]));
      await first.ready();
      await first.beforeTurn(7, 0);
      writeFileSync(path('agent.txt'), 'made by the agent\n');
      await first.afterTurn();
      first.keep(7);
      await waitFor(() => kept.length === 1 && kept[0]?.state === 'kept', { what: 'the turn to be kept' });
      const live = first.view().cards[0]?.files.map((f) => `${f.status} ${f.path}`);
      first.dispose();

      const again = new ChatCheckpoints(deps([42]));
      const card = await waitFor(() => again.view().cards[0]);
      assert.deepEqual(
        card.files.map((f) => `${f.status} ${f.path}`),
        live,
        'the same card as before the reload',
      );
      assert.equal(await again.undo(42), true);
      assert.equal(existsSync(path('agent.txt')), false, 'the agent\u2019s file is undone');
      for (let i = 0; i < 10; i++) assert.ok(existsSync(path(`data${i}.txt`)), `data${i}.txt is the user\u2019s and stays`);
      again.dispose();
    } finally {
      shadow.dispose();
      rmSync(repoFolder, { recursive: true, force: true });
    }
  });
});

describe('the kept turns on disk', () => {
  it('stay within what is read back: past it the oldest turns lose their end first, the latest keep everything', () => {
    const turn = (k: number): SavedTurn => ({
      k,
      n: k,
      before: { '/w': 'a'.repeat(40) },
      after: { '/w': 'b'.repeat(40) },
      leftOut: Array.from({ length: 2000 }, (_, i) => ({ folder: '/w', path: `node_modules/package-${i}/index.js` })),
      state: 'kept',
    });
    const turns = Array.from({ length: 40 }, (_, k) => turn(k));
    const text = fitted(turns);
    assert.ok(Buffer.byteLength(text) <= 4 * 1024 * 1024, `${Buffer.byteLength(text)} bytes`);
    const kept = (JSON.parse(text) as { turns: SavedTurn[] }).turns;
    assert.equal(kept.length, 40, 'every turn is kept');
    assert.equal(kept[0]?.after, undefined, 'the oldest without its end');
    assert.deepEqual(kept.at(-1), turns.at(-1), 'the latest whole');
  });
});
