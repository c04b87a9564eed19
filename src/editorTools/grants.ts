// Who may call the editor's tools: one grant per session, a random secret with what the session's calls may reach,
// until it is revoked (the session closed, its agent ended, the window closes). Both ways in (HTTP and the stdio
// bridge's socket) look a secret up here. Plain Node.
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../acp/log';
import type { ToolContext } from './tools';

/** A session's access: its secret and its revocation. */
export interface Grant {
  readonly secret: string;
  /** What a request finds: for a way in that needs no secret (MCP over ACP, where the connection is the proof). */
  readonly live: LiveGrant;
  revoke(): void;
}

/** A live grant, as a request finds it. */
export interface LiveGrant {
  /** For the log: the agent and the session, never the secret. */
  readonly label: () => string;
  readonly context: ToolContext;
  /** Requests (HTTP) and tool calls (either way) of this session running now. */
  requests: number;
  calls: number;
  /** Aborted when the grant is revoked: a tool still at work (a review waiting) stops. */
  readonly revoked: AbortSignal;
}

export class Grants {
  /** Live grants by the SHA-256 of their secret: a lookup that does not compare the secret itself. */
  private readonly live = new Map<string, LiveGrant>();

  constructor(private readonly log: Logger) {}

  grant(label: () => string, context: ToolContext): Grant {
    const secret = randomBytes(32).toString('base64url');
    const key = hash(secret);
    const ended = new AbortController();
    const live: LiveGrant = { label, context, requests: 0, calls: 0, revoked: ended.signal };
    this.live.set(key, live);
    let revoked = false;
    return {
      secret,
      live,
      revoke: () => {
        if (revoked) return;
        revoked = true;
        this.live.delete(key);
        ended.abort();
        this.log.info(`[editor-tools] access revoked for ${label()}`);
      },
    };
  }

  /** The live grant of `secret`, if there is one. */
  find(secret: string | undefined): LiveGrant | undefined {
    return secret ? this.live.get(hash(secret)) : undefined;
  }

  /** How many sessions hold a secret now. */
  get size(): number {
    return this.live.size;
  }

  clear(): void {
    this.live.clear();
  }
}

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
