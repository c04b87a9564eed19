// The checkpoints of one chat session: a point before each turn and one when it ends, what changed between them
// (the changes card), and moving files between points (Undo, Redo, Restore Checkpoint) without ever overwriting
// what the user changed since without asking. Plain Node: the editor is reached through `WorkspaceIO` and the user
// through `ChangePrompts`, both given by the host.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import type { Logger } from '../acp/log';
import { errorMessage } from '../acp/errors';
import type { ChangesView, CheckpointAnswer, CheckpointQuestion, CheckpointsView, FileChangeView } from '../chat/protocol';
import { CheckpointQuestions, moveFiles, type WorkspaceIO } from './moves';
import { keptTurn, type SavedTurn, type TurnStore } from './turnStore';
import { fileKey, sameState, touched, type Change, type FileState, type Point, type Snapshotter, type TrackedFile } from './points';

export type Transition = CheckpointQuestion['transition'];

export interface TrackerDeps {
  readonly snapshotter: Promise<Snapshotter | undefined>;
  readonly io: WorkspaceIO;
  /** How the card names a file ("src/a.ts", or "folder/src/a.ts" in a multi-root workspace). */
  readonly label: (file: TrackedFile) => string;
  /** Words for the card's note: skipped files, the client-only record. Absent parts are left out. */
  readonly words: {
    skipped(large: readonly string[], binary: readonly string[], budget: readonly string[]): string;
    clientOnly(): string;
    early(): string;
    failed(reason: string): string;
  };
  readonly log: Logger;
  /** The refs of this chat's checkpoints go under this prefix (the session id, made safe for a ref name). */
  readonly refPrefix: string;
  /** Where the turns are kept, and the ids of the session's user messages now in the chat (replayed ones first). */
  readonly store?: TurnStore;
  readonly userMessages?: readonly number[];
}

type CardState = ChangesView['state'];

interface TurnRecord {
  /** The id of the user message that started the turn. */
  readonly turn: number;
  /** Which user message of the session it is (0 for the first), to find it again when the chat is replayed. */
  readonly k: number;
  /** Its number in this chat, for its checkpoints' refs. */
  readonly n: number;
  readonly before: Promise<Point | undefined>;
  after?: Point;
  changes: Change[];
  state: CardState | 'running';
  note?: string;
  /** The card shows even without changes: files were left out, or the changes could not be measured. */
  notable?: boolean;
  /** No checkpoint could be taken before the turn: there is nothing to restore its message to. */
  unrestorable?: boolean;
}

/** The last Restore Checkpoint, which Redo Changes can take back. */
interface Restored {
  readonly turn: number;
  readonly files: readonly TrackedFile[];
  /** The files as they were before the restore, and as the restore left them. */
  readonly replaced: Point;
  readonly target: Point;
  readonly later: readonly TurnRecord[];
}

/** How long a prompt waits for its checkpoint before it goes anyway (the checkpoint still completes). */
const BEFORE_WAIT_MS = 5_000;
/** How long a prompt waits for the chat's first checkpoint, which indexes the whole workspace the first time. */
const WARM_WAIT_MS = 2_000;

export class ChatCheckpoints {
  private readonly turns: TurnRecord[] = [];
  private readonly changeEmitter = new Emitter<void>();
  /** The cards or the restorable messages changed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  private queue: Promise<unknown> = Promise.resolve();
  private counter = 0;
  private warm: Promise<Point | undefined> | undefined;
  private warming = false;
  private disposed = false;
  /** Comments written on this chat's changes and not yet sent, counted by whoever holds them. */
  comments = 0;
  /** What the chat asks before files move: one question at a time. */
  private readonly questions = new CheckpointQuestions(
    (file) => this.deps.label(file),
    () => this.fire(),
    () => this.disposed,
  );
  private restored: Restored | undefined;

  constructor(private readonly deps: TrackerDeps) {
    // The first checkpoint indexes the whole workspace: it starts now, in the background, so no prompt waits for it.
    this.warming = true;
    this.warm = this.take('open')
      .catch(() => undefined)
      .finally(() => (this.warming = false));
    if (deps.store) void this.run(() => this.adopt(deps.store!, deps.userMessages ?? []));
  }

