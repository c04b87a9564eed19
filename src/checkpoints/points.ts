// What a checkpoint is, whichever way it was taken. With git, a checkpoint is one snapshot commit per workspace
// folder in a shadow repository (shadowGit.ts). Without git, only what passed through the client is known: the
// writes it made for the agent and the diffs the agent showed. Both answer the same questions: what changed
// between two points, and what a file held at a point. Plain Node, no `vscode`.
import { join, sep } from 'node:path';
import { lineDelta } from '../common/lineDelta';
import type { FileChange, ShadowRepo, Skipped } from './shadowGit';

/** A file in a workspace folder: the folder's path, and the file's path in it ('/'-separated). */
export interface TrackedFile {
  readonly folder: string;
  readonly rel: string;
}

export function fileKey(file: TrackedFile): string {
  return `${file.folder}\0${file.rel}`;
}

/** What a path held: nothing, a file's bytes, or a symbolic link (`link`, with its target as `bytes`). */
export type FileState = { readonly exists: false } | { readonly exists: true; readonly bytes: Uint8Array; readonly link?: true };

export const ABSENT: FileState = { exists: false };

export function sameState(a: FileState, b: FileState): boolean {
  if (!a.exists || !b.exists) return a.exists === b.exists;
  if (a.link !== b.link) return false;
  return Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength).equals(b.bytes);
}

/** One file a turn changed. A rename is one change with both files. */
export interface Change {
  readonly file: TrackedFile;
  readonly status: FileChange['status'];
  readonly oldFile?: TrackedFile;
  readonly added: number;
  readonly removed: number;
}

/** The files a change touches: a rename touches where the file was and where it is. */
export function touched(change: Change): TrackedFile[] {
  return change.oldFile ? [change.oldFile, change.file] : [change.file];
}

/** A moment of the workspace that can be read back. */
export interface Point {
  read(file: TrackedFile): Promise<FileState>;
  /**
   * Whether what `read` gives for the file was seen by the client itself, so it may be written back. Git's
   * snapshots always are; the record's states are only when they come from the client's own reads and writes, not
   * from a diff the agent reported.
   */
  witnessed(file: TrackedFile): boolean;
}

/** A file a point left out for its size budget, as it is kept on disk with the point. */
export interface LeftOut {
  readonly folder: string;
  readonly path: string;
}

/** How checkpoints are taken: git snapshots, or the client's own record. */
export interface Snapshotter {
  readonly kind: 'git' | 'client';
  /** What a point is, to keep on disk (git: its commits by root); undefined when it cannot outlive the window. */
  save(point: Point): Record<string, string> | undefined;
  /** A point kept on disk, back, with the files it left out for its size budget; undefined when this snapshotter cannot read it. */
  load(saved: Record<string, string>, leftOut?: readonly LeftOut[]): Promise<Point | undefined>;
  /**
   * Records the workspace now, kept under `ref` (unique per chat and turn). Where the workspace has not changed
   * since `unchangedFrom`, the point may share its record (so a diff between them costs nothing).
   */
  take(ref: string, unchangedFrom?: Point): Promise<Point>;
  diff(from: Point, to: Point): Promise<Change[]>;
  /** What the point left out (files too big, binary files), for the card's note. */
  skipped(point: Point): readonly (Skipped & { readonly folder: string })[];
}

// ---- git -------------------------------------------------------------------------------------------------------

/** Git's empty tree: what a repository that did not exist yet at a point held then. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Repositories nested in the workspace folders that get shadows of their own, at most. */
const MAX_NESTED = 64;

class GitPoint implements Point {
  constructor(
    /** The snapshot commit of each root (a workspace folder, or a repository nested in one) by its path. */
    readonly commits: ReadonlyMap<string, string>,
    private readonly repos: ReadonlyMap<string, ShadowRepo>,
    readonly skipped: readonly (Skipped & { readonly folder: string })[],
  ) {}

  async read(file: TrackedFile): Promise<FileState> {
    const commit = this.commits.get(file.folder);
    const repo = this.repos.get(file.folder);
    if (!commit || !repo) return ABSENT;
    const read = await repo.read(commit, file.rel);
    if (!read) return ABSENT;
    return read.link ? { exists: true, bytes: read.bytes, link: true } : { exists: true, bytes: read.bytes };
  }

  witnessed(): boolean {
    return true;
  }
}

/**
 * Checkpoints as snapshot commits, one per workspace folder, and one per repository nested in a folder (git keeps
 * a nested repository out of the outer one, so each gets a shadow of its own as soon as a snapshot finds it).
 */
