// The user's own git, run for worktree chats: on the user's repository, so every command is one the user would run
// themselves, logged as it runs (never its input). Each call is bounded in time and output, with the inherited GIT_*
// environment removed (but where the user told git to stop looking for a repository). Plain Node: unit- and bench-tested without VS Code.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../acp/log';
import { runGit, scrubbedEnv } from '../checkpoints/gitProcess';
import { isWithin } from '../common/paths';

/** A patch git itself can apply, whatever the user's diff settings (colour, prefixes, external diff tools). */
const PATCH_FLAGS = ['--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/'];
/** `exit` takes whatever code git exits with as its answer. */
const EVERY_EXIT_CODE = Array.from({ length: 256 }, (_, i) => i);
/** Most commands answer at once; adding a worktree checks out every file, and a big repository takes a while. */
const QUICK_MS = 30_000;
const CHECKOUT_MS = 5 * 60_000;
/** A diff or a listing past this is refused with a sentence (the patch of a whole rewritten tree). */
const MAX_OUTPUT = 64 * 1024 * 1024;
/** Untracked files carried into a new worktree: at most this many, each at most this big. */
const MAX_CARRIED_FILES = 2000;
const MAX_CARRIED_BYTES = 16 * 1024 * 1024;

/** Of the inherited GIT_* variables, the ones the user's git keeps: where the user told git to stop looking for a repository. */
const USER_GIT_ENV = ['GIT_CEILING_DIRECTORIES'];

export interface Git {
  /** Runs git in `cwd`; `okCodes` are exit codes that are answers. Returns stdout as text. */
  run(cwd: string, args: readonly string[], options?: { input?: string | Buffer; okCodes?: readonly number[]; slow?: boolean }): Promise<string>;
  /** Like `run`, with the exit code (for commands whose code is the answer: `git apply --check`, a merge). */
  exit(cwd: string, args: readonly string[], options?: { input?: string | Buffer }): Promise<{ code: number; stdout: string }>;
}

/** A worktree as git is told of it: its folder, and its git folder (in the main repository's `.git/worktrees/`). */
export interface WorktreeGitDir {
  readonly path: string;
  readonly gitDir: string;
}

/**
 * `git` through `runGit`, each command logged with its folder (`loud`; the read-only counts of the view at debug
 * level). In a folder of `worktree`, git is given its git folder and work tree outright: the `.git` file there is the
 * agent's to write, and must not choose the repository (or a config that runs a program) git uses.
 */
export function userGit(gitPath: string, log: Logger, loud = true, worktree?: WorktreeGitDir): Git {
  const call = async (cwd: string, given: readonly string[], input: string | Buffer | undefined, okCodes: readonly number[], slow: boolean) => {
    const pinned = worktree && isWithin(worktree.path, cwd);
    const args = pinned ? ['--git-dir', worktree.gitDir, '--work-tree', worktree.path, '-c', 'core.fsmonitor=false', ...given] : given;
    (loud ? log.info : log.debug).call(log, `git ${given.join(' ')} (in ${cwd})`);
    const { stdout, code } = await runGit(gitPath, args, {
      cwd,
      env: scrubbedEnv(USER_GIT_ENV),
      timeoutMs: slow ? CHECKOUT_MS : QUICK_MS,
      maxOutputBytes: MAX_OUTPUT,
      ...(input !== undefined ? { input } : {}),
      okCodes,
    });
    return { code, stdout: stdout.toString('utf8') };
  };
  return {
    run: async (cwd, args, options = {}) => (await call(cwd, args, options.input, options.okCodes ?? [], options.slow === true)).stdout,
    exit: (cwd, args, options = {}) => call(cwd, args, options.input, EVERY_EXIT_CODE, false),
  };
}

/**
 * `args` with `paths` as their literal pathspecs, given on stdin (NUL-separated) rather than as arguments: a
 * worktree with tens of thousands of untracked files would pass the system's limit on a command line.
 */
export function withPaths(args: readonly string[], paths: readonly string[]): { args: string[]; input: string } {
  // No paths would mean every path to git (a stash of all the user's changes): never.
  if (paths.length === 0) throw new Error('no paths were given to git');
  return { args: ['--literal-pathspecs', ...args, '--pathspec-from-file=-', '--pathspec-file-nul'], input: paths.join('\0') };
}