  /** The turns kept of this session, on the user messages the agent replayed: their cards come back. */
  private async adopt(store: TurnStore, userMessages: readonly number[]): Promise<void> {
    const snapshotter = await this.deps.snapshotter;
    if (!snapshotter) return;
    const saved = await store.load().catch(() => []);
    for (const turn of saved) {
      const id = userMessages[turn.k];
      if (id === undefined || this.record(id)) continue;
      const before = await snapshotter.load(turn.before, turn.leftOut).catch(() => undefined);
      const after = turn.after ? await snapshotter.load(turn.after).catch(() => undefined) : undefined;
      if (!before) continue;
      const record: TurnRecord = { turn: id, k: turn.k, n: turn.n, before: Promise.resolve(before), changes: [], state: turn.state };
      if (after) {
        record.after = after;
        record.changes = await snapshotter.diff(before, after).catch(() => []);
      } else if (turn.state !== 'undone') record.state = 'open';
      if (turn.note) record.note = turn.note;
      if (turn.notable) record.notable = true;
      this.counter = Math.max(this.counter, turn.n);
      this.turns.push(record);
    }
    this.turns.sort((a, b) => a.k - b.k);
    if (saved.length > 0) this.fire();
  }

  /** The turns as kept on disk (git checkpoints only: the client's own record does not outlive the window). */
  private async persist(): Promise<void> {
    const snapshotter = await this.deps.snapshotter;
    const store = this.deps.store;
    if (!snapshotter || !store || snapshotter.kind !== 'git') return;
    const saved: SavedTurn[] = [];
    for (const t of this.turns) {
      if (t.state === 'running') continue;
      const before = await t.before;
      const b = before && snapshotter.save(before);
      if (!b) continue;
      const leftOut = snapshotter.skipped(before).flatMap((s) => (s.reason === 'budget' ? [{ folder: s.folder, path: s.path }] : []));
      saved.push(keptTurn({ ...t, state: t.state }, b, t.after && snapshotter.save(t.after), leftOut));
    }
    store.save(saved);
  }

  /** Resolves when the first checkpoint (taken in the background as the chat opens) is done. */
  async ready(): Promise<void> {
    await this.warm;
  }

  /** How this chat's checkpoints are taken (git, or the client's own record), once that is known. */
  snapshotter(): Promise<Snapshotter | undefined> {
    return this.deps.snapshotter;
  }

  /** The point before a turn, or when it ended. */
  async point(turn: number, side: 'before' | 'after'): Promise<Point | undefined> {
    const record = this.record(turn);
    return side === 'before' ? record?.before : record?.after;
  }

  private async take(name: string, unchangedFrom?: Point): Promise<Point | undefined> {
    const snapshotter = await this.deps.snapshotter;
    if (!snapshotter || this.disposed) return undefined;
    try {
      return await snapshotter.take(`${this.deps.refPrefix}/${name}`, unchangedFrom);
    } catch (error) {
      this.deps.log.warn(`could not take a checkpoint: ${errorMessage(error)}`);
      throw error;
    }
  }

  /**
   * A turn begins (its user message is shown, the prompt not yet sent): the workspace is recorded first. The first
   * checkpoint of a chat indexes the workspace in the background; a prompt waits for it only a little, and when it
   * takes longer (a big workspace the first time), the prompt goes and that checkpoint stands for the state before
   * the turn, with a note on the card.
   */
  async beforeTurn(turn: number, k: number): Promise<void> {
    if (this.warming) await bounded(this.warm, WARM_WAIT_MS);
    const early = this.warming;
    const n = ++this.counter;
    const before = early && this.warm ? this.warm : this.take(`${n}-before`);
    const record: TurnRecord = { turn, k, n, before: before.catch(() => undefined), changes: [], state: 'running' };
    void record.before.then((point) => (record.unrestorable = !point));
    if (early) record.note = this.deps.words.early();
    this.turns.push(record);
    this.fire();
    if (!early) await bounded(record.before, BEFORE_WAIT_MS);
  }

  /**
   * The running turn ended, however it ended: what it changed becomes its card. `prepare` runs first, with the
   * snapshotter (it tells the client's own record what the turn's diffs showed).
   */
  afterTurn(prepare?: (snapshotter: Snapshotter) => void): Promise<void> {
    const record = this.turns.find((t) => t.state === 'running');
    if (!record) return Promise.resolve();
    return this.run(async () => {
      const snapshotter = await this.deps.snapshotter;
      if (!snapshotter) {
        // No workspace folder on this machine's disk: nothing to track, nothing to show.
        this.turns.splice(this.turns.indexOf(record), 1);
        return;
      }
      prepare?.(snapshotter);
      const before = await record.before;
      if (!before) {
        record.state = 'open';
        record.note = record.note ?? this.deps.words.failed('no checkpoint was taken before the turn');
        record.notable = true;
        return;
      }
      try {
        const after = await this.take(`${record.n}-after`, before);
        if (!after) return;
        record.after = after;
        record.changes = await snapshotter.diff(before, after);
        const skipped = this.skippedNote(snapshotter, before, after);
        record.notable = skipped !== undefined;
        record.note = joinNotes(record.note, skipped, snapshotter.kind === 'client' ? this.deps.words.clientOnly() : undefined);
      } catch (error) {
        record.note = this.deps.words.failed(errorMessage(error));
        record.notable = true;
      }
      record.state = 'open';
    }).finally(() => this.fire());
  }

