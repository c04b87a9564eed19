// Looking at a workspace folder for the checkpoints: files that may be missing, the user's repository's own git
// folder, the index's entry count, whether a file is binary, and work done a few at a time. Plain Node.
import { constants as fsConstants, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';

/** A `.git` file or a `commondir` is one short line: past this it is not one. */
const MAX_POINTER_BYTES = 4096;

/** Like git: a file with a NUL in its first 8000 bytes is binary. */
const BINARY_PROBE_BYTES = 8000;

/** Whether a path goes through a `.git` (git never lists one; this is a second guard). */
function isDotGitComponent(rel: string): boolean {
  return rel.split('/').some((part) => part.toLowerCase() === '.git');
}

export async function statOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(file);
  } catch {
    return undefined;
  }
}

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch {
    return undefined;
  }
}

/**
 * A small regular file of the user's repository (a `.git` file, `commondir`, `info/exclude`), which an agent can
 * write: undefined unless it is a regular file of at most `max` bytes, opened without following a link and without
 * waiting on a FIFO.
 */
export async function readSmallFile(file: string, max: number): Promise<Buffer | undefined> {
  const flags = process.platform === 'win32' ? fsConstants.O_RDONLY : fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, flags);
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > max) return undefined;
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return buffer.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** Writes `content` to `file` unless it already holds exactly that. Returns whether it wrote. */
export async function writeIfChanged(file: string, content: Buffer): Promise<boolean> {
  const current = await readOrUndefined(file);
  if (current?.equals(content)) return false;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  return true;
}

/**
 * The common git dir of the repository whose root is `folder` (its `.git` folder, or where a `.git` file of a
 * linked worktree or submodule points, then its `commondir`), or undefined when `folder` is not a repository's root.
 * Only the root counts: the patterns of a repository above the folder are relative to another root.
 */
export async function userCommonDir(folder: string): Promise<string | undefined> {
  const dotGit = path.join(folder, '.git');
  const stat = await statOrUndefined(dotGit);
  if (!stat) return undefined;
  let gitDir = dotGit;
  if (stat.isFile()) {
    const text = (await readSmallFile(dotGit, MAX_POINTER_BYTES))?.toString('utf8') ?? '';
    // The `gitdir:` line, found and trimmed by hand (a lazy regex rescanned trailing spaces quadratically).
    const line = text.split('\n').find((l) => l.startsWith('gitdir:'));
    const target = line?.slice('gitdir:'.length).trim();
    if (!target) return undefined;
    gitDir = path.resolve(folder, target);
  } else if (!stat.isDirectory()) {
    return undefined;
  }
  const common = (await readSmallFile(path.join(gitDir, 'commondir'), MAX_POINTER_BYTES))?.toString('utf8').trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

/** The number of entries of a git index file, from its header ("DIRC", version, count), or 0 when there is none. */
export async function indexEntryCount(indexFile: string): Promise<number> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(indexFile, 'r');
    const header = Buffer.alloc(12);
    const { bytesRead } = await handle.read(header, 0, 12, 0);
    if (bytesRead < 12 || header.toString('latin1', 0, 4) !== 'DIRC') return 0;
    return header.readUInt32BE(8);
  } catch {
    return 0;
  } finally {
    await handle?.close();
  }
}