export class GitSnapshotter implements Snapshotter {
  readonly kind = 'git';
  private readonly repos: Map<string, ShadowRepo>;

  /** `repos` by workspace folder path; `open` makes the shadow of a nested repository, by its path. */
  constructor(
    repos: ReadonlyMap<string, ShadowRepo>,
    private readonly open?: (root: string) => Promise<ShadowRepo>,
  ) {
    this.repos = new Map(repos);
  }

  async take(ref: string, unchangedFrom?: Point): Promise<Point> {
    const since = unchangedFrom instanceof GitPoint ? unchangedFrom.commits : undefined;
    const commits = new Map<string, string>();
    const skipped: (Skipped & { readonly folder: string })[] = [];
    let roots = [...this.repos.keys()].filter((root) => !this.nestedIn(root));
    const seen = new Set(roots);
    while (roots.length > 0) {
      const taken = await Promise.all(
        roots.map(async (root) => ({ root, snapshot: await this.repoOf(root).then((r) => r.snapshot(ref, since?.get(root))) })),
      );
      const next: string[] = [];
      for (const { root, snapshot } of taken) {
        commits.set(root, snapshot.commit);
        skipped.push(...snapshot.skipped.map((s) => ({ ...s, folder: root })));
        for (const rel of snapshot.nested) {
          const nested = join(root, ...rel.split('/'));
          if (seen.has(nested) || !this.open || seen.size >= MAX_NESTED) continue;
          seen.add(nested);
          next.push(nested);
        }
      }
      roots = next;
    }
    return new GitPoint(commits, this.repos, skipped);
  }

  save(point: Point): Record<string, string> | undefined {
    return point instanceof GitPoint ? Object.fromEntries(point.commits) : undefined;
  }

  async load(saved: Record<string, string>, leftOut: readonly LeftOut[] = []): Promise<Point | undefined> {
    const commits = new Map(Object.entries(saved).filter(([, commit]) => /^[0-9a-f]{40,64}$/.test(commit)));
    if (commits.size === 0) return undefined;
    // A nested repository's shadow opens when a point needs it (a snapshot opens it too, once it finds it).
    for (const root of commits.keys()) await this.repoOf(root).catch(() => commits.delete(root));
    // What it left out for its size budget, kept with it: Undo must not take those files for the turn's own.
    return new GitPoint(
      commits,
      this.repos,
      leftOut.map((s) => ({ ...s, reason: 'budget' as const })),
    );
  }

  /** Whether `root` is a nested repository (found by a snapshot), not a workspace folder. */
  private nestedIn(root: string): boolean {
    return [...this.repos.keys()].some((other) => other !== root && root.startsWith(other + sep));
  }

  private async repoOf(root: string): Promise<ShadowRepo> {
    const known = this.repos.get(root);
    if (known) return known;
    if (!this.open) throw new Error(`no shadow repository for ${root}`);
    const repo = await this.open(root);
    this.repos.set(root, repo);
    return repo;
  }

  /**
   * What changed between two points. A file the earlier point left out for its size budget is no change of these
   * points: it was not recorded then, so it would show as added (or as its stale version) and Undo would delete it
   * or write that version back.
   */
  async diff(from: Point, to: Point): Promise<Change[]> {
    if (!(from instanceof GitPoint) || !(to instanceof GitPoint)) return [];
    const leftOut = new Set(from.skipped.filter((s) => s.reason === 'budget').map((s) => fileKey({ folder: s.folder, rel: s.path })));
    const recorded = (change: Change) => !leftOut.has(fileKey(change.file)) && !(change.oldFile && leftOut.has(fileKey(change.oldFile)));
    const roots = new Set([...from.commits.keys(), ...to.commits.keys()]);
    const changes = await Promise.all(
      [...roots].map(async (folder) => {
        // A repository that appeared (or went) between the points: all of its files were added (or removed).
        const a = from.commits.get(folder) ?? EMPTY_TREE;
        const b = to.commits.get(folder) ?? EMPTY_TREE;
        const repo = this.repos.get(folder);
        if (a === b || !repo) return [];
        return (await repo.diff(a, b)).map((c): Change => ({
          file: { folder, rel: c.path },
          status: c.status,
          ...(c.oldPath !== undefined ? { oldFile: { folder, rel: c.oldPath } } : {}),
          added: c.added,
          removed: c.removed,
        }));
      }),
    );
    return changes.flat().filter(recorded);
  }