  private skippedNote(snapshotter: Snapshotter, before: Point, after: Point): string | undefined {
    const earlier = new Set(snapshotter.skipped(before).map((s) => `${s.folder}\0${s.path}`));
    const fresh = snapshotter.skipped(after).filter((s) => !earlier.has(`${s.folder}\0${s.path}`));
    if (fresh.length === 0) return undefined;
    const names = (reason: string) => fresh.filter((s) => s.reason === reason).map((s) => this.deps.label({ folder: s.folder, rel: s.path }));
    return this.deps.words.skipped(names('large'), names('binary'), names('budget'));
  }

  // ---- what the user does -----------------------------------------------------------------------------------------

  keep(turn: number): void {
    const record = this.record(turn);
    if (!record || record.state !== 'open') return;
    record.state = 'kept';
    this.fire();
  }

  /** Every file of the turn back to how it was before the turn. */
  undo(turn: number): Promise<boolean> {
    return this.run(async () => {
      const record = this.record(turn);
      if (!record?.after || record.state === 'undone' || record.state === 'running') return false;
      const before = await record.before;
      if (!before) return false;
      const after = record.after;
      const done = await this.move(turn, record.changes.flatMap(touched), before, (f) => after.read(f), 'undo');
      if (done) record.state = 'undone';
      return done;
    }).finally(() => this.fire());
  }

  /** The agent's version back, after an Undo. */
  redo(turn: number): Promise<boolean> {
    return this.run(async () => {
      const record = this.record(turn);
      const before = await record?.before;
      if (!record?.after || record.state !== 'undone' || !before) return false;
      const done = await this.move(turn, record.changes.flatMap(touched), record.after, (f) => before.read(f), 'redo');
      if (done) record.state = 'open';
      return done;
    }).finally(() => this.fire());
  }

  /**
   * Every file that this turn and the later ones changed, back to how it was before this turn, after the user saw the
   * list. What the restore replaced is kept as a checkpoint of its own, so Redo Changes can put it back. `unchanged`:
   * nothing to restore (nothing asked); `declined`: the user said no, or a file could not be restored.
   */
  restore(turn: number): Promise<'restored' | 'unchanged' | 'declined' | 'none'> {
    return this.run(async () => {
      const index = this.turns.findIndex((t) => t.turn === turn);
      const target = await this.turns[index]?.before;
      if (index < 0 || !target) return 'none' as const;
      const later = this.turns.slice(index).filter((t) => t.state !== 'running');
      // What each file should hold now, by the last of these turns that touched it.
      const expected = new Map<string, { file: TrackedFile; point: Promise<Point | undefined> }>();
      for (const t of later) {
        for (const file of t.changes.flatMap(touched)) {
          expected.set(fileKey(file), { file, point: t.state === 'undone' ? t.before : Promise.resolve(t.after) });
        }
      }
      const differing: TrackedFile[] = [];
      for (const { file } of expected.values()) if (!sameState(await this.deps.io.current(file), await target.read(file))) differing.push(file);
      if (differing.length === 0) return 'unchanged' as const;
      if ((await this.questions.ask('restore', turn, 'restore', differing)) !== 'restore') return 'declined' as const;
      const replaced = await this.take(`${++this.counter}-restore`).catch(() => undefined);
      const read = async (file: TrackedFile): Promise<FileState> =>
        (await (await expected.get(fileKey(file))?.point)?.read(file)) ?? this.deps.io.current(file);
      if (!(await this.move(turn, differing, target, read, 'restore'))) return 'declined' as const;
      for (const t of later) t.state = 'undone';
      this.restored = replaced ? { turn, files: differing, replaced, target, later } : undefined;
      return 'restored' as const;
    }).finally(() => this.fire());
  }

  /** Redo Changes after a Restore Checkpoint: the files back to how the restore found them. */
  redoRestore(): Promise<boolean> {
    return this.run(async () => {
      const restored = this.restored;
      if (!restored) return false;
      const done = await this.move(restored.turn, restored.files, restored.replaced, (f) => restored.target.read(f), 'redo');
      if (!done) return false;
      this.restored = undefined;
      for (const t of restored.later) t.state = 'open';
      return true;
    }).finally(() => this.fire());
  }

