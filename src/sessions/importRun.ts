// What Import Sessions does once the user has picked, without VS Code: which of the agent's sessions are offered
// (those in the workspace folders, once each, that this computer does not keep), at most MAX_IMPORT replayed in one
// run, each given LOAD_TIMEOUT_MS (the run stops at the first that is given up: the agent is too slow to go on),
// and each kept as a transcript dated no later than now. The command (importSessions.ts) asks and reports.
import type { AgentClient, AgentSession } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import { checkPath } from '../common/paths';
import { storedEntries } from '../history/format';
import { sessionTranscript } from '../history/recorder';
import type { TranscriptStore } from '../history/transcripts';

/** Sessions imported at most in one run. */
export const MAX_IMPORT = 100;
/** A replay that takes longer is given up: the agent is told (`$/cancel_request`), and the session is dropped here. */
export const LOAD_TIMEOUT_MS = 60_000;

/** Time as the run sees it; tests give it their own. */
export interface ImportClock {
  now(): Date;
  /** Calls `fire` once after `ms`; the returned function stops it. */
  after(ms: number, fire: () => void): () => void;
}

export const systemClock: ImportClock = {
  now: () => new Date(),
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

/** Why one session was not imported. */
type ImportFailure =
  { readonly kind: 'timedOut'; readonly title: string } | { readonly kind: 'error'; readonly title: string; readonly error: unknown };

export interface ImportCounts {
  readonly imported: number;
  /** Kept already, open in a chat meanwhile, or with nothing to keep. */
  readonly skipped: number;
  /** Of `skipped`: replayed, but with no message to keep. */
  readonly empty: number;
  readonly failures: readonly ImportFailure[];
  /** Picked, but not tried: the run stopped or was cancelled first. */
  readonly notTried: number;
  /** Picked past MAX_IMPORT: for another run. */
  readonly left: number;
  readonly cancelled: boolean;
}

/**
 * Every session the agent lists in the workspace folders, once each, the most recently updated first. One it lists
 * in another folder (it may ignore the filter) is left out: its folder would become the replay's and the transcript's.
 */
export async function sessionsInWorkspace(client: Pick<AgentClient, 'listSessions'>, roots: readonly string[]): Promise<S.SessionInfo[]> {
  const seen = new Map<string, S.SessionInfo>();
  for (const root of roots) {
    for (const info of await client.listSessions(root)) {
      if (!seen.has(info.sessionId) && checkPath(info.cwd, roots).kind === 'inside') seen.set(info.sessionId, info);
    }
  }
  return [...seen.values()].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
}

/** The date a kept session is given: the agent's, but never later than now (a session dated in the future would push
 * the user's own chats out of the history), and now when the agent's is not a date. */
function keptDate(stated: string | null | undefined, now: Date): Date {
  const date = new Date(stated ?? '');
  return Number.isNaN(date.getTime()) || date > now ? now : date;
}

export interface ImportRun {
  readonly client: AgentClient;
  readonly agentName: string;
  readonly store: TranscriptStore;
  readonly log: Logger;
  readonly clock: ImportClock;
  /** The user's cancel: the replay under way is dropped at once, and nothing of it is kept. */
  readonly cancel: AbortSignal;
  /** Opened in a chat meanwhile: its chat keeps its transcript. */
  showing(sessionId: string): boolean;
  /** Before each session is tried. */
  progress?(index: number, of: number, info: S.SessionInfo): void;
}

/** Replays the picked sessions one at a time, at most MAX_IMPORT, into transcripts. */
export async function importPicked(picked: readonly S.SessionInfo[], run: ImportRun): Promise<ImportCounts> {
  const chosen = picked.slice(0, MAX_IMPORT);
  let imported = 0;
  let skipped = 0;
  let empty = 0;
  let tried = 0;
  const failures: ImportFailure[] = [];
  for (const [index, info] of chosen.entries()) {
    if (run.cancel.aborted) break;
    tried++;
    run.progress?.(index, chosen.length, info);
    if (run.showing(info.sessionId)) {
      skipped++;
      continue;
    }
    const outcome = await importOne(run, info);
    if (outcome === 'imported') imported++;
    else if (outcome === 'empty') {
      skipped++;
      empty++;
    } else if (outcome === 'cancelled') break;
    else {
      failures.push(outcome.failure);
      if (outcome.stop) break;
    }
  }
  return {
    imported,
    skipped,
    empty,
    failures,
    notTried: chosen.length - tried,
    left: picked.length - chosen.length,
    cancelled: run.cancel.aborted,
  };
}

type Outcome = 'imported' | 'empty' | 'cancelled' | { readonly failure: ImportFailure; readonly stop: boolean };

/**
 * Replays one session into its own model, keeps its transcript and closes it. A cancel or the deadline gives the
 * load up (`$/cancel_request`): the session is dropped at once, without waiting for the agent, and nothing is kept.
 */
async function importOne(run: ImportRun, info: S.SessionInfo): Promise<Outcome> {
  const giveUp = new AbortController();
  let timedOut = false;
  const stopTimer = run.clock.after(LOAD_TIMEOUT_MS, () => {
    timedOut = true;
    giveUp.abort();
  });
  const onCancel = () => giveUp.abort();
  run.cancel.addEventListener('abort', onCancel, { once: true });
  const givenUp = new Promise<'givenUp'>((resolve) => giveUp.signal.addEventListener('abort', () => resolve('givenUp'), { once: true }));
  const loaded = await Promise.race([
    run.client.reopenSession(info.sessionId, info.cwd, 'load', { signal: giveUp.signal }).then(
      (session) => ({ session }),
      (error: unknown) => ({ error }),
    ),
    givenUp,
  ]);
  stopTimer();
  run.cancel.removeEventListener('abort', onCancel);
  const title = info.title?.trim() || info.sessionId;
  if (run.cancel.aborted) {
    // Loaded just as the user cancelled: nothing of it is kept, and the agent's session is closed.
    if (typeof loaded === 'object' && 'session' in loaded) await loaded.session.close();
    return 'cancelled';
  }
  if (loaded === 'givenUp' || timedOut) return { failure: { kind: 'timedOut', title }, stop: true };
  if ('error' in loaded) {
    run.log.warn(`[history] ${run.agentName} could not replay ${info.sessionId}: ${errorMessage(loaded.error)}`);
    return { failure: { kind: 'error', title, error: loaded.error }, stop: run.client.hasExited };
  }
  return keep(run, info, loaded.session);
}

async function keep(run: ImportRun, info: S.SessionInfo, session: AgentSession): Promise<Outcome> {
  try {
    const entries = storedEntries(session.model);
    if (entries.length === 0) return 'empty';
    await run.store.save(
      sessionTranscript({ agent: run.agentName, sessionId: info.sessionId, cwd: info.cwd }, session.model, {
        entries,
        title: session.model.title ?? (info.title?.trim() || undefined),
        updatedAt: keptDate(info.updatedAt, run.clock.now()),
      }),
    );
    run.log.info(`[history] imported ${info.sessionId} from ${run.agentName} (${entries.length} entries)`);
    return 'imported';
  } finally {
    await session.close();
  }
}
