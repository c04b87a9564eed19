// A ClientHandler for tests: records every session/update and allows permission requests, unless told otherwise.
import type { ClientHandler } from '../../../src/acp/inbound';
import type * as S from '../../../src/acp/schema.gen';

export interface TestClient {
  readonly handler: ClientHandler;
  /** Every valid session/update, in the order the handler got them. */
  readonly updates: S.SessionNotification[];
  /** The agent's message text so far, all chunks joined. */
  text(sessionId?: string): string;
  /** The `sessionUpdate` kinds received, in order. */
  kinds(): string[];
}

/** `extra` adds or replaces handler methods; an optional method that is present is advertised. */
export function testClient(extra: Partial<ClientHandler> = {}): TestClient {
  const updates: S.SessionNotification[] = [];
  const handler: ClientHandler = {
    requestPermission: async () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }),
    sessionUpdate: (notification) => {
      updates.push(notification);
    },
    ...extra,
  };
  return {
    handler,
    updates,
    text(sessionId) {
      let text = '';
      for (const n of updates) {
        if (sessionId !== undefined && n.sessionId !== sessionId) continue;
        const u = n.update;
        if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') text += u.content.text;
      }
      return text;
    },
    kinds: () => updates.map((n) => n.update.sessionUpdate),
  };
}