/** The top folder of the repository `folder` is in, or undefined when it is not in one. */
export async function repositoryRoot(git: Git, folder: string): Promise<string | undefined> {
  const { code, stdout } = await git.exit(folder, ['rev-parse', '--show-toplevel']);
  return code === 0 && stdout.trim() ? path.resolve(stdout.trim()) : undefined;
}

/** The branch checked out in `folder`, or undefined when its HEAD is detached. */
export async function currentBranch(git: Git, folder: string): Promise<string | undefined> {
  const name = (await git.run(folder, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [1, 128] })).trim();
  return name || undefined;
}

/** The local branches, the most recently committed first (at most 200). */
export async function localBranches(git: Git, folder: string): Promise<string[]> {
  const out = await git.run(folder, ['for-each-ref', '--sort=-committerdate', '--count=200', '--format=%(refname:short)', 'refs/heads']);
  return out.split('\n').filter(Boolean);
}

/** The git folder of the worktree checked out in `folder` (asked right after it is made, before any agent works there). */
export async function gitDirOf(git: Git, folder: string): Promise<string> {
  return path.resolve((await git.run(folder, ['rev-parse', '--absolute-git-dir'])).trim());
}

/** The commit a revision names. */
export async function commitOf(git: Git, folder: string, revision: string): Promise<string> {
  return (await git.run(folder, ['rev-parse', '--verify', '--end-of-options', `${revision}^{commit}`])).trim();
}