  skipped(point: Point): readonly (Skipped & { readonly folder: string })[] {
    return point instanceof GitPoint ? point.skipped : [];
  }
}

// ---- the client's own record ------------------------------------------------------------------------------------

interface Write {
  readonly seq: number;
  readonly file: TrackedFile;
  readonly before: FileState;
  readonly after: FileState;
  /** The client read `before` and wrote `after` itself; false for a diff the agent only reported (or an unread before). */
  readonly witnessed: boolean;
}

/** The most the record keeps, in bytes of file content: past it, the oldest writes are forgotten. */
const RECORD_BYTES = 32 * 1024 * 1024;

class RecordPoint implements Point {
  constructor(
    readonly seq: number,
    private readonly record: ClientRecord,
  ) {}

  read(file: TrackedFile): Promise<FileState> {
    return Promise.resolve(this.record.stateAt(this.seq, file).state);
  }

  witnessed(file: TrackedFile): boolean {
    return this.record.stateAt(this.seq, file).witnessed;
  }
}

/**
 * Without git: the writes the client made for the agent, and the diffs the agent showed, in order. A point is a
 * place in that sequence; a file's state at a point is the `after` of its last write before it, or the `before`
 * of its first write after it.
 */
export class ClientRecord implements Snapshotter {
  readonly kind = 'client';
  private writes: Write[] = [];
  private seq = 0;
  private bytes = 0;
  /** Writes before this were forgotten (the record's bound): points before it cannot be read. */
  private forgottenBefore = 0;

  /**
   * A write of `file`: `witnessed` when the client read `before` and wrote `after` itself (its own
   * fs/write_text_file); not for a diff the agent reported, which can be shown but never written back by Undo.
   */
  wrote(file: TrackedFile, before: FileState, after: FileState, witnessed: boolean): void {
    if (sameState(before, after)) return;
    this.writes.push({ seq: ++this.seq, file, before, after, witnessed });
    this.bytes += size(before) + size(after);
    while (this.bytes > RECORD_BYTES && this.writes.length > 1) {
      const old = this.writes.shift();
      if (!old) break;
      this.bytes -= size(old.before) + size(old.after);
      this.forgottenBefore = old.seq;
    }
  }

  /** Whether a point is still fully known (its writes were not forgotten). */
  knows(point: Point): boolean {
    return point instanceof RecordPoint && point.seq >= this.forgottenBefore;
  }

  take(): Promise<Point> {
    return Promise.resolve(new RecordPoint(this.seq, this));
  }

  /** The file's state at a point, and whether the client saw it (a state nothing recorded is not seen). */
  stateAt(seq: number, file: TrackedFile): { state: FileState; witnessed: boolean } {
    const key = fileKey(file);
    let last: Write | undefined;
    for (const w of this.writes) {
      if (fileKey(w.file) !== key) continue;
      if (w.seq <= seq) last = w;
      else return last ? { state: last.after, witnessed: last.witnessed } : { state: w.before, witnessed: w.witnessed };
    }
    return last ? { state: last.after, witnessed: last.witnessed } : { state: ABSENT, witnessed: false };
  }

  diff(from: Point, to: Point): Promise<Change[]> {
    if (!(from instanceof RecordPoint) || !(to instanceof RecordPoint)) return Promise.resolve([]);
    const files = new Map<string, TrackedFile>();
    for (const w of this.writes) if (w.seq > from.seq && w.seq <= to.seq) files.set(fileKey(w.file), w.file);
    const changes: Change[] = [];
    for (const file of files.values()) {
      const a = this.stateAt(from.seq, file).state;
      const b = this.stateAt(to.seq, file).state;
      if (sameState(a, b)) continue;
      changes.push({ file, status: !a.exists ? 'A' : !b.exists ? 'D' : 'M', ...lineCounts(a, b) });
    }
    return Promise.resolve(changes);
  }

  skipped(): readonly (Skipped & { readonly folder: string })[] {
    return [];
  }

  /** The record lives in memory: it does not outlive the window. */
  save(): undefined {
    return undefined;
  }

  load(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}

function size(state: FileState): number {
  return state.exists ? state.bytes.byteLength : 0;
}

/** Lines added and removed from `a` to `b`, as git's numstat counts them. */
function lineCounts(a: FileState, b: FileState): { added: number; removed: number } {
  const text = (s: FileState) => (s.exists ? Buffer.from(s.bytes).toString('utf8') : '');
  return lineDelta(text(a), text(b));
}
