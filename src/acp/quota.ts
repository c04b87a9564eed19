// The account's limits, where an agent says them. Three numbers are kept apart and never passed off as one another:
// the context window (`usage_update` used/size, the session model's), the session's tokens and cost (a turn's usage,
// `usage_update`'s cost), and the account's quota (here). Both maintained adapters' `PromptResponse._meta.quota` are
// token counts, not quota: never read here. Read:
// - the draft RFD "Quotas and Limits": `quota_update {updatedAt, pools: [{id, label?, meters: [...]}]}` session
//   updates, from an agent that advertises `agentCapabilities.quota` (the client advertises `session.quota`), and
//   the same snapshot answering `quota/read` (methods.ts, DraftMethods), asked when the agent starts (for the
//   account) and when a session is reopened (a reopen replays no quota_update);
// - claude-agent-acp 0.101's `usage_update._meta["_claude/rateLimit"]` (Claude Code's SDKRateLimitInfo: one limit
//   at a time, `utilization` a fraction, `resetsAt` in seconds).
// Each snapshot is bounded, and replaced whole by a newer one of its scope.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { z } from 'zod';

/** An amount as the draft RFD gives it: a decimal string (exact) and its unit (`USD`, `requests`, `credits`), if said. */
export interface QuotaQuantity {
  readonly value: string;
  readonly unit?: string;
}

export interface QuotaMeter {
  /** The pool's and the meter's ids (`plan/five_hour`), unique in the agent's quota. */
  readonly id: string;
  readonly label?: string;
  /** The pool's name, where the agent gave one ("Extra usage"). */
  readonly pool?: string;
  /** 0 to 100. */
  readonly usedPercent?: number;
  readonly used?: QuotaQuantity;
  readonly limit?: QuotaQuantity;
  readonly remaining?: QuotaQuantity;
  /** How long the window is, as an ISO 8601 duration (`PT5H`, `P7D`). */
  readonly window?: string;
  /** When it resets, in milliseconds since the epoch. */
  readonly resetsAt?: number;
  readonly status?: 'ok' | 'warning' | 'exceeded';
}

const MAX_METERS = 16;
const MAX_POOLS = 16;
/** Sessions whose snapshots are kept: the oldest goes past this. */
const MAX_SCOPES = 32;
const Label = z.string().max(200);
const Quantity = z.looseObject({
  value: z
    .string()
    .max(40)
    .regex(/^-?\d+(?:\.\d+)?$/),
  unit: z.string().max(16).nullish(),
});
const Amount = Quantity.nullish().catch(undefined);
const Meter = z.looseObject({
  id: Label,
  label: Label.nullish(),
  // Past 100 where the provider says usage went over the limit.
  usedPercent: z.number().min(0).nullish(),
  used: Amount,
  limit: Amount,
  remaining: Amount,
  window: z.string().max(64).nullish(),
  resetsAt: z.string().max(64).nullish(),
  status: z.enum(['ok', 'warning', 'exceeded']).nullish().catch(undefined),
});
const Pool = z.looseObject({ id: Label, label: Label.nullish(), meters: z.array(z.unknown()) });
/**
 * The draft RFD's snapshot, as `quota/read` answers it: its pools and their meters are read one by one, and an
 * invalid one is skipped (as the RFD asks), not the whole snapshot; past the bounds, the first are kept.
 */
export const QuotaSnapshot = z.looseObject({ updatedAt: z.string().max(64), pools: z.array(z.unknown()) });
export type QuotaSnapshot = z.output<typeof QuotaSnapshot>;
/** The draft RFD's `quota_update`: a whole snapshot, pushed. */
export const QuotaUpdate = QuotaSnapshot.extend({ sessionUpdate: z.literal('quota_update') });
export type QuotaUpdate = z.output<typeof QuotaUpdate>;

const ClaudeRateLimit = z.looseObject({
  status: z.enum(['allowed', 'allowed_warning', 'rejected']).catch('allowed'),
  resetsAt: z.number().nonnegative().nullish(),
  rateLimitType: z.string().max(64).nullish(),
  utilization: z.number().min(0).max(1000).nullish(),
});

const CLAUDE_WINDOWS: Readonly<Record<string, string>> = {
  five_hour: 'PT5H',
  seven_day: 'P7D',
  seven_day_opus: 'P7D',
  seven_day_sonnet: 'P7D',
  seven_day_overage_included: 'P7D',
};

interface Snapshot {
  readonly updatedAt: number;
  readonly meters: readonly QuotaMeter[];
}

/** How much a meter says is used, to rank it: a limit reached first, then one near it, then by share. */
function urgency(m: QuotaMeter): number {
  return (m.status === 'exceeded' ? 2000 : m.status === 'warning' ? 1000 : 0) + (m.usedPercent ?? 0);
}

