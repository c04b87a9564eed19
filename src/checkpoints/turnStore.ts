// A chat's turns kept on disk (the checkpoints each turn began and ended at, and what the user did with its card), so
// that a chat opened again after a reload still shows its cards and can undo them. One small JSON file per session
// in the extension's global storage; what does not validate is ignored, and writes replace the file whole.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { ChangesView } from '../chat/protocol';

/** One turn as kept on disk, so a chat opened again (a reload, Open Previous Session) keeps its cards. */
export interface SavedTurn {
  /** Which user message of the session started it: 0 for the first. */
  readonly k: number;
  readonly n: number;
  readonly before: Record<string, string>;
  /** The files `before` left out for its size budget (so that they are no change of the turn). */
  readonly leftOut?: readonly { readonly folder: string; readonly path: string }[];
  readonly after?: Record<string, string>;
  readonly state: ChangesView['state'];
  readonly note?: string;
  readonly notable?: boolean;
}

/** Where a chat's turns are kept between windows. */
export interface TurnStore {
  /** The turns kept for this session, or none. */
  load(): Promise<readonly SavedTurn[]>;
  save(turns: readonly SavedTurn[]): void;
}

/** Bigger files are not read: hundreds of turns fit in far less. */
const MAX_BYTES = 4 * 1024 * 1024;
/** Files a turn's start may list as left out; a turn with more is kept without its end (no card to undo). */
const MAX_LEFT_OUT = 2000;

const Commits = z.record(z.string().max(4096), z.string().regex(/^[0-9a-f]{40,64}$/));
const Saved = z.object({
  v: z.literal(1),
  turns: z
    .array(
      z.object({
        k: z.number().int().nonnegative(),
        n: z.number().int().nonnegative(),
        before: Commits,
        leftOut: z
          .array(z.object({ folder: z.string().max(4096), path: z.string().max(4096) }))
          .max(MAX_LEFT_OUT)
          .optional(),
        after: Commits.optional(),
        state: z.enum(['open', 'kept', 'undone']),
        note: z.string().max(4096).optional(),
        notable: z.boolean().optional(),
      }),
    )
    .max(10_000),
});

/**
 * A turn as it is kept: its start, the files its start left out for the size budget, its end. With more left out than
 * MAX_LEFT_OUT it is kept without its end: it comes back with no changes to undo, rather than wrong ones.
 */
export function keptTurn(
  turn: Pick<SavedTurn, 'k' | 'n' | 'state' | 'note' | 'notable'>,
  before: Record<string, string>,
  after: Record<string, string> | undefined,
  leftOut: readonly { readonly folder: string; readonly path: string }[],
): SavedTurn {
  const whole = leftOut.length <= MAX_LEFT_OUT;
  return {
    k: turn.k,
    n: turn.n,
    before,
    ...(leftOut.length > 0 && whole ? { leftOut } : {}),
    ...(after && whole ? { after } : {}),
    state: turn.state,
    ...(turn.note ? { note: turn.note } : {}),
    ...(turn.notable ? { notable: true } : {}),
  };
}

export function fileTurnStore(file: string, log: Logger): TurnStore {
  let writing: Promise<void> = Promise.resolve();
  let latest: readonly SavedTurn[] | undefined;
  return {
    async load() {
      try {
        if ((await stat(file)).size > MAX_BYTES) return [];
        const parsed = Saved.safeParse(JSON.parse(await readFile(file, 'utf8')));
        if (!parsed.success) log.warn(`ignored the kept checkpoints ${file}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        return parsed.success ? parsed.data.turns : [];
      } catch {
        return [];
      }
    },
    save(turns) {
      // Only the latest state is written; writes go one after another.
      const first = latest === undefined;
      latest = turns;
      if (!first) return;
      writing = writing.then(async () => {
        const next = latest;
        latest = undefined;
        if (!next) return;
        try {
          await mkdir(dirname(file), { recursive: true });
          const temp = `${file}.${process.pid}.tmp`;
          await writeFile(temp, fitted(next));
          await rename(temp, file);
        } catch (error) {
          log.warn(`could not keep the checkpoints in ${file}: ${errorMessage(error)}`);
        }
      });
    },
  };
}

/**
 * The turns as they are written, within MAX_BYTES (a bigger file is not read back): past it, the oldest turns go
 * without their end and the files their start left out (they come back with no changes to undo), then without
 * their notes, until it fits; the latest turns keep everything.
 */
export function fitted(turns: readonly SavedTurn[]): string {
  const kept = [...turns];
  const size = (turn: SavedTurn) => Buffer.byteLength(JSON.stringify(turn)) + 1;
  let total = kept.reduce((sum, turn) => sum + size(turn), 32);
  for (let i = 0; i < kept.length && total > MAX_BYTES; i++) {
    const { leftOut: _files, after: _end, note: _note, ...bare } = kept[i]!;
    total += size(bare) - size(kept[i]!);
    kept[i] = bare;
  }
  return JSON.stringify({ v: 1, turns: kept });
}

export async function removeTurnStore(file: string): Promise<void> {
  await rm(file, { force: true });
}
