import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CheckpointError, type FileChange, type ShadowOptions, ShadowRepo } from '../../../src/checkpoints/shadowGit';
import { readSmallFile } from '../../../src/checkpoints/workTree';
import { RecordingLogger } from '../lib/recording-logger';

/** Git as a user would run it in their repository, without what the test process's environment might add. */
function userGit(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_OPTIONAL_LOCKS: '0' });
  return execFileSync('git', ['-c', 'user.name=User', '-c', 'user.email=user@example.com', ...args], { cwd, env, encoding: 'utf8' });
}

function write(root: string, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

function byPath(changes: readonly FileChange[]): FileChange[] {
  return [...changes].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Every file under `dir` with a hash of its bytes: what a user's .git holds. */
function fingerprint(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else
        out.push(
          `${child} ${createHash('sha1')
            .update(readFileSync(join(dir, child)))
            .digest('hex')}`,
        );
    }
  };
  walk('');
  return out.sort();
}

describe('ShadowRepo (checkpoints in a shadow git repository)', function () {
  this.timeout(60_000);
  let base: string;
  let folder: string;
  let gitDir: string;
  const opened: ShadowRepo[] = [];

  const open = async (options: Partial<ShadowOptions> = {}) => {
    const repo = await ShadowRepo.open({ git: 'git', gitDir, workTree: folder, ...options });
    opened.push(repo);
    return repo;
  };
  /** The paths a snapshot holds, read from the shadow with git itself, with their modes. */
  const filesOf = (commit: string): string[] =>
    userGit(folder, `--git-dir=${gitDir}`, 'ls-tree', '-r', '--format=%(objectmode) %(path)', commit).split('\n').filter(Boolean);
  const names = (commit: string) => filesOf(commit).map((line) => line.slice(line.indexOf(' ') + 1));
  const refs = () => userGit(folder, `--git-dir=${gitDir}`, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean);

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'acp-shadow-')));
    folder = join(base, 'workspace');
    gitDir = join(base, 'storage', 'checkpoints', 'abc.git');
    mkdirSync(folder);
  });

  afterEach(() => {
    for (const repo of opened.splice(0)) repo.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it('records every kind of change between two snapshots, with line counts and the bytes as they were', async () => {
    write(folder, 'a.txt', 'one\ntwo\nthree\n');
    write(folder, 'dir with space/ünïcode ✓.md', 'hello\n');
    write(folder, 'crlf.txt', 'one\r\ntwo\r\n');
    write(folder, 'gone.txt', 'bye\n');
    write(folder, 'old-name.ts', Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i};\n`).join(''));
    write(folder, 'run.sh', 'echo hi\n');
    symlinkSync('a.txt', join(folder, 'link'));
    mkdirSync(join(folder, 'empty'));
    const repo = await open();
    const before = await repo.snapshot('chat-1/1-before');
    assert.deepEqual(before.skipped, []);
    assert.match(before.commit, /^[0-9a-f]{40,64}$/);

    write(folder, 'a.txt', 'one\nTWO\nthree\nfour\n');
    write(folder, 'new file.txt', 'fresh\n');
    unlinkSync(join(folder, 'gone.txt'));
    mkdirSync(join(folder, 'src'));
    renameSync(join(folder, 'old-name.ts'), join(folder, 'src', 'new-name.ts'));
    chmodSync(join(folder, 'run.sh'), 0o755);
    write(folder, 'dir with space/ünïcode ✓.md', 'hello\nworld\n');
    mkdirSync(join(folder, 'another-empty'));
    const after = await repo.snapshot('chat-1/1-after');

    assert.deepEqual(byPath(await repo.diff(before.commit, after.commit)), [
      { status: 'M', path: 'a.txt', added: 2, removed: 1 },
      { status: 'M', path: 'dir with space/ünïcode ✓.md', added: 1, removed: 0 },
      { status: 'D', path: 'gone.txt', added: 0, removed: 1 },
      { status: 'A', path: 'new file.txt', added: 1, removed: 0 },
      // The executable bit alone: a modification without changed lines.
      { status: 'M', path: 'run.sh', added: 0, removed: 0 },
      { status: 'R', path: 'src/new-name.ts', oldPath: 'old-name.ts', added: 0, removed: 0 },
    ]);
    assert.deepEqual(await repo.diff(after.commit, after.commit), []);

    assert.deepEqual(await repo.read(before.commit, 'crlf.txt'), { bytes: Buffer.from('one\r\ntwo\r\n'), link: false });
    assert.deepEqual(await repo.read(before.commit, 'gone.txt'), { bytes: Buffer.from('bye\n'), link: false });
    assert.equal(await repo.read(after.commit, 'gone.txt'), undefined);
    assert.deepEqual(await repo.read(after.commit, 'dir with space/ünïcode ✓.md'), { bytes: Buffer.from('hello\nworld\n'), link: false });
    // The link is recorded as a link (its target), not followed.
    assert.deepEqual(await repo.read(before.commit, 'link'), { bytes: Buffer.from('a.txt'), link: true });
    assert.ok(filesOf(before.commit).includes('120000 link'));
    assert.equal(await repo.read(before.commit, 'empty'), undefined);
    assert.equal(await repo.read(after.commit, 'src'), undefined, 'a folder is not a file');
    assert.ok(!names(after.commit).some((name) => name.includes('empty')), 'empty folders are not recorded');
  });

  it("never touches the user's repository: status, stash, refs and .git stay as they were", async () => {
    write(folder, 'tracked.txt', 'v1\n');
    write(folder, 'stashed.txt', 's1\n');
    userGit(folder, 'init', '-q');
    userGit(folder, 'add', '.');
    userGit(folder, 'commit', '-q', '-m', 'first');
    write(folder, 'stashed.txt', 's2\n');
    userGit(folder, 'stash', '-q');
    write(folder, 'tracked.txt', 'dirty\n');
    write(folder, 'untracked.txt', 'u\n');
    const userState = () => ({
      status: userGit(folder, 'status', '--porcelain'),
      stash: userGit(folder, 'stash', 'list'),
      refs: userGit(folder, 'for-each-ref'),
      dotGit: fingerprint(join(folder, '.git')),
    });
    const was = userState();
    assert.match(was.status, / M tracked\.txt/);
    assert.match(was.stash, /stash@\{0\}/);

    // An environment that points git at the user's repository must not reach our calls.
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: join(folder, '.git'),
      GIT_WORK_TREE: folder,
      GIT_INDEX_FILE: join(folder, '.git', 'index'),
      GIT_OBJECT_DIRECTORY: join(folder, '.git', 'objects'),
    });
    try {
      const repo = await open();
      const first = await repo.snapshot('chat/1-before');
      write(folder, 'tracked.txt', 'dirty again\n');
      write(folder, 'untracked.txt', 'u2\n');
      const second = await repo.snapshot('chat/1-after');
      assert.deepEqual(
        byPath(await repo.diff(first.commit, second.commit)).map((c) => c.path),
        ['tracked.txt', 'untracked.txt'],
      );
      assert.deepEqual(names(first.commit), ['stashed.txt', 'tracked.txt', 'untracked.txt']);
      await repo.prune({ keep: 1, maxAgeMs: 60_000 });
      await repo.deleteRefs('chat');
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    }
    write(folder, 'tracked.txt', 'dirty\n');
    write(folder, 'untracked.txt', 'u\n');
    assert.deepEqual(userState(), was);
  });

  it(".gitignore at every level and the folder's .git/info/exclude are respected; .git is never recorded", async () => {
    userGit(folder, 'init', '-q');
    write(folder, '.gitignore', 'build/\n*.log\n');
    write(folder, 'sub/.gitignore', 'secret.txt\n');
    write(folder, 'build/out.js', 'x\n');
    write(folder, 'debug.log', 'x\n');
    write(folder, 'sub/secret.txt', 'x\n');
    write(folder, 'sub/keep.txt', 'x\n');
    write(folder, 'notes.md', 'x\n');
    write(folder, '.git/info/exclude', 'notes.md\n');
    const repo = await open();
    const first = await repo.snapshot('c/1');
    assert.deepEqual(names(first.commit), ['.gitignore', 'sub/.gitignore', 'sub/keep.txt']);

    // The exclude file changed: the next snapshot uses the new one.
    write(folder, '.git/info/exclude', 'notes.md\nlater.md\n');
    write(folder, 'later.md', 'x\n');
    write(folder, 'other.md', 'x\n');
    const second = await repo.snapshot('c/2');
    assert.deepEqual(await repo.diff(first.commit, second.commit), [{ status: 'A', path: 'other.md', added: 1, removed: 0 }]);
  });

  it('leaves nested repositories out: neither a gitlink nor their files', async () => {
    write(folder, 'top.txt', 'x\n');
    write(folder, 'nested/inner.txt', 'v1\n');
    userGit(join(folder, 'nested'), 'init', '-q');
    userGit(join(folder, 'nested'), 'add', '.');
    userGit(join(folder, 'nested'), 'commit', '-q', '-m', 'inner');
    const log = new RecordingLogger();
    const repo = await open({ log });
    const first = await repo.snapshot('c/1');
    assert.deepEqual(filesOf(first.commit), ['100644 top.txt']);
    write(folder, 'nested/inner.txt', 'v2\n');
    const second = await repo.snapshot('c/2');
    assert.deepEqual(await repo.diff(first.commit, second.commit), []);
    assert.equal(log.find('nested repository nested/').length, 1, log.toString());
  });

  it('skips large and binary files, and keeps a file that grew large out of diffs without calling it deleted', async () => {
    write(folder, 'small.txt', 'small\n');
    write(folder, 'big.txt', 'x'.repeat(2000));
    write(folder, 'image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    write(folder, 'text.txt', 'text\n');
    const repo = await open({ maxFileBytes: 1000 });
    const first = await repo.snapshot('c/1');
    assert.deepEqual(first.skipped, [
      { path: 'big.txt', reason: 'large' },
      { path: 'image.png', reason: 'binary' },
    ]);
    assert.deepEqual(names(first.commit), ['small.txt', 'text.txt']);

    write(folder, 'small.txt', 'y'.repeat(5000));
    write(folder, 'text.txt', 'text\nmore\n');
    const second = await repo.snapshot('c/2');
    assert.deepEqual(second.skipped, [
      { path: 'big.txt', reason: 'large' },
      { path: 'image.png', reason: 'binary' },
      { path: 'small.txt', reason: 'large' },
    ]);
    assert.deepEqual(await repo.diff(first.commit, second.commit), [{ status: 'M', path: 'text.txt', added: 1, removed: 0 }]);
    assert.deepEqual(await repo.read(second.commit, 'small.txt'), { bytes: Buffer.from('small\n'), link: false });
    // Still large at the next snapshot: still skipped, still no change.
    const third = await repo.snapshot('c/3');
    assert.deepEqual(
      third.skipped.map((s) => s.path),
      ['big.txt', 'image.png', 'small.txt'],
    );
    assert.deepEqual(await repo.diff(second.commit, third.commit), []);

    // Small and text again: recorded again.
    write(folder, 'small.txt', 'small again\n');
    write(folder, 'image.png', 'now text\n');
    const fourth = await repo.snapshot('c/4');
    assert.deepEqual(fourth.skipped, [{ path: 'big.txt', reason: 'large' }]);
    assert.deepEqual(byPath(await repo.diff(third.commit, fourth.commit)), [
      { status: 'A', path: 'image.png', added: 1, removed: 0 },
      { status: 'M', path: 'small.txt', added: 1, removed: 1 },
    ]);

    // A skipped tracked file that is deleted is a deletion.
    write(folder, 'small.txt', 'z'.repeat(5000));
    await repo.snapshot('c/5');
    unlinkSync(join(folder, 'small.txt'));
    const sixth = await repo.snapshot('c/6');
    assert.deepEqual(await repo.diff(fourth.commit, sixth.commit), [{ status: 'D', path: 'small.txt', added: 0, removed: 1 }]);
  });

  it('adds at most maxSnapshotBytes in one snapshot, leaving the largest files out and saying so', async () => {
    write(folder, 'a.txt', 'a'.repeat(500));
    write(folder, 'b.txt', 'b'.repeat(700));
    write(folder, 'c.txt', 'c'.repeat(300));
    const repo = await open({ maxSnapshotBytes: 1000 });
    const first = await repo.snapshot('c/1');
    assert.deepEqual(first.skipped, [{ path: 'b.txt', reason: 'budget' }]);
    assert.deepEqual(names(first.commit), ['a.txt', 'c.txt']);
  });

  it('drops the oldest checkpoints once the repository is over maxRepoBytes, and never the newest', async () => {
    const repo = await open({ maxRepoBytes: 64 * 1024, keepNewest: 2 });
    for (let i = 0; i < 8; i++) {
      // A new version of one file each time (random hex compresses about 2:1): each snapshot adds about 16 KB that
      // only its checkpoint holds.
      write(folder, 'f.txt', randomBytes(16 * 1024).toString('hex'));
      await repo.snapshot(`c/${i}`);
    }
    await repo.keepWithinBound();
    assert.ok((await repo.sizeOnDisk()) <= 64 * 1024, `within the bound: ${await repo.sizeOnDisk()} bytes`);
    const left = refs();
    assert.ok(left.length < 8, `some were dropped: ${left.join(', ')}`);
    assert.ok(
      left.some((ref) => ref.endsWith('c/7')),
      'the newest stays',
    );
  });

  it('handles a file that becomes a folder and a folder that becomes a file', async () => {
    write(folder, 'thing', 'file\n');
    write(folder, 'dir/inner.txt', 'inner\n');
    const repo = await open();
    const first = await repo.snapshot('c/1');
    unlinkSync(join(folder, 'thing'));
    write(folder, 'thing/child.txt', 'child\n');
    rmSync(join(folder, 'dir'), { recursive: true });
    write(folder, 'dir', 'now a file\n');
    const second = await repo.snapshot('c/2');
    assert.deepEqual(names(second.commit), ['dir', 'thing/child.txt']);
    assert.deepEqual(
      byPath(await repo.diff(first.commit, second.commit)).map((c) => `${c.status} ${c.path}`),
      ['A dir', 'D dir/inner.txt', 'D thing', 'A thing/child.txt'],
    );
  });

  it('serializes concurrent callers, across two handles on one repository', async () => {
    for (let i = 0; i < 50; i++) write(folder, `f${i}.txt`, `${i}\n`);
    const one = await open();
    const two = await open();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        write(folder, `f${i}.txt`, `changed ${i}\n`);
        return (i % 2 ? two : one).snapshot(`c/${i}`);
      }),
    );
    assert.equal(new Set(results.map((r) => r.commit)).size, 8);
    await one.idle();
    assert.equal(refs().length, 8);
    const last = results[7]?.commit as string;
    assert.deepEqual(await one.read(last, 'f7.txt'), { bytes: Buffer.from('changed 7\n'), link: false });
  });

  it('removes an index.lock left behind by a crashed git', async () => {
    write(folder, 'a.txt', 'v1\n');
    const log = new RecordingLogger();
    const repo = await open({ log });
    const first = await repo.snapshot('c/1');
    writeFileSync(join(gitDir, 'index.lock'), '');
    write(folder, 'a.txt', 'v2\n');
    const second = await repo.snapshot('c/2');
    assert.deepEqual(await repo.diff(first.commit, second.commit), [{ status: 'M', path: 'a.txt', added: 1, removed: 1 }]);
    assert.equal(existsSync(join(gitDir, 'index.lock')), false);
    assert.equal(log.find('stale index.lock', 'warn').length, 1);
  });

  it('fails with a CheckpointError that says why: missing git, bad input, too much output, too slow, too many files', async () => {
    write(folder, 'a.txt', 'a\n');
    await assert.rejects(open({ git: join(base, 'no-such-git') }), (e) => e instanceof CheckpointError && /git was not found/.test(e.message));
    const repo = await open();
    const snap = await repo.snapshot('c/1');
    await assert.rejects(repo.diff('0123456789abcdef0123456789abcdef01234567', snap.commit), (e) => {
      return e instanceof CheckpointError && /^git failed: git diff-tree exited with code 128: .*0123456789abcdef/.test(e.message);
    });
    await assert.rejects(repo.diff('--output=x', snap.commit), (e) => e instanceof CheckpointError && /not a valid checkpoint/.test(e.message));
    for (const bad of ['bad..ref', 'a b', 'c/x.', 'c/.hidden', 'c/x.lock', 'c//d', 'c/@{1}']) {
      await assert.rejects(repo.snapshot(bad), (e) => e instanceof CheckpointError && /not a valid checkpoint name/.test(e.message), bad);
    }

    for (let i = 0; i < 40; i++) write(folder, `many/file-${i}.txt`, `${i}\n`);
    const small = await open({ maxOutputBytes: 500 });
    await assert.rejects(small.snapshot('c/2'), (e) => e instanceof CheckpointError && /output of git ls-files passed/.test(e.message));

    const slowGit = join(base, 'slow-git');
    writeFileSync(slowGit, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const started = Date.now();
    await assert.rejects(open({ git: slowGit, timeoutMs: 300 }), (e) => e instanceof CheckpointError && /took longer than/.test(e.message));
    assert.ok(Date.now() - started < 10_000);

    const few = await open({ maxFiles: 10 });
    await assert.rejects(few.snapshot('c/3'), (e) => e instanceof CheckpointError && /^too many files: .* more than 10 files/.test(e.message));
    rmSync(join(folder, 'many'), { recursive: true });
    await few.snapshot('c/3');

    rmSync(folder, { recursive: true });
    await assert.rejects(repo.snapshot('c/4'), (e) => e instanceof CheckpointError && /no longer exists/.test(e.message));
    repo.dispose();
    await assert.rejects(repo.read(snap.commit, 'a.txt'), (e) => e instanceof CheckpointError && /closed/.test(e.message));
  });

  it('prunes by count and by age, and git then drops what no checkpoint reaches', async () => {
    write(folder, 'keep.txt', 'k\n');
    write(folder, 'unique.txt', 'only in the first checkpoint\n');
    const repo = await open();
    const first = await repo.snapshot('c/1');
    const blob = userGit(folder, `--git-dir=${gitDir}`, 'rev-parse', `${first.commit}:unique.txt`).trim();
    unlinkSync(join(folder, 'unique.txt'));
    const snaps = [first];
    for (const n of [2, 3, 4]) {
      write(folder, 'keep.txt', `k${n}\n`);
      snaps.push(await repo.snapshot(`c/${n}`));
    }
    assert.equal(await repo.prune({ keep: 2, maxAgeMs: 3_600_000 }), 2);
    assert.deepEqual(refs(), ['refs/acp/c/3', 'refs/acp/c/4']);
    assert.throws(() => execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '-e', blob], { stdio: 'ignore' }));
    await assert.rejects(repo.read(first.commit, 'unique.txt'), CheckpointError);
    assert.deepEqual(await repo.read(snaps[3]?.commit as string, 'keep.txt'), { bytes: Buffer.from('k4\n'), link: false });

    assert.equal(await repo.prune({ keep: 10, maxAgeMs: 60_000, now: Date.now() + 120_000 }), 2);
    assert.deepEqual(refs(), []);
    // The folder as it is now is still in the index, so the next snapshot is whole.
    const next = await repo.snapshot('c/5');
    assert.deepEqual(names(next.commit), ['keep.txt']);
  });

  it('packs the objects of a large update, and prune repacks packs so that dropped checkpoints free their space', async () => {
    for (let i = 0; i < 300; i++) write(folder, `a/f${i}.txt`, `first ${i}\n`);
    const repo = await open();
    const first = await repo.snapshot('c/1');
    const packs = () => readdirSync(join(gitDir, 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
    assert.equal(packs().length, 1);
    assert.deepEqual(await repo.read(first.commit, 'a/f299.txt'), { bytes: Buffer.from('first 299\n'), link: false });
    const blob = userGit(folder, `--git-dir=${gitDir}`, 'rev-parse', `${first.commit}:a/f0.txt`).trim();
    for (let i = 0; i < 300; i++) write(folder, `a/f${i}.txt`, `second ${i}\n`);
    const second = await repo.snapshot('c/2');
    assert.equal(packs().length, 2);
    assert.equal((await repo.diff(first.commit, second.commit)).length, 300);

    assert.equal(await repo.prune({ keep: 1, maxAgeMs: 3_600_000 }), 1);
    assert.equal(packs().length, 1);
    assert.throws(() => execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '-e', blob], { stdio: 'ignore' }));
    assert.deepEqual(await repo.read(second.commit, 'a/f299.txt'), { bytes: Buffer.from('second 299\n'), link: false });
    userGit(folder, `--git-dir=${gitDir}`, 'fsck', '--no-dangling');
  });

  it("deleteRefs drops one chat's checkpoints and no other's", async () => {
    write(folder, 'a.txt', 'a\n');
    const repo = await open();
    await repo.snapshot('chat-a/1-before');
    await repo.snapshot('chat-a/1-after');
    await repo.snapshot('chat-ab/1-before');
    await repo.snapshot('chat-b/1-before');
    await repo.deleteRefs('chat-a');
    assert.deepEqual(refs(), ['refs/acp/chat-ab/1-before', 'refs/acp/chat-b/1-before']);
    await assert.rejects(repo.deleteRefs(''), CheckpointError);
    assert.equal(refs().length, 2);
  });

  it("ignores the user's global config and hooks, but honours their global ignore file", async () => {
    const marker = join(base, 'hook-ran');
    const hooks = join(base, 'hooks');
    mkdirSync(hooks);
    for (const hook of ['reference-transaction', 'post-index-change', 'pre-commit']) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
    }
    write(base, 'global-ignore', '*.secret\n');
    // The user's global config, where git finds it: ~/.gitconfig.
    write(
      base,
      'home/.gitconfig',
      `[core]\n\thooksPath = ${hooks}\n\texcludesFile = ${join(base, 'global-ignore')}\n\tautocrlf = true\n` +
        // With ignoreStat git would take every recorded file as unchanged, and miss the agent's edits.
        '\tignoreStat = true\n',
    );
    write(folder, '.gitattributes', '* text eol=lf\n');
    write(folder, 'crlf.txt', 'a\r\nb\r\n');
    write(folder, 'token.secret', 's\n');
    const saved = { ...process.env };
    process.env['HOME'] = join(base, 'home');
    delete process.env['XDG_CONFIG_HOME'];
    delete process.env['GIT_CONFIG_GLOBAL'];
    try {
      const repo = await open();
      const snap = await repo.snapshot('c/1');
      assert.deepEqual(names(snap.commit), ['.gitattributes', 'crlf.txt']);
      assert.deepEqual(await repo.read(snap.commit, 'crlf.txt'), { bytes: Buffer.from('a\r\nb\r\n'), link: false });
      write(folder, 'crlf.txt', 'a\r\nb\r\nc\r\n');
      const next = await repo.snapshot('c/2');
      assert.deepEqual(await repo.diff(snap.commit, next.commit), [{ status: 'M', path: 'crlf.txt', added: 1, removed: 0 }]);
    } finally {
      Object.assign(process.env, saved);
    }
    assert.equal(existsSync(marker), false, existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  });

  it('an unchanged snapshot looks only at what changed: the same tree, and the index not rewritten', async () => {
    // What it costs against the first is bench:checkpoints' ("unchanged snapshot").
    for (let i = 0; i < 2000; i++) write(folder, `src/m${i % 20}/f${i}.ts`, `export const value${i} = ${i};\n`.repeat(40));
    const repo = await open();
    const first = await repo.snapshot('c/0');
    let last = first;
    for (let i = 1; i <= 5; i++) last = await repo.snapshot(`c/${i}`);
    assert.deepEqual(await repo.diff(first.commit, last.commit), []);
    const indexBefore = statSync(join(gitDir, 'index')).mtimeMs;
    await repo.snapshot('c/6');
    assert.equal(statSync(join(gitDir, 'index')).mtimeMs, indexBefore, 'an unchanged folder does not rewrite the index');
  });

  it('a turn that changed nothing keeps the checkpoint before it: the same commit, no new ref; a change makes a new one', async () => {
    write(folder, 'a.txt', 'a\n');
    const repo = await open();
    const before = await repo.snapshot('c/1-before');
    const after = await repo.snapshot('c/1-after', before.commit);
    assert.equal(after.commit, before.commit);
    await repo.idle();
    assert.deepEqual(refs(), ['refs/acp/c/1-before']);
    // Not a snapshot of this repository's, or of another state: a commit of its own.
    write(folder, 'a.txt', 'b\n');
    const changed = await repo.snapshot('c/2-after', before.commit);
    assert.notEqual(changed.commit, before.commit);
    assert.deepEqual(
      byPath(await repo.diff(before.commit, changed.commit)).map((c) => c.path),
      ['a.txt'],
    );
    const unknown = await repo.snapshot('c/3-after', '0123456789abcdef0123456789abcdef01234567');
    assert.notEqual(unknown.commit, changed.commit, 'a commit of its own, for its own ref');
    assert.deepEqual(await repo.diff(changed.commit, unknown.commit), [], 'of the same files');
    await repo.idle();
    assert.deepEqual(refs(), ['refs/acp/c/1-before', 'refs/acp/c/2-after', 'refs/acp/c/3-after']);
  });

  it('hands a snapshot out before its ref is written, and the ref is there before anything else runs on the repository', async () => {
    write(folder, 'a.txt', 'only in the newest checkpoint\n');
    const repo = await open();
    await repo.snapshot('c/1');
    write(folder, 'a.txt', 'changed\n');
    const taken = repo.snapshot('c/2');
    // Queued at once after it: were the ref written later, git prune would drop the commit.
    const pruned = repo.prune({ keep: 1, maxAgeMs: 3_600_000 });
    const snap = await taken;
    assert.deepEqual(refs(), ['refs/acp/c/1'], 'handed out before its ref is written');
    assert.equal(await pruned, 1);
    assert.deepEqual(refs(), ['refs/acp/c/2']);
    assert.equal((await repo.read(snap.commit, 'a.txt'))?.bytes.toString('utf8'), 'changed\n');
  });
});

describe('the small files of the user repository that checkpoints read', () => {
  it('reads a small regular file, and nothing from a FIFO, a link, or a file past the bound, without waiting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-small-'));
    try {
      writeFileSync(join(dir, 'exclude'), '*.log\n');
      assert.equal((await readSmallFile(join(dir, 'exclude'), 100))?.toString('utf8'), '*.log\n');
      writeFileSync(join(dir, 'big'), 'x'.repeat(101));
      assert.equal(await readSmallFile(join(dir, 'big'), 100), undefined, 'past the bound');
      // POSIX only: Windows has neither FIFOs in the file system nor O_NOFOLLOW.
      if (process.platform !== 'win32') {
        symlinkSync(join(dir, 'exclude'), join(dir, 'link'));
        assert.equal(await readSmallFile(join(dir, 'link'), 100), undefined, 'a link is not followed');
        // A FIFO nobody writes: opening it would wait for ever.
        execFileSync('mkfifo', [join(dir, 'fifo')]);
        assert.equal(await readSmallFile(join(dir, 'fifo'), 100), undefined, 'a FIFO is not waited on');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
