// `session/list`, every page: cursors are followed until the agent gives none, up to MAX_LIST_PAGES pages, and a
// cursor the agent already gave ends the listing (with a warning). And how a listed session can be reopened.
import type { AgentCapabilities } from './capabilities';
import type { AcpClientConnection } from './connection';
import { AcpError, ErrorCodes, errorMessage } from './errors';
import { shortId, type Logger } from './log';
import type * as S from './schema.gen';
import { preview } from './tolerance';

/** How long a question about the agent's state (session/status, auth/status, quota/read) waits for its answer. */
export const STATUS_TIMEOUT_MS = 10_000;

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

/**
 * How `sessionId` can be reopened: where the agent advertises `session/status`, as its answer says (a session in its
 * memory is resumed, a saved one loaded, each where the agent can); `gone` when it does not know the session.
 * Otherwise as the capabilities say (load preferred). Undefined when the agent reopens nothing.
 */
export async function reopenWay(
  caps: AgentCapabilities,
  connection: Pick<AcpClientConnection, 'sessionStatus'>,
  log: Logger,
  sessionId: string,
): Promise<'load' | 'resume' | 'gone' | undefined> {
  const can = caps.reopens;
  if (!can || !caps.supports('sessionStatus')) return can;
  try {
    // Bounded: an agent that never answers must not keep the chat from reopening.
    const { status } = await connection.sessionStatus({ sessionId }, AbortSignal.timeout(STATUS_TIMEOUT_MS));
    log.info(`session ${shortId(sessionId)} is ${preview(status, 40)} (session/status)`);
    if (status === 'open') return caps.supports('resumeSession') ? 'resume' : 'load';
    return caps.supports('loadSession') ? 'load' : 'resume';
  } catch (error) {
    if (error instanceof AcpError && error.code === ErrorCodes.ResourceNotFound) return 'gone';
    log.warn(`session/status for ${shortId(sessionId)} failed, so the session is reopened as advertised: ${errorMessage(error)}`);
    return can;
  }
}
