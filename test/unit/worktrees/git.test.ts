// The user's git for worktree chats, run for real in temporary repositories: a folder outside any repository has
// none; uncommitted work is carried into a new worktree without changing the main checkout; the worktree's patch
// holds its untracked files, and leaves them untracked.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/acp/log';
import * as G from '../../../src/worktrees/git';

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('worktrees: the user\u2019s git', function () {
  this.timeout(30_000);
  const git = G.userGit('git', silentLogger);
  let root: string;
  let repo: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-worktrees-')));
    repo = join(root, 'repo');
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
    sh(repo, 'config', 'user.email', 'ada@example.com');
    sh(repo, 'config', 'user.name', 'Ada');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    sh(repo, 'add', '--all');
    sh(repo, 'commit', '--quiet', '-m', 'start');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds no repository for a folder outside any', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'acp-not-a-repo-'));
    try {
      assert.equal(await G.repositoryRoot(git, outside), undefined);
      assert.equal(await G.repositoryRoot(git, repo), repo);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('carries uncommitted work, tracked and untracked but not ignored, into a new worktree and leaves the main checkout as it was', async () => {
    writeFileSync(join(repo, 'a.txt'), 'one, changed\n');
    writeFileSync(join(repo, 'new.txt'), 'new\n');
    writeFileSync(join(repo, '.gitignore'), 'ignored.txt\n');
    writeFileSync(join(repo, 'ignored.txt'), 'secret\n');
    const before = sh(repo, 'status', '--porcelain');
    const wt = join(root, 'wt');
    await G.addWorktree(git, repo, 'acp/x-1', wt, 'main');
    assert.deepEqual(await G.carryUncommitted(git, repo, wt), []);
    assert.equal(readFileSync(join(wt, 'a.txt'), 'utf8'), 'one, changed\n');
    assert.equal(readFileSync(join(wt, 'new.txt'), 'utf8'), 'new\n');
    assert.throws(() => readFileSync(join(wt, 'ignored.txt')), 'ignored files stay behind');
    assert.equal(sh(repo, 'status', '--porcelain'), before, 'the main checkout is as it was');
    assert.equal(sh(repo, 'stash', 'list'), '', 'and its stash');
  });

  it('points git at the worktree’s own git folder, whatever its .git file says (the agent may write it)', async () => {
    const wt = join(root, 'wt');
    await G.addWorktree(git, repo, 'acp/x-1', wt, 'main');
    const gitDir = await G.gitDirOf(git, wt);
    writeFileSync(join(wt, 'a.txt'), 'changed\n');
    writeFileSync(join(wt, '.git'), `gitdir: ${join(repo, '.git')}\n`); // the main checkout's repository, and index
    const pinned = G.userGit('git', silentLogger, true, { path: wt, gitDir });
    assert.ok(
      (await G.status(pinned, wt)).some((e) => e.path === 'a.txt' && e.code === ' M'),
      'the worktree\u2019s own status',
    );
    await pinned.run(wt, ['add', '--all']);
    await pinned.run(wt, ['-c', 'user.email=a@example.com', '-c', 'user.name=A', 'commit', '--quiet', '-m', 'in the worktree']);
    assert.equal(sh(repo, 'log', '--format=%s', '-1', 'main'), 'start', 'the main branch did not move');
    assert.equal(sh(repo, 'log', '--format=%s', '-1', 'acp/x-1'), 'in the worktree', 'the worktree’s did');
    assert.equal(sh(repo, 'status', '--porcelain'), '', 'nothing staged in the main checkout');
  });

  it('makes one patch of committed, uncommitted and untracked changes, which applies in the main checkout', async () => {
    const wt = join(root, 'wt');
    await G.addWorktree(git, repo, 'acp/x-1', wt, 'main');
    const base = await G.commitOf(git, repo, 'main');
    writeFileSync(join(wt, 'a.txt'), 'two\n');
    sh(wt, 'commit', '--quiet', '-am', 'two');
    writeFileSync(join(wt, 'b.txt'), 'untracked\n');
    const patch = await G.worktreePatch(git, wt, base);
    assert.match(patch, /b\.txt/);
    assert.equal(sh(wt, 'status', '--porcelain'), '?? b.txt', 'still untracked afterwards');
    assert.deepEqual(
      (await G.changedFiles(git, wt, base)).map((f) => `${f.kind} ${f.path}`),
      ['modified a.txt', 'added b.txt'],
    );
    assert.equal(await G.aheadCount(git, repo, base, 'acp/x-1'), 1);
    assert.deepEqual(await G.lineCounts(git, wt, base), { added: 1, removed: 1 });
    await git.run(repo, ['apply', '--binary'], { input: patch });
    assert.equal(readFileSync(join(repo, 'a.txt'), 'utf8'), 'two\n');
    assert.equal(readFileSync(join(repo, 'b.txt'), 'utf8'), 'untracked\n');
  });

  it('leaves out of the patch the files it is told to, by their literal names, and lists what git ignores', async () => {
    const wt = join(root, 'wt');
    await G.addWorktree(git, repo, 'acp/x-1', wt, 'main');
    const base = await G.commitOf(git, repo, 'main');
    writeFileSync(join(wt, 'a.txt'), 'two\n');
    writeFileSync(join(wt, '[ab].txt'), 'a glob of a name\n'); // untracked; as a pattern it would also match a.txt
    writeFileSync(join(wt, '* star.txt'), 'another\n');
    writeFileSync(join(wt, '.gitignore'), 'build/\n.env\n');
    mkdirSync(join(wt, 'build'));
    writeFileSync(join(wt, 'build', 'out.js'), 'built\n');
    writeFileSync(join(wt, '.env'), 'TOKEN=1\n');
    const patch = await G.worktreePatch(git, wt, base, ['[ab].txt']);
    assert.match(patch, /a\.txt/, 'a.txt is not taken for the pattern [ab].txt');
    assert.match(patch, /\* star\.txt/);
    assert.doesNotMatch(patch, /a glob of a name/, 'the file left out');
    assert.doesNotMatch(patch, /built|TOKEN/, 'nothing ignored');
    assert.deepEqual(
      (await G.status(git, wt)).map((e) => `${e.code} ${e.path}`).sort(),
      ['?? * star.txt', '?? .gitignore', '?? [ab].txt', ' M a.txt'].sort(),
      'untracked again afterwards',
    );
    assert.deepEqual((await G.ignoredEntries(git, wt)).sort(), ['.env', 'build/']);
  });
});
