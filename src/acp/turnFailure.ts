// Why a turn failed, as a kind the chat can act on: the account's quota is used up (which limit, when it resets),
// requests come too fast, the user is signed out, the service is overloaded, or the network failed. Read only from
// the error's code and data, never guessed from its message:
// - ACP's -32000 (sign-in required);
// - the draft RFD "Quotas and Limits": -32003 `quotaExceeded` with `data {poolId?, meterId?, resetsAt?, retryAfter?}`;
// - claude-agent-acp 0.101's `data.errorKind` (Claude Code's SDKAssistantMessageError and the adapter's own kinds);
// - codex-acp 2.6's `data.codexErrorInfo` (codex's error info: a name, or an object keyed by it).
// What an agent does not say in these fields is no kind: the chat shows its message, as for any failure.
import { ErrorCodes } from './errors';
import type { QuotaMeter } from './quota';

export type TurnFailureKind = 'quotaExhausted' | 'rateLimited' | 'signedOut' | 'overloaded' | 'network';

export interface TurnFailure {
  readonly kind: TurnFailureKind;
  /** The limit that was reached, as the agent names it (`five_hour`, a meter id). */
  readonly limit?: string;
  /** When it resets, in milliseconds since the epoch. */
  readonly resetsAt?: number;
}

/** The draft RFD's code for a quota that is used up (a placeholder until the RFD settles it). */
export const QUOTA_EXCEEDED = -32003;

const CLAUDE_KINDS: Readonly<Record<string, TurnFailureKind>> = {
  billing_error: 'quotaExhausted',
  account_on_hold: 'quotaExhausted',
  rate_limit: 'rateLimited',
  overloaded: 'overloaded',
  server_error: 'overloaded',
  authentication_failed: 'signedOut',
  oauth_org_not_allowed: 'signedOut',
  transport_lost: 'network',
};

const CODEX_KINDS: Readonly<Record<string, TurnFailureKind>> = {
  usageLimitExceeded: 'quotaExhausted',
  rateLimitExceeded: 'rateLimited',
  serverOverloaded: 'overloaded',
  internalServerError: 'overloaded',
  unauthorized: 'signedOut',
  httpConnectionFailed: 'network',
  responseStreamConnectionFailed: 'network',
  responseStreamDisconnected: 'network',
};

/**
 * The kind of failure of an error with `code` and `data`. `quota`: the account's limits the agent reported; a limit
 * it said is exceeded makes a "rate limit" the used-up quota it is (claude-agent-acp sends Claude Code's usage limit
 * as the SDK's `rate_limit`, right after its rate limit event says which limit, and until when).
 */
export function readTurnFailure(code: number | undefined, data: unknown, quota: readonly QuotaMeter[] = []): TurnFailure | undefined {
  const failure = kindOf(code, data);
  const exceeded = failure?.kind === 'rateLimited' ? quota.find((m) => m.status === 'exceeded') : undefined;
  if (!exceeded) return failure;
  const limit = exceeded.label ?? exceeded.id;
  return { kind: 'quotaExhausted', limit, ...(exceeded.resetsAt !== undefined ? { resetsAt: exceeded.resetsAt } : {}) };
}

function kindOf(code: number | undefined, data: unknown): TurnFailure | undefined {
  if (code === ErrorCodes.AuthRequired) return { kind: 'signedOut' };
  const fields = isObject(data) ? data : {};
  if (code === QUOTA_EXCEEDED) {
    const meter = text(fields['meterId']) ?? text(fields['poolId']);
    const resetsAt = instant(fields['resetsAt']) ?? after(fields['retryAfter']);
    return { kind: 'quotaExhausted', ...(meter ? { limit: meter } : {}), ...(resetsAt !== undefined ? { resetsAt } : {}) };
  }
  const claude = text(fields['errorKind']);
  if (claude && Object.hasOwn(CLAUDE_KINDS, claude)) return { kind: CLAUDE_KINDS[claude]! };
  const info = fields['codexErrorInfo'];
  const codex = typeof info === 'string' ? info : isObject(info) ? Object.keys(info)[0] : undefined;
  // As codex-acp reads it: an HTTP 429 under any kind is too many requests.
  const status = isObject(info) && codex ? (info[codex] as { httpStatusCode?: unknown } | null)?.httpStatusCode : undefined;
  if (status === 429) return { kind: 'rateLimited' };
  if (codex && Object.hasOwn(CODEX_KINDS, codex)) return { kind: CODEX_KINDS[codex]! };
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined;
}

/** An RFC 3339 instant, in milliseconds since the epoch. */
function instant(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** An ISO 8601 duration (`PT1H30M`, `P1D`) from now, in milliseconds since the epoch. */
function after(value: unknown, now = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value);
  if (!m || value === 'P' || value === 'PT') return undefined;
  const [days, hours, minutes, seconds] = [m[1], m[2], m[3], m[4]].map((v) => Number(v ?? 0)) as [number, number, number, number];
  return now + (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}
