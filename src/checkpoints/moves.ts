// Moving files between checkpoints (Undo, Redo, Restore Checkpoint), and the questions the chat asks first. A file
// the user changed since the agent did is a conflict: overwrite, skip or stop. Without git nothing is deleted
// without the user's word, and only what the client saw itself is written back. A question can wait for minutes: a
// file that changed meanwhile is left as it is. Plain Node.
import type { CheckpointAnswer, CheckpointQuestion } from '../chat/protocol';
import { fileKey, sameState, type FileState, type Point, type Snapshotter, type TrackedFile } from './points';

/** The editor as checkpoints need it. */
export interface WorkspaceIO {
  /** What the user sees of the file now: its editor buffer when it has unsaved edits, else the disk. */
  current(file: TrackedFile): Promise<FileState>;
  /** Puts each file in its state: through its editor when it is open (so Undo there works), else on disk. */
  apply(writes: ReadonlyArray<{ readonly file: TrackedFile; readonly state: FileState }>): Promise<void>;
}

/** Files a question lists by name; the rest are counted. */
const LISTED = 10;

/** The question one chat shows before files move: at most one at a time (a newer one cancels the older). */
export class CheckpointQuestions {
  private question: { readonly view: CheckpointQuestion; readonly settle: (answer: CheckpointAnswer) => void } | undefined;
  private count = 0;

  constructor(
    private readonly label: (file: TrackedFile) => string,
    private readonly changed: () => void,
    private readonly closed: () => boolean,
  ) {}

  /** The question shown now, if any. */
  get shown(): CheckpointQuestion | undefined {
    return this.question?.view;
  }

  /** Shows a question in the chat and waits for the answer; a newer question, or the chat closing, cancels it. */
  ask(
    kind: CheckpointQuestion['kind'],
    turn: number,
    transition: CheckpointQuestion['transition'],
    files: readonly TrackedFile[],
  ): Promise<CheckpointAnswer> {
    this.question?.settle('cancel');
    if (this.closed()) return Promise.resolve('cancel');
    const id = ++this.count;
    return new Promise<CheckpointAnswer>((resolve) => {
      const view: CheckpointQuestion = {
        id,
        kind,
        turn,
        transition,
        files: files.slice(0, LISTED).map(this.label),
        more: Math.max(0, files.length - LISTED),
      };
      this.question = {
        view,
        settle: (answer) => {
          if (this.question?.view.id === id) this.question = undefined;
          resolve(answer);
          this.changed();
        },
      };
      this.changed();
    });
  }

  /** The user answered the question shown. False when it is no longer asked. */
  answer(id: number, answer: CheckpointAnswer): boolean {
    if (this.question?.view.id !== id) return false;
    this.question.settle(answer);
    return true;
  }

  /** The chat closed: a question that waits is cancelled. */
  cancel(): void {
    this.question?.settle('cancel');
  }
}

export interface MoveDeps {
  readonly io: WorkspaceIO;
  readonly snapshotter: Promise<Snapshotter | undefined>;
  /** Asks the chat (conflicts or deletes) about these files. */
  readonly ask: (kind: 'conflicts' | 'delete', files: readonly TrackedFile[]) => Promise<CheckpointAnswer>;
}

/**
 * Moves `files` to their state at `target`. A file whose current state is not `expected` (the user edited it since)
 * is a conflict: the user chooses to overwrite, skip those files, or stop. Files already at the target are left.
 * False when the user stopped it.
 */
export async function moveFiles(
  deps: MoveDeps,
  files: readonly TrackedFile[],
  target: Point,
  expected: (file: TrackedFile) => Promise<FileState>,
): Promise<boolean> {
  const writes: Array<{ file: TrackedFile; state: FileState; seen: FileState }> = [];
  const conflicts: TrackedFile[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(fileKey(file))) continue;
    seen.add(fileKey(file));
    // What the client did not see itself (a diff the agent only reported) is never written back.
    if (!target.witnessed(file)) continue;
    const [current, wanted, was] = await Promise.all([deps.io.current(file), target.read(file), expected(file)]);
    if (sameState(current, wanted)) continue;
    if (!sameState(current, was)) conflicts.push(file);
    writes.push({ file, state: wanted, seen: current });
  }
  let chosen = writes;
  let asked = false;
  if (conflicts.length > 0) {
    asked = true;
    const choice = await deps.ask('conflicts', conflicts);
    if (choice !== 'overwrite' && choice !== 'skip') return false;
    if (choice === 'skip') {
      const skip = new Set(conflicts.map(fileKey));
      chosen = writes.filter((w) => !skip.has(fileKey(w.file)));
    }
  }
  // Without git, nothing is deleted without the user's word: the record knows only what passed through the chat.
  const deletions = chosen.filter((w) => !w.state.exists).map((w) => w.file);
  if (deletions.length > 0 && (await deps.snapshotter)?.kind === 'client') {
    asked = true;
    const choice = await deps.ask('delete', deletions);
    if (choice !== 'overwrite' && choice !== 'skip') return false;
    if (choice === 'skip') chosen = chosen.filter((w) => w.state.exists);
  }
  // A question can wait for minutes: a file that changed meanwhile (the user saved, the agent wrote) is not what
  // the answer was about, so it is left as it is now.
  if (asked) {
    const now = await Promise.all(chosen.map((w) => deps.io.current(w.file)));
    chosen = chosen.filter((w, i) => sameState(now[i]!, w.seen));
  }
  await deps.io.apply(chosen.map(({ file, state }) => ({ file, state })));
  return true;
}
