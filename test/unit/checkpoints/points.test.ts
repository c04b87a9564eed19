// What a checkpoint is: git snapshots across the folders of a multi-root workspace (real git, real folders), and
// the client's own record where there is no git.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ABSENT, ClientRecord, GitSnapshotter, type FileState } from '../../../src/checkpoints/points';
import { ShadowRepo } from '../../../src/checkpoints/shadowGit';

const text = (state: FileState) => (state.exists ? Buffer.from(state.bytes).toString('utf8') : undefined);
const state = (t: string): FileState => ({ exists: true, bytes: Buffer.from(t) });

describe('checkpoints: points', function () {
  this.timeout(20_000);
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'acp-points-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('takes one snapshot per workspace folder and tells the changes of each folder apart', async () => {
    const folders = ['one', 'two'].map((name) => {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'same.txt'), `${name} before\n`);
      return dir;
    });
    const repos = new Map<string, ShadowRepo>();
    for (const [i, folder] of folders.entries()) {
      repos.set(folder, await ShadowRepo.open({ git: 'git', gitDir: join(root, `shadow-${i}.git`), workTree: folder }));
    }
    const snapshotter = new GitSnapshotter(repos);
    const before = await snapshotter.take('chat/1-before');
    writeFileSync(join(folders[0]!, 'same.txt'), 'one after\n');
    writeFileSync(join(folders[1]!, 'new.txt'), 'two new\n');
    const after = await snapshotter.take('chat/1-after');

    const changes = await snapshotter.diff(before, after);
    assert.deepEqual(changes.map((c) => `${c.status} ${c.file.folder === folders[0] ? 'one' : 'two'}:${c.file.rel}`).sort(), [
      'A two:new.txt',
      'M one:same.txt',
    ]);
    assert.equal(text(await before.read({ folder: folders[0]!, rel: 'same.txt' })), 'one before\n');
    assert.equal(text(await after.read({ folder: folders[0]!, rel: 'same.txt' })), 'one after\n');
    assert.equal(
      text(await before.read({ folder: folders[1]!, rel: 'same.txt' })),
      'two before\n',
      'the same name in the other folder is its own file',
    );
    assert.equal((await before.read({ folder: folders[1]!, rel: 'new.txt' })).exists, false);
    for (const repo of repos.values()) repo.dispose();
  });

  it('never counts a file the earlier point left out for its budget as a change of the turn (Undo would delete it)', async () => {
    const folder = join(root, 'big');
    mkdirSync(folder);
    for (let i = 0; i < 10; i++) writeFileSync(join(folder, `data${i}.txt`), `${i}`.repeat(100 * 1024));
    const repo = await ShadowRepo.open({ git: 'git', gitDir: join(root, 'shadow-big.git'), workTree: folder, maxSnapshotBytes: 350 * 1024 });
    const snapshotter = new GitSnapshotter(new Map([[folder, repo]]));
    const before = await snapshotter.take('chat/1-before');
    assert.equal(snapshotter.skipped(before).filter((s) => s.reason === 'budget').length, 7);
    writeFileSync(join(folder, 'agent.txt'), 'the agent wrote this\n');
    const after = await snapshotter.take('chat/1-after');
    // The second snapshot records more of the files left out before: they are not the turn's.
    assert.deepEqual(
      (await snapshotter.diff(before, after)).map((c) => `${c.status} ${c.file.rel}`),
      ['A agent.txt'],
    );
    repo.dispose();
  });

  it('keeps a repository nested in a folder in a shadow of its own, so its files are checkpointed too', async () => {
    const folder = join(root, 'workspace');
    const nested = join(folder, 'lib');
    mkdirSync(nested, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: nested });
    writeFileSync(join(nested, 'inner.txt'), 'inner before\n');
    writeFileSync(join(folder, 'outer.txt'), 'outer\n');
    let opened = 0;
    const open = (workTree: string) => {
      opened++;
      return ShadowRepo.open({ git: 'git', gitDir: join(root, `shadow-${opened}.git`), workTree });
    };
    const snapshotter = new GitSnapshotter(new Map([[folder, await open(folder)]]), open);
    const before = await snapshotter.take('chat/1-before');
    writeFileSync(join(nested, 'inner.txt'), 'inner after\n');
    const after = await snapshotter.take('chat/1-after');
    const changes = await snapshotter.diff(before, after);
    assert.deepEqual(
      changes.map((c) => `${c.status} ${c.file.folder}:${c.file.rel}`),
      [`M ${nested}:inner.txt`],
    );
    assert.equal(text(await before.read({ folder: nested, rel: 'inner.txt' })), 'inner before\n');
    assert.equal(opened, 2, 'one shadow for the folder, one for the nested repository, each opened once');
  });

  it('without git, a point reads each file as the client last wrote it before that point', async () => {
    const record = new ClientRecord();
    const file = { folder: '/w', rel: 'a.txt' };
    const start = await record.take();
    record.wrote(file, state('v0'), state('v1'), true);
    const middle = await record.take();
    record.wrote(file, state('v1'), state('v2'), true);
    const end = await record.take();
    assert.equal(text(await start.read(file)), 'v0', 'before its first write, a file is what that write found');
    assert.equal(text(await middle.read(file)), 'v1');
    assert.equal(text(await end.read(file)), 'v2');
    assert.deepEqual(
      (await record.diff(start, end)).map((c) => `${c.status} ${c.file.rel} +${c.added} -${c.removed}`),
      ['M a.txt +1 -1'],
    );
    assert.deepEqual(await record.diff(end, end), [], 'nothing was written between a point and itself');
    const created = { folder: '/w', rel: 'b.txt' };
    record.wrote(created, ABSENT, state('new\n'), true);
    assert.deepEqual(
      (await record.diff(end, await record.take())).map((c) => c.status),
      ['A'],
    );
  });
});
