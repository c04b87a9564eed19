// The checkpoint engine: a shadow git repository, kept in the extension's storage, whose work tree is a workspace
// folder. A snapshot records the folder as a commit under refs/acp/…; a diff between two snapshots says what a turn
// changed, however it was changed (the client's writes, the agent's own disk writes, commands).
//
// The user's repository is never touched: every git call names our own --git-dir and --work-tree, runs with our
// own index (inside the shadow dir), with the inherited GIT_* environment removed and the user's global and system
// config left out, and uses only plumbing commands, which run no hooks.
//
// Plain Node (no vscode): unit-tested against real git in temporary folders.
import type { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../acp/errors';
import { type Logger, silentLogger, tagged } from '../acp/log';
import { parseDiff, type FileChange } from './gitDiff';
import { CheckpointError, globalExcludesFile, runGit, shadowCall, type GitCall, type GitResult } from './gitProcess';
import {
  FolderScan,
  indexEntryCount,
  planSnapshot,
  readSmallFile,
  statOrUndefined,
  userCommonDir,
  writeIfChanged,
  type SkipReason,
} from './workTree';

export { CheckpointError } from './gitProcess';
export type { FileChange } from './gitDiff';

export interface Skipped {
  readonly path: string;
  /** large: over maxFileBytes; binary; budget: the snapshot changed more than maxSnapshotBytes, and this was left. */
  readonly reason: SkipReason;
}

export interface Snapshot {
  readonly commit: string;
  readonly skipped: readonly Skipped[];
  readonly at: number;
  /** Folders in the work tree that are repositories of their own (paths like `skipped`'s): not in this snapshot. */
  readonly nested: readonly string[];
}

export interface ShadowOptions {
  /** The git executable (absolute path or 'git'). */
  readonly git: string;
  /** The shadow repository, e.g. <globalStorage>/checkpoints/<hash>.git (created if missing). */
  readonly gitDir: string;
  /** The workspace folder. */
  readonly workTree: string;
  /** Default 1 MiB: bigger files are not tracked (reported in skipped). */
  readonly maxFileBytes?: number;
  /** Default 256 MiB: what one snapshot adds past this is not tracked (the largest files first; reported in skipped). */
  readonly maxSnapshotBytes?: number;
  /** Default 2 GiB: a repository larger than this on disk drops its oldest checkpoints until it is not. */
  readonly maxRepoBytes?: number;
  /** Default 40: the newest checkpoints that the size bound never drops (the open chats' turns are among them). */
  readonly keepNewest?: number;
  /** Default 100_000: a folder with more files fails the snapshot with a clear CheckpointError. */
  readonly maxFiles?: number;
  /** Default 64 MiB: a git call whose output passes this fails (git is stopped). */
  readonly maxOutputBytes?: number;
  /** Default 60 s: a git call that takes longer fails (git is stopped). */
  readonly timeoutMs?: number;
  readonly log?: Logger;
}

const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** The user's `info/exclude` copied at most: patterns, a few lines; the agent can write the file. */
const MAX_EXCLUDE_BYTES = 1024 * 1024;
const DEFAULT_MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_REPO_BYTES = 2 * 1024 * 1024 * 1024;
const DEFAULT_KEEP_NEWEST = 40;
const DEFAULT_MAX_FILES = 100_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;
/** A checkpoint's ref under refs/acp/: what git allows in a ref name, and a little less (see snapshot). */
const VALID_REF = /^[\w.@+-]+(\/[\w.@+-]+)*$/;
/** Snapshot commits whose trees are remembered, for `unchangedFrom`. */
const MAX_KNOWN_TREES = 64;
const REF_ROOT = 'refs/acp/';
/**
 * From this many paths in one update, new objects go into one pack instead of one file each (git's bulk check-in,
 * which it uses for files over core.bigFileThreshold). On a slow disk that is 3-4x faster for a first snapshot:
 * 10,000 files took 6.7 s as loose objects and 1.8 s packed. Small updates stay loose, so that packs stay few.
 */
const BULK_PATHS = 256;

/**
 * The shadow's info/attributes, which outrank every .gitattributes in the folder: no end-of-line conversion, no
 * clean/smudge filters (git-lfs would store a pointer and write to the LFS store), no ident or encoding rewriting.
 * A snapshot keeps the bytes on disk as they are, so a restore writes back exactly what was there.
 */
const ATTRIBUTES =
  '# Written by the ACP extension: snapshots keep the bytes on disk as they are.\n* -text -filter -ident -working-tree-encoding !eol\n';

/** One queue per shadow repository in this process, so that concurrent callers never collide on index.lock. */
const queues = new Map<string, Promise<unknown>>();

/** A commit, tree or ref argument: never something git could read as an option. */
function revision(value: string, what: string): string {
  if (!value || value.startsWith('-') || /[\s\0]/.test(value)) throw new CheckpointError(`not a valid ${what}: '${value}'`);
  return value;
}

export class ShadowRepo {
  private readonly log: Logger;
  private readonly gitDir: string;
  private readonly workTree: string;
  /** Which listed paths go into a snapshot (files over maxFileBytes and binary ones do not). */
  private readonly scan: FolderScan;
  private readonly maxSnapshotBytes: number;
  private readonly maxRepoBytes: number;
  private readonly keepNewest: number;
  private readonly maxFiles: number;
  private readonly maxOutputBytes: number;
  private readonly timeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly config: readonly string[];
  private readonly children = new Set<ReturnType<typeof spawn>>();
  private userDir: string | undefined;
  /** The tree of the index as last written, while nothing changed the index since. */
  private tree: string | undefined;
  /** The trees of the snapshot commits made here lately, by commit. */
  private readonly trees = new Map<string, string>();
  /** The repository's size on disk when last measured, and about what snapshots added since. */
  private measured: number | undefined;
  private grown = 0;
  private disposed = false;

  private constructor(
    private readonly options: ShadowOptions,
    excludesFile: string | undefined,
  ) {
    this.log = tagged(options.log ?? silentLogger, 'checkpoints');
    this.gitDir = path.resolve(options.gitDir);
    this.workTree = path.resolve(options.workTree);
    this.scan = new FolderScan(this.workTree, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, this.log);
    this.maxSnapshotBytes = options.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
    this.maxRepoBytes = options.maxRepoBytes ?? DEFAULT_MAX_REPO_BYTES;
    this.keepNewest = options.keepNewest ?? DEFAULT_KEEP_NEWEST;
    this.maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    ({ env: this.env, args: this.config } = shadowCall(this.gitDir, this.workTree, excludesFile));
  }

  /** Opens the shadow repository at options.gitDir, creating it if missing. */
  static async open(options: ShadowOptions): Promise<ShadowRepo> {
    const workTree = path.resolve(options.workTree);
    const gitDir = path.resolve(options.gitDir);
    const stat = await statOrUndefined(workTree);
    if (!stat?.isDirectory()) throw new CheckpointError(`the folder ${workTree} does not exist`);
    const excludesFile = await globalExcludesFile(options.git, workTree, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const repo = new ShadowRepo(options, excludesFile);
    await repo.queued('open', async () => {
      if (!(await statOrUndefined(path.join(gitDir, 'HEAD')))) {
        await fs.mkdir(path.dirname(gitDir), { recursive: true });
        // --template= : no sample hooks, no description; the repository holds only what git needs.
        await repo.git(['init', '--bare', '--quiet', '--template=', gitDir], { cwd: path.dirname(gitDir) }, false);
        repo.log.info(`created the shadow repository ${gitDir} for ${workTree}`);
      }
      await fs.writeFile(path.join(gitDir, 'acp-empty.gitconfig'), '', { flag: 'a' });
      await writeIfChanged(path.join(gitDir, 'info', 'attributes'), Buffer.from(ATTRIBUTES));
      repo.userDir = await userCommonDir(workTree);
    });
    return repo;
  }

  /**
   * Records the work tree now as a commit kept under refs/acp/<ref> (ref like "<chatKey>/<n>-before"). Resolves as
   * soon as the commit exists: the ref that keeps it is written next, before any other operation on this repository
   * runs, so a prompt waiting for its checkpoint waits for no more git than it needs. `unchangedFrom`, a snapshot of
   * this repository's, is given back as it is when the work tree has not changed since it (a turn that changed
   * nothing: no commit to make, nothing to diff). Then, past maxRepoBytes, the oldest checkpoints go.
   */
  snapshot(ref: string, unchangedFrom?: string): Promise<Snapshot> {
    // Checked first: the ref is written after the snapshot is handed out.
    if (!VALID_REF.test(ref) || /\.\.|@\{|\/\/|\.lock(\/|$)|(^|\/)\.|\.$/.test(ref)) {
      return Promise.reject(new CheckpointError(`not a valid checkpoint name: '${ref}'`));
    }
    let handOut!: (taken: Snapshot) => void;
    const early = new Promise<Snapshot>((resolve) => (handOut = resolve));
    let handed = false;
    const job = this.queued('snapshot', () =>
      this.snapshotNow(ref, unchangedFrom, (taken) => {
        handed = true;
        handOut(taken);
      }),
    );
    void job.then(
      () => this.keepWithinBoundIfGrown(),
      (error: unknown) => {
        if (handed) this.log.warn(`the checkpoint ${ref} was taken but not kept: ${errorMessage(error)}`);
      },
    );
    return Promise.race([early, job]);
  }

  /** Resolves when what was asked of this repository so far has ended (a snapshot's ref is written after it is handed out). */
  async idle(): Promise<void> {
    await (queues.get(this.gitDir) ?? Promise.resolve());
  }

  /** The repository's objects on disk, in bytes (git count-objects: loose and packed). */
  sizeOnDisk(): Promise<number> {
    return this.queued('size', async () => {
      const text = (await this.git(['count-objects', '-v'])).stdout.toString('utf8');
      const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return (kib('size') + kib('size-pack')) * 1024;
    });
  }

  /**
   * Past maxRepoBytes, drops the oldest quarter of the checkpoints and repacks, until the repository is within the
   * bound. The newest `keepNewest` stay whatever it costs (the open chats' turns are among them), and it stops when
   * dropping no longer helps (the files of the work tree itself can be more than the bound). Returns how many went.
   */
  async keepWithinBound(): Promise<number> {
    let dropped = 0;
    let size = await this.sizeOnDisk();
    this.grown = 0;
    this.measured = size;
    for (let round = 0; round < 8 && size > this.maxRepoBytes; round++) {
      const count = (await this.queued('refs', () => this.refs(REF_ROOT))).length;
      const keep = Math.max(this.keepNewest, Math.floor((count * 3) / 4));
      if (count <= keep) break;
      dropped += await this.prune({ keep, maxAgeMs: Number.POSITIVE_INFINITY, repack: true });
      const smaller = await this.sizeOnDisk();
      this.measured = smaller;
      if (smaller >= size) break;
      size = smaller;
    }
    if (dropped > 0)
      this.log.info(
        `dropped the ${dropped} oldest checkpoints of ${this.workTree}: they took more than ${Math.round(this.maxRepoBytes / 1024 / 1024)} MB`,
      );
    return dropped;
  }

  /**
   * keepWithinBound, when the repository may have passed its bound: measured once, then only when what snapshots
   * added since could take it past (git count-objects is a process, and one per snapshot slowed every prompt).
   */
  private async keepWithinBoundIfGrown(): Promise<void> {
    if (this.disposed || (this.measured !== undefined && this.measured + this.grown <= this.maxRepoBytes)) return;
    await this.keepWithinBound().catch((error: unknown) =>
      this.log.warn(`could not keep the checkpoints within their bound: ${errorMessage(error)}`),
    );
  }

  /** What changed from one snapshot commit to another (rename detection on, -M). */
  diff(from: string, to: string): Promise<FileChange[]> {
    return this.queued('diff', async () => {
      const args = ['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--no-ext-diff', '--no-textconv'];
      const { stdout } = await this.git([...args, revision(from, 'checkpoint'), revision(to, 'checkpoint')]);
      return parseDiff(stdout);
    });
  }

  /**
   * A file's bytes in a snapshot (a symbolic link's target, with `link`), or undefined when the snapshot does not
   * have it (or has a folder there).
   */
  read(commit: string, file: string): Promise<{ bytes: Buffer; link: boolean } | undefined> {
    return this.queued('read', async () => {
      const rel = file.replace(/\\/g, '/').replace(/^\/+/, '');
      if (!rel) return undefined;
      const { stdout } = await this.git(['ls-tree', '-z', '--full-tree', revision(commit, 'checkpoint'), '--', rel]);
      // "<mode> <type> <oid>\t<path>\0": a symlink is a blob too (its target), a folder a tree, a nested repo a commit.
      const entry = stdout.toString('utf8').split('\0')[0] ?? '';
      const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (!match || match[2] !== 'blob' || match[4] !== rel) return undefined;
      return { bytes: (await this.git(['cat-file', 'blob', match[3] as string])).stdout, link: match[1] === '120000' };
    });
  }

  /**
   * Drops the refs beyond the newest `keep`, and the refs older than `maxAgeMs` (either is enough), then lets git
   * prune the objects no ref and not the index reach. Returns how many refs were dropped.
   */
  prune(options: { keep: number; maxAgeMs: number; now?: number; repack?: boolean }): Promise<number> {
    return this.queued('prune', async () => {
      const now = options.now ?? Date.now();
      const refs = await this.refs(REF_ROOT);
      refs.sort((a, b) => b.at - a.at || (a.name < b.name ? 1 : -1));
      const drop = refs.filter((ref, i) => i >= Math.max(0, options.keep) || now - ref.at > options.maxAgeMs);
      await this.deleteRefNames(drop.map((ref) => ref.name));
      // git prune drops only loose objects. Packs come from bulk updates (BULK_PATHS), which are rare; once there are
      // two, repack them into one, which keeps only what refs and the index reach. No delta search: it would cost
      // seconds on a large folder, and files are at most maxFileBytes.
      const packs = (await fs.readdir(path.join(this.gitDir, 'objects', 'pack')).catch(() => [])).filter((name) => name.endsWith('.pack'));
      if (packs.length > 1 || (options.repack && packs.length > 0)) await this.git(['repack', '-a', '-d', '-q', '--window=0']);
      await this.git(['prune', '--expire=now']);
      if (drop.length) this.log.debug(`pruned ${drop.length} of ${refs.length} checkpoints`);
      return drop.length;
    });
  }

  /** Drops every ref under refs/acp/<prefix>/ (a chat's history was deleted). Its objects go at the next prune. */
  deleteRefs(prefix: string): Promise<void> {
    return this.queued('deleteRefs', async () => {
      const clean = prefix.replace(/^\/+|\/+$/g, '');
      if (!clean || clean.split('/').includes('..')) throw new CheckpointError(`not a valid checkpoint prefix: '${prefix}'`);
      const refs = await this.refs(`${REF_ROOT}${clean}/`);
      await this.deleteRefNames(refs.map((ref) => ref.name));
    });
  }

  /** Stops any git process of ours; later calls fail. */
  dispose(): void {
    this.disposed = true;
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }

  private async snapshotNow(ref: string, unchangedFrom: string | undefined, handOut: (taken: Snapshot) => void): Promise<Snapshot> {
    const at = Date.now();
    // Checked here, because git started in a missing folder fails as if git itself were missing.
    if (!(await statOrUndefined(this.workTree))?.isDirectory()) throw new CheckpointError(`the folder ${this.workTree} no longer exists`);
    await this.syncExclude();
    const seconds = Math.floor(at / 1000);
    const env = { ...this.env, GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` };
    // The subject keeps the time in milliseconds, so that prune orders snapshots taken within one second.
    const message = `acp checkpoint ${at}\n\n${ref}\n`;
    const commitTree = (tree: string) => this.git(['commit-tree', tree], { input: message, env }).then((r) => r.stdout.toString('utf8').trim());
    const known = this.tree;
    const same = unchangedFrom !== undefined && known !== undefined && this.trees.get(unchangedFrom) === known;
    // Usually nothing changed since the last snapshot: its tree is committed while git lists the changes, and the
    // commit is used if the listing finds none (else it is left for git prune).
    const early = known !== undefined && !same ? commitTree(known) : undefined;
    early?.catch(() => {});
    // Only what git sees as modified (stat differs from the index), deleted, or untracked and not ignored: an
    // unchanged file costs one stat inside git, and none here.
    const listed = await this.git(['ls-files', '-z', '-t', '-m', '-o', '-d', '--exclude-standard']);
    const plan = await planSnapshot(this.scan, listed.stdout.toString('utf8'), {
      tracked: await indexEntryCount(path.join(this.gitDir, 'index')),
      maxFiles: this.maxFiles,
      maxSnapshotBytes: this.maxSnapshotBytes,
    });
    if ('tooMany' in plan) {
      throw new CheckpointError(
        `too many files: ${this.workTree} has more than ${this.maxFiles.toLocaleString('en-US')} files that are not ignored, ` +
          'so checkpoints are off for it (add the large folders to .gitignore)',
      );
    }
    const { update, skipped, nested } = plan;
    if (update.length) {
      this.tree = undefined;
      // --remove drops paths that are gone; --replace lets a file take the place of a folder and the reverse.
      const bulk = update.length >= BULK_PATHS ? ['-c', 'core.bigFileThreshold=1'] : [];
      await this.git([...bulk, 'update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { input: `${update.join('\0')}\0` });
      this.grown += plan.bytes;
    }
    this.tree ??= (await this.git(['write-tree'])).stdout.toString('utf8').trim();
    const commit = same && this.tree === known ? unchangedFrom : this.tree === known && early ? await early : await commitTree(this.tree);
    if (this.trees.size >= MAX_KNOWN_TREES) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(commit, this.tree);
    const taken = { commit, skipped, at, nested };
    this.log.trace(`snapshot ${ref}: ${update.length} paths updated, ${skipped.length} skipped, ${Date.now() - at} ms`);
    handOut(taken);
    if (commit === unchangedFrom) return taken;
    // Starting a process blocks this thread for a moment: first let whoever waits for the snapshot go on.
    await new Promise((resolve) => setImmediate(resolve));
    await this.git(['update-ref', `${REF_ROOT}${ref}`, commit]);
    return taken;
  }

  /** Copies the user's .git/info/exclude into the shadow's when it changed, so that what it ignores is ignored here. */
  private async syncExclude(): Promise<void> {
    const user = this.userDir ? await readSmallFile(path.join(this.userDir, 'info', 'exclude'), MAX_EXCLUDE_BYTES) : undefined;
    const content = Buffer.concat([Buffer.from("# Copied from the folder's .git/info/exclude by the ACP extension.\n"), user ?? Buffer.alloc(0)]);
    if (await writeIfChanged(path.join(this.gitDir, 'info', 'exclude'), content)) this.log.debug('copied .git/info/exclude');
  }

  private async refs(pattern: string): Promise<{ name: string; at: number }[]> {
    const { stdout } = await this.git(['for-each-ref', '--format=%(refname)%09%(committerdate:unix)%09%(subject)', pattern]);
    const refs: { name: string; at: number }[] = [];
    for (const line of stdout.toString('utf8').split('\n')) {
      const [name, seconds, subject] = line.split('\t');
      if (!name) continue;
      const ms = /^acp checkpoint (\d+)$/.exec(subject ?? '')?.[1];
      refs.push({ name, at: ms ? Number(ms) : Number(seconds) * 1000 });
    }
    return refs;
  }

  private async deleteRefNames(names: readonly string[]): Promise<void> {
    if (!names.length) return;
    await this.git(['update-ref', '--stdin'], { input: names.map((name) => `delete ${name}\n`).join('') });
  }

  /**
   * Runs `work` after every earlier operation on this shadow repository (in this process) has ended. With none of
   * ours running, an index.lock left behind is a crashed git's, and is removed.
   */
  private queued<T>(what: string, work: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.disposed) throw new CheckpointError('the checkpoint repository was closed');
      const lock = path.join(this.gitDir, 'index.lock');
      if (await statOrUndefined(lock)) {
        this.log.warn('removing a stale index.lock left by an earlier git process');
        await fs.rm(lock, { force: true });
      }
      try {
        return await work();
      } catch (error) {
        if (error instanceof CheckpointError) throw error;
        throw new CheckpointError(`checkpoint ${what} failed: ${errorMessage(error)}`);
      }
    };
    const previous = queues.get(this.gitDir) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.catch(() => undefined);
    queues.set(this.gitDir, tail);
    void tail.then(() => {
      if (queues.get(this.gitDir) === tail) queues.delete(this.gitDir);
    });
    return result;
  }

  /** Runs git on the shadow repository (or, with `own` false, bare `args`), with a timeout and a cap on its output. */
  private git(args: readonly string[], call: GitCall = {}, own = true): Promise<GitResult> {
    if (this.disposed) return Promise.reject(new CheckpointError('the checkpoint repository was closed'));
    return runGit(this.options.git, own ? [...this.config, ...args] : args, {
      cwd: call.cwd ?? this.workTree,
      env: call.env ?? this.env,
      input: call.input,
      okCodes: call.okCodes,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: this.maxOutputBytes,
      children: this.children,
    });
  }
}