export async function branchExists(git: Git, folder: string, branch: string): Promise<boolean> {
  return (await git.exit(folder, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
}

/** Whether git takes `name` as a branch name. */
export async function validBranchName(git: Git, folder: string, name: string): Promise<boolean> {
  return (await git.exit(folder, ['check-ref-format', '--branch', name])).code === 0;
}

/** `git worktree add -b <branch> <path> <base>`: a new branch from `base`, checked out in a new folder. */
export async function addWorktree(git: Git, repo: string, branch: string, folder: string, base: string): Promise<void> {
  await git.run(repo, ['worktree', 'add', '-b', branch, folder, base], { slow: true });
}

/**
 * Carries the uncommitted work of `from` (tracked changes, staged or not, and untracked files that are not ignored)
 * into the worktree `to`, without changing `from`: its diff against HEAD is applied in `to`, and its untracked files
 * are copied. Returns what could not be carried, in words, or an empty list.
 */
export async function carryUncommitted(git: Git, from: string, to: string): Promise<string[]> {
  const problems: string[] = [];
  const patch = await git.run(from, ['diff', ...PATCH_FLAGS, 'HEAD']);
  if (patch.trim()) {
    const applied = await git.exit(to, ['apply', '--binary', '--3way', '--whitespace=nowarn'], { input: patch });
    if (applied.code !== 0) problems.push('some uncommitted changes did not apply on the chosen base');
  }
  const untracked = (await git.run(from, ['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean);
  if (untracked.length > MAX_CARRIED_FILES) problems.push(`only the first ${MAX_CARRIED_FILES} of ${untracked.length} untracked files were carried`);
  for (const rel of untracked.slice(0, MAX_CARRIED_FILES)) {
    const source = path.join(from, rel);
    const stat = await fs.lstat(source).catch(() => undefined);
    if (!stat?.isFile()) continue; // links and folders (nested repositories) stay behind
    if (stat.size > MAX_CARRIED_BYTES) {
      problems.push(`${rel} is larger than ${MAX_CARRIED_BYTES / (1024 * 1024)} MB and was not carried`);
      continue;
    }
    const target = path.join(to, rel);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(source, target);
  }
  return problems;
}

/** A file of `git status` in a folder: its path (from the repository's root) and how it changed. */
export interface StatusEntry {
  readonly path: string;
  /** Two letters, as `git status --porcelain` prints them (`??` untracked, `UU` both modified, ...). */
  readonly code: string;
}

/** The uncommitted files of `folder` (tracked changes, and untracked files that are not ignored). */
export async function status(git: Git, folder: string): Promise<StatusEntry[]> {
  const out = await git.run(folder, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const entries: StatusEntry[] = [];
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part.length < 4) continue;
    const code = part.slice(0, 2);
    entries.push({ path: part.slice(3), code });
    if (/[RC]/.test(code)) i++; // the name it had follows
  }
  return entries;
}

/** The files and folders git ignores in `folder` (a folder wholly ignored counts once; at most 1000). */
export async function ignoredEntries(git: Git, folder: string): Promise<string[]> {
  const out = await git.run(folder, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']);
  const entries = out.split('\0').filter(Boolean);
  // Git may list an ignored folder and also files in it: the folder stands for them.
  const folders = new Set(entries.filter((e) => e.endsWith('/')));
  const inListedFolder = (e: string) => {
    for (let i = e.indexOf('/'); i >= 0 && i < e.length - 1; i = e.indexOf('/', i + 1)) if (folders.has(e.slice(0, i + 1))) return true;
    return false;
  };
  return entries.filter((e) => !inListedFolder(e)).slice(0, 1000);
}

/** The commits of `branch` that `base` does not have, newest first: hash and subject (at most 100). */
export async function commitsNotOn(git: Git, folder: string, base: string, branch: string): Promise<string[]> {
  const out = await git.run(folder, ['log', '--max-count=100', '--format=%h %s', `${base}..${branch}`, '--']);
  return out.split('\n').filter(Boolean);
}

/** How many commits `branch` is ahead of `base`. */
export async function aheadCount(git: Git, folder: string, base: string, branch: string): Promise<number> {
  return Number((await git.run(folder, ['rev-list', '--count', `${base}..${branch}`, '--'])).trim()) || 0;
}

/** Lines added and removed in `folder`'s working tree against `revision` (tracked files; binary ones count 0). */
export async function lineCounts(git: Git, folder: string, revision: string): Promise<{ added: number; removed: number }> {
  const out = await git.run(folder, ['diff', '--no-color', '--no-ext-diff', '--numstat', revision, '--']);
  let added = 0;
  let removed = 0;
  for (const line of out.split('\n')) {
    const [a, r] = line.split('\t');
    added += Number(a) || 0;
    removed += Number(r) || 0;
  }
  return { added, removed };
}

/** The files that differ between `revision` and `folder`'s working tree, untracked ones included, with their kind. */
export async function changedFiles(git: Git, folder: string, revision: string): Promise<{ path: string; kind: 'added' | 'deleted' | 'modified' }[]> {
  const out = await git.run(folder, ['diff', '--no-color', '--no-ext-diff', '--name-status', '-z', '--no-renames', revision, '--']);
  const parts = out.split('\0').filter(Boolean);
  const files: { path: string; kind: 'added' | 'deleted' | 'modified' }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const letter = parts[i] as string;
    files.push({ path: parts[i + 1] as string, kind: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified' });
  }
  for (const entry of await status(git, folder)) if (entry.code === '??') files.push({ path: entry.path, kind: 'added' });
  return files;
}

/**
 * The worktree's changes against `base`, committed and uncommitted, as one binary patch. Untracked files are marked
 * intent-to-add in the worktree's own index for the diff to include them, and unmarked again (never the user's).
 * `leaveOut`: files (from the top) the patch does not carry.
 */
export async function worktreePatch(git: Git, folder: string, base: string, leaveOut: readonly string[] = []): Promise<string> {
  const untracked = (await status(git, folder)).filter((e) => e.code === '??').map((e) => e.path);
  const run = async (args: readonly string[]) => {
    const given = withPaths(args, untracked);
    await git.run(folder, given.args, { input: given.input });
  };
  if (untracked.length > 0) await run(['add', '--intent-to-add']);
  try {
    return await git.run(folder, ['diff', ...PATCH_FLAGS, base, '--', ...leaveOut.map((rel) => `:(top,exclude,literal)${rel}`)]);
  } finally {
    if (untracked.length > 0) await run(['reset', '--quiet']);
  }
}

/** The worktrees git knows of for the repository of `repo`, by path. */
export async function worktreeList(git: Git, repo: string): Promise<{ path: string; branch: string | undefined }[]> {
  const out = await git.run(repo, ['worktree', 'list', '--porcelain', '-z']);
  const list: { path: string; branch: string | undefined }[] = [];
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) list.push({ path: path.resolve(field.slice('worktree '.length)), branch: undefined });
    else if (field.startsWith('branch ') && list.length > 0) {
      const last = list[list.length - 1]!;
      list[list.length - 1] = { ...last, branch: field.slice('branch '.length).replace(/^refs\/heads\//, '') };
    }
  }
  return list;
}