export class QuotaTracker {
  /** The newest snapshot of each session, by `updatedAt` (never by arrival: a read and a push may cross). */
  private readonly sessions = new Map<string, Snapshot>();
  /** The account's own read (`quota/read` without a session): apart, it never replaces a session's. */
  private account: Snapshot | undefined;
  /** claude-agent-acp's limits, one at a time, beside the snapshots. */
  private readonly claude = new Map<string, QuotaMeter>();
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  /**
   * The meters the agent reported, the most urgent first (a limit reached, one near it, then by share): the newest
   * session's snapshot (quota is the account's, so each session's says the same), else the account's read, and
   * claude's; a limit whose window has reset is gone.
   */
  get all(): readonly QuotaMeter[] {
    const now = Date.now();
    let shown: Snapshot | undefined;
    for (const snapshot of this.sessions.values()) if (snapshot.updatedAt >= (shown?.updatedAt ?? -Infinity)) shown = snapshot;
    shown ??= this.account;
    return [...(shown?.meters ?? []), ...this.claude.values()]
      .filter((m) => m.resetsAt === undefined || m.resetsAt > now)
      .sort((a, b) => urgency(b) - urgency(a));
  }

  /**
   * A whole snapshot, pushed for `sessionId` or read (for it, or for the account without one): it replaces the last
   * of its scope unless that one is newer. The first of a scope is taken whatever its time (a new connection).
   */
  takeSnapshot(snapshot: QuotaSnapshot, sessionId?: string): void {
    const at = Date.parse(snapshot.updatedAt);
    const last = sessionId === undefined ? this.account : this.sessions.get(sessionId);
    if (!Number.isFinite(at) || (last && at < last.updatedAt)) return;
    const taken = { updatedAt: at, meters: readMeters(snapshot) };
    if (sessionId === undefined) this.account = taken;
    else {
      this.sessions.delete(sessionId);
      if (this.sessions.size >= MAX_SCOPES) this.sessions.delete(this.sessions.keys().next().value!);
      this.sessions.set(sessionId, taken);
    }
    this.changeEmitter.fire();
  }

  /**
   * A session closed: its snapshot goes. What it said of the account stays as the account's, where it is newer than
   * the account's own read: closing a chat must not show older, lower usage.
   */
  forget(sessionId: string): void {
    const closed = this.sessions.get(sessionId);
    if (!closed) return;
    this.sessions.delete(sessionId);
    if (closed.updatedAt > (this.account?.updatedAt ?? -Infinity)) this.account = closed;
    this.changeEmitter.fire();
  }

  /** The account signed out: what was known of its limits goes until the agent says again. */
  clear(): void {
    this.sessions.clear();
    this.account = undefined;
    this.claude.clear();
    this.changeEmitter.fire();
  }

  /** claude-agent-acp's `_claude/rateLimit` in a `usage_update`'s `_meta`: one limit, kept beside the others. */
  takeClaudeMeta(meta: unknown): void {
    const raw = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['_claude/rateLimit'] : undefined;
    const info = raw === undefined ? undefined : ClaudeRateLimit.safeParse(raw);
    if (!info?.success) return;
    const type = info.data.rateLimitType ?? 'limit';
    const id = `claude/${type}`;
    if (!this.claude.has(id) && this.claude.size >= MAX_METERS) return;
    const used = info.data.utilization;
    const resets = info.data.resetsAt;
    const window = CLAUDE_WINDOWS[type];
    this.claude.set(id, {
      id,
      label: type,
      ...(used != null ? { usedPercent: Math.min(100, used * 100) } : {}),
      ...(window ? { window } : {}),
      ...(resets != null ? { resetsAt: resets < 1e12 ? resets * 1000 : resets } : {}),
      status: info.data.status === 'rejected' ? 'exceeded' : info.data.status === 'allowed_warning' ? 'warning' : 'ok',
    });
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

/** The snapshot's meters, each pool and meter read alone: an invalid one is skipped, the rest kept, all bounded. */
function readMeters(snapshot: QuotaSnapshot): QuotaMeter[] {
  const meters: QuotaMeter[] = [];
  for (const raw of snapshot.pools.slice(0, MAX_POOLS)) {
    const pool = Pool.safeParse(raw);
    if (!pool.success) continue;
    // The first of a pool's entries only: a long list of broken ones is not read through.
    for (const rawMeter of pool.data.meters.slice(0, MAX_METERS * 4)) {
      const m = Meter.safeParse(rawMeter);
      // A meter says something (a share, an amount or a status), as the RFD asks; one that says nothing is skipped.
      if (!m.success || (m.data.usedPercent == null && !m.data.used && !m.data.remaining && !m.data.status)) continue;
      if (meters.length >= MAX_METERS) return meters;
      const resetsAt = m.data.resetsAt ? Date.parse(m.data.resetsAt) : NaN;
      const label = m.data.label ?? pool.data.label ?? undefined;
      meters.push({
        id: `${pool.data.id}/${m.data.id}`,
        ...(label ? { label } : {}),
        ...(pool.data.label ? { pool: pool.data.label } : {}),
        ...(m.data.usedPercent != null ? { usedPercent: Math.min(100, m.data.usedPercent) } : {}),
        ...quantity('used', m.data.used),
        ...quantity('limit', m.data.limit),
        ...quantity('remaining', m.data.remaining),
        ...(m.data.window ? { window: m.data.window } : {}),
        ...(Number.isFinite(resetsAt) ? { resetsAt } : {}),
        ...(m.data.status ? { status: m.data.status } : {}),
      });
    }
  }
  return meters;
}

function quantity(key: 'used' | 'limit' | 'remaining', q: z.output<typeof Amount>): Partial<QuotaMeter> {
  return q ? { [key]: { value: q.value, ...(q.unit ? { unit: q.unit } : {}) } } : {};
}
