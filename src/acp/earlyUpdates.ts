// Updates that arrive for a session id before the answer that names it. An agent may announce a new session's
// commands (Copilot CLI does) before its `session/new` answer, whose id the client does not know yet. While a
// session/new or session/fork is on its way, such updates (v1's, or v2's events) are kept, bounded, and handed to
// the session its answer names; what no answer claimed is dropped when no request is on its way any more.
import type { Logger } from './log';
import type * as S from './schema.gen';
import type { SessionModel } from './sessionModel';
import { preview } from './tolerance';
import { applyV2 } from './v2/apply';
import type { V2Event } from './v2/updates';

/** An update kept: v1's, or a v2 event. */
export type EarlyUpdate = S.SessionUpdate | V2Event;

/** What the answer to session/new or fork says itself, newer than an update sent before it: such updates are dropped. */
const ANSWERED_KINDS: ReadonlySet<string> = new Set(['current_mode_update', 'config_option_update']);

/** Applies the updates kept for a new session to its model, but for what its answer says itself. */
export function applyEarly(model: SessionModel, early: readonly EarlyUpdate[]): void {
  for (const update of early) {
    const v1 = 'sessionUpdate' in update ? update : update.type === 'update' ? update.update : undefined;
    if (v1 && ANSWERED_KINDS.has(v1.sessionUpdate)) continue;
    if ('sessionUpdate' in update) model.apply(update);
    else applyV2(model, update);
  }
}

/** Sessions kept apart, and updates kept in all: an agent that sends for many ids gets the rest dropped. */
export const MAX_EARLY_SESSIONS = 4;
export const MAX_EARLY_UPDATES = 256;

export class EarlyUpdates {
  private readonly kept = new Map<string, EarlyUpdate[]>();
  private count = 0;
  private opening = 0;

  /** Keeps an update for an id not open yet, when a request that may name it is on its way. False when it was not kept. */
  keep(sessionId: string, update: EarlyUpdate): boolean {
    if (this.opening === 0 || this.count >= MAX_EARLY_UPDATES) return false;
    let updates = this.kept.get(sessionId);
    if (!updates) {
      if (this.kept.size >= MAX_EARLY_SESSIONS) return false;
      updates = [];
      this.kept.set(sessionId, updates);
    }
    updates.push(update);
    this.count++;
    return true;
  }

  /**
   * Runs a request that opens a session, keeping early updates while it is on its way. Returns its answer and the
   * updates kept for the id it names; when it was the last one on its way, the ids nobody claimed go to `unclaimed`.
   */
  async open<T extends { sessionId: string }>(
    request: () => Promise<T>,
    unclaimed: (sessionId: string) => void,
  ): Promise<{ response: T; early: EarlyUpdate[] }> {
    this.opening++;
    try {
      const response = await request();
      return { response, early: this.take(response.sessionId) };
    } finally {
      if (--this.opening === 0) {
        const ids = [...this.kept.keys()];
        this.kept.clear();
        this.count = 0;
        for (const id of ids) unclaimed(id);
      }
    }
  }

  private take(sessionId: string): EarlyUpdate[] {
    const updates = this.kept.get(sessionId) ?? [];
    this.kept.delete(sessionId);
    this.count -= updates.length;
    return updates;
  }
}

/** Unknown session ids remembered by name (each is warned about once); past this, only counted. */
const MAX_UNKNOWN_SESSIONS = 64;

/**
 * What the agent sent for sessions that are not open here (and no answer claimed): said once per id, for a few ids
 * by name, and past that only how many there were. The ids are the agent's to choose.
 */
export class UnknownSessions {
  private readonly named = new Set<string>();
  private more = 0;

  constructor(private readonly log: Logger) {}

  report(sessionId: string): void {
    if (this.named.has(sessionId)) return;
    if (this.named.size < MAX_UNKNOWN_SESSIONS) {
      this.named.add(sessionId);
      this.log.warn(`ignored what the agent sent for a session that is not open here: ${preview(sessionId)}`);
      return;
    }
    const more = ++this.more;
    if (more === 1 || Number.isInteger(Math.log10(more))) {
      this.log.warn(`the agent sent things for ${MAX_UNKNOWN_SESSIONS + more} sessions that are not open here; ignored`);
    }
  }
}