/** A NUL in the first 8000 bytes, as git decides. */
async function looksBinary(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(BINARY_PROBE_BYTES);
    const { bytesRead } = await handle.read(head, 0, BINARY_PROBE_BYTES, 0);
    return head.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Why a file is not in a snapshot: over the size bound, binary, or past the snapshot's budget. */
export type SkipReason = 'large' | 'binary' | 'budget';

/** What is known about a file that was looked at, so that an unchanged skipped file is not read again. */
interface Seen {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly verdict: 'track' | SkipReason;
}

/** Which listed paths of a folder go into a snapshot, remembering the files it skipped so an unchanged one is not read again. */
export class FolderScan {
  private readonly seen = new Map<string, Seen>();
  /** Nested repositories already reported in the log, so each is said once. */
  private readonly nestedReported = new Set<string>();

  constructor(
    private readonly workTree: string,
    private readonly maxFileBytes: number,
    private readonly log: Logger,
  ) {}

  /**
   * Whether a listed path goes into the snapshot. Regular files over maxFileBytes or with a NUL near the start are
   * skipped; symlinks are recorded as links (never followed); sockets and the like are left out.
   *
   * Nested repositories (a folder with its own .git, which git lists as "dir/") are skipped: git would add them as
   * gitlinks, which record only a commit id and so could not be restored. The snapshot names them (`nested`), so
   * that whoever takes checkpoints can keep each in a shadow repository of its own.
   */
  async classify(rel: string, sizes: Map<string, number>): Promise<'track' | 'gone' | 'other' | SkipReason> {
    if (rel.endsWith('/')) {
      if (!this.nestedReported.has(rel)) {
        this.nestedReported.add(rel);
        this.log.info(`not recording the nested repository ${rel} in checkpoints`);
      }
      return 'other';
    }
    if (isDotGitComponent(rel)) return 'other';
    const file = path.join(this.workTree, rel);
    const stat = await statOrUndefined(file);
    if (!stat || stat.isDirectory()) {
      this.seen.delete(rel);
      return 'gone';
    }
    if (stat.isSymbolicLink()) return 'track';
    if (!stat.isFile()) return 'other';
    if (stat.size > this.maxFileBytes) return 'large';
    const known = this.seen.get(rel);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs && known.ino === stat.ino) return known.verdict;
    let verdict: Seen['verdict'];
    try {
      verdict = (await looksBinary(file)) ? 'binary' : 'track';
    } catch (error) {
      // Unreadable (permissions, removed meanwhile): git could not add it either, so leave its last version be.
      this.log.debug(`not recording ${rel}: ${errorMessage(error)}`);
      return 'other';
    }
    // Only skipped files are remembered: tracked ones are in git's index, which is the stat cache for them.
    if (verdict === 'binary') this.seen.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, verdict });
    else {
      this.seen.delete(rel);
      sizes.set(rel, stat.size); // what this snapshot would add, for its bound
    }
    return verdict;
  }
}

/** What a snapshot takes from git's listing of the work tree. */
export interface SnapshotPlan {
  /** Paths for `git update-index`: changed, new, deleted, or gone with an index entry. */
  readonly update: readonly string[];
  readonly skipped: readonly { readonly path: string; readonly reason: SkipReason }[];
  /** Folders in the work tree that are repositories of their own. */
  readonly nested: readonly string[];
  /** What the updated files hold, in bytes: about what the snapshot adds to the repository. */
  readonly bytes: number;
}

/** How many files are looked at (lstat, first bytes) at once. */
const CLASSIFY_CONCURRENCY = 32;

/**
 * Which of the paths git listed (`ls-files -z -t -m -o -d`) go into a snapshot. A work tree of more than `maxFiles`
 * files fails; past `maxSnapshotBytes`, the largest files are left out (and said so).
 */
export async function planSnapshot(
  scan: FolderScan,
  listing: string,
  limits: { readonly tracked: number; readonly maxFiles: number; readonly maxSnapshotBytes: number },
): Promise<SnapshotPlan | { readonly tooMany: true }> {
  const deleted = new Set<string>();
  const candidates = new Map<string, boolean>(); // path → tracked
  for (const line of listing.split('\0')) {
    if (line.length < 3) continue;
    const tag = line[0];
    const rel = line.slice(2);
    if (tag === 'R') deleted.add(rel);
    else candidates.set(rel, tag !== '?');
  }
  const untracked = [...candidates.values()].filter((isTracked) => !isTracked).length;
  if (limits.tracked + untracked - deleted.size > limits.maxFiles) return { tooMany: true };

  const update: string[] = [];
  const skipped: { path: string; reason: SkipReason }[] = [];
  const nested = [...candidates.keys()].filter((rel) => rel.endsWith('/')).map((rel) => rel.slice(0, -1));
  for (const rel of deleted) {
    candidates.delete(rel);
    update.push(rel);
  }
  const sizes = new Map<string, number>();
  await eachLimited([...candidates.keys()], CLASSIFY_CONCURRENCY, async (rel) => {
    const verdict = await scan.classify(rel, sizes);
    if (verdict === 'track') update.push(rel);
    else if (verdict === 'large' || verdict === 'binary') skipped.push({ path: rel, reason: verdict });
    // 'gone' with the index entry: remove it (a file that became a folder; its files are listed on their own).
    else if (verdict === 'gone' && candidates.get(rel)) update.push(rel);
  });
  // A tracked file that grew large or binary is not in `update`: its index entry keeps the last version we could
  // take, so it is neither deleted nor changed in any diff, and it is listed as skipped every time.

  let total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  if (total > limits.maxSnapshotBytes) {
    const largest = [...sizes].sort((a, b) => b[1] - a[1]);
    const left = new Set<string>();
    for (const [rel, size] of largest) {
      if (total <= limits.maxSnapshotBytes) break;
      left.add(rel);
      total -= size;
      skipped.push({ path: rel, reason: 'budget' });
    }
    for (let i = update.length - 1; i >= 0; i--) if (left.has(update[i]!)) update.splice(i, 1);
  }
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { update, skipped, nested, bytes: total };
}
