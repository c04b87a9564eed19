// `session/list`, every page: cursors are followed until the agent gives none, up to MAX_LIST_PAGES pages, and a
// cursor the agent already gave ends the listing (with a warning).
import type { AcpClientConnection } from './connection';
import type { Logger } from './log';
import type * as S from './schema.gen';

/** Pages of `session/list` followed at most: an agent that keeps handing out cursors cannot keep us listing. */
export const MAX_LIST_PAGES = 50;

export async function listAllSessions(
  connection: AcpClientConnection,
  log: Logger,
  cwd: string | undefined,
  signal: AbortSignal | undefined,
  /** The unstable archive filter, the same on every page as the schema asks. */
  archived: 'include' | undefined,
): Promise<S.SessionInfo[]> {
  const sessions: S.SessionInfo[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const response = await connection.listSessions(
      { ...(cwd !== undefined ? { cwd } : {}), ...(cursor !== undefined ? { cursor } : {}), ...(archived ? { archived } : {}) },
      signal,
    );
    sessions.push(...response.sessions);
    const next = response.nextCursor ?? undefined;
    if (next === undefined) return sessions;
    if (seen.has(next)) {
      log.warn(`session/list gave the cursor "${next}" twice; stopped listing after ${page + 1} pages`);
      return sessions;
    }
    seen.add(next);
    cursor = next;
  }
  log.warn(`session/list still had more after ${MAX_LIST_PAGES} pages; showing those`);
  return sessions;
}