  /** The user answered the question shown. False when it is no longer asked. */
  answer(id: number, answer: CheckpointAnswer): boolean {
    return this.questions.answer(id, answer);
  }

  /** Moves `files` to their state at `target` (see `moveFiles`), asking in this chat. */
  private move(
    turn: number,
    files: readonly TrackedFile[],
    target: Point,
    expected: (file: TrackedFile) => Promise<FileState>,
    transition: Transition,
  ): Promise<boolean> {
    return moveFiles(
      { io: this.deps.io, snapshotter: this.deps.snapshotter, ask: (kind, asked) => this.questions.ask(kind, turn, transition, asked) },
      files,
      target,
      expected,
    );
  }

  // ---- what the chat, the decorations and the Sessions view show --------------------------------------------------

  view(): CheckpointsView {
    const cards: ChangesView[] = [];
    for (const t of this.turns) {
      if (t.state === 'running' || (t.changes.length === 0 && !t.notable)) continue;
      cards.push({
        turn: t.turn,
        files: t.changes.map((c) => this.fileView(c)),
        state: t.state,
        ...(t.note ? { note: t.note } : {}),
        comments: t === this.latestOpen() ? this.comments : 0,
      });
    }
    return {
      cards,
      restorable: this.turns.filter((t) => t.state !== 'running' && !t.unrestorable).map((t) => t.turn),
      ...(this.questions.shown ? { question: this.questions.shown } : {}),
      ...(this.restored ? { restored: { turn: this.restored.turn, files: this.restored.files.length } } : {}),
    };
  }

  private fileView(change: Change): FileChangeView {
    return {
      path: this.deps.label(change.file),
      ...(change.oldFile ? { oldPath: this.deps.label(change.oldFile) } : {}),
      status: change.status,
      added: change.added,
      removed: change.removed,
    };
  }

  /** The latest turn whose changes are still to review: Send Feedback belongs to it. */
  latestOpen(): TurnRecord | undefined {
    return [...this.turns].reverse().find((t) => t.state === 'open' && t.changes.length > 0);
  }

  /** Files changed by turns the user has not kept or undone, with their change. */
  unreviewed(): Array<{ file: TrackedFile; status: Change['status'] }> {
    return this.turns
      .filter((t) => t.state === 'open')
      .flatMap((t) => t.changes.flatMap((c) => (c.status === 'D' ? [] : [{ file: c.file, status: c.status }])));
  }

  /** Lines added and removed by the turns not undone, for the Sessions view. */
  totals(): { added: number; removed: number } {
    let added = 0;
    let removed = 0;
    for (const t of this.turns) {
      if (t.state === 'undone' || t.state === 'running') continue;
      for (const c of t.changes) {
        added += c.added;
        removed += c.removed;
      }
    }
    return { added, removed };
  }

  /** A turn's change by the index its card lists it at, with the points on either side. */
  async change(turn: number, index: number): Promise<{ change: Change; before: Point; after: Point } | undefined> {
    const record = this.record(turn);
    const change = record?.changes[index];
    const before = await record?.before;
    return change && before && record?.after ? { change, before, after: record.after } : undefined;
  }

  /** Every change of a turn, with its points, for Review Changes. */
  async changesOf(turn: number): Promise<{ changes: readonly Change[]; before: Point } | undefined> {
    const record = this.record(turn);
    const before = await record?.before;
    return record && before ? { changes: record.changes, before } : undefined;
  }

  private record(turn: number): TurnRecord | undefined {
    return this.turns.find((t) => t.turn === turn);
  }

  /** Operations run one at a time: a checkpoint never races a restore. */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(operation, operation);
    this.queue = next.catch(() => undefined);
    return next;
  }

  fire(): void {
    if (this.disposed) return;
    this.changeEmitter.fire();
    void this.persist().catch((error: unknown) => this.deps.log.warn(`could not keep the checkpoints: ${errorMessage(error)}`));
  }

  dispose(): void {
    this.disposed = true;
    this.questions.cancel();
    this.changeEmitter.dispose();
  }
}

/** Waits for `promise`, but no longer than `ms`. */
async function bounded(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function joinNotes(...notes: Array<string | undefined>): string | undefined {
  const kept = notes.filter((n): n is string => !!n);
  return kept.length > 0 ? kept.join(' ') : undefined;
}
