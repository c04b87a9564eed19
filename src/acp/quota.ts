// The account's limits, where an agent says them. Three numbers are kept apart and never passed off as one another:
// the context window (`usage_update` used/size, the session model's), the session's tokens and cost (a turn's usage,
// `usage_update`'s cost), and the account's quota (here). Both maintained adapters' `PromptResponse._meta.quota` are
// token counts, not quota: never read here. Read:
// - the draft RFD "Quotas and Limits": `quota_update {updatedAt, pools: [{id, label?, meters: [...]}]}` session
//   updates, from an agent that advertises `agentCapabilities.quota` (the client advertises `session.quota`);
// - claude-agent-acp 0.101's `usage_update._meta["_claude/rateLimit"]` (Claude Code's SDKRateLimitInfo: one limit
//   at a time, `utilization` a fraction, `resetsAt` in seconds).
// Each snapshot is bounded; a meter is kept by its id until a newer snapshot says otherwise.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { z } from 'zod';

export interface QuotaMeter {
  /** The pool's and the meter's ids (`plan/five_hour`), unique in the agent's quota. */
  readonly id: string;
  readonly label?: string;
  /** 0 to 100. */
  readonly usedPercent?: number;
  /** How long the window is, as an ISO 8601 duration (`PT5H`, `P7D`). */
  readonly window?: string;
  /** When it resets, in milliseconds since the epoch. */
  readonly resetsAt?: number;
  readonly status?: 'ok' | 'warning' | 'exceeded';
}

const MAX_METERS = 16;
const Label = z.string().max(200);
const Meter = z.looseObject({
  id: Label,
  label: Label.nullish(),
  usedPercent: z.number().min(0).max(1000).nullish(),
  window: z.string().max(64).nullish(),
  resetsAt: z.string().max(64).nullish(),
  status: z.enum(['ok', 'warning', 'exceeded']).nullish().catch(undefined),
});
/** The draft RFD's `quota_update` (a full snapshot; the newest `updatedAt` wins). */
export const QuotaUpdate = z.looseObject({
  sessionUpdate: z.literal('quota_update'),
  updatedAt: z.string().max(64),
  pools: z.array(z.looseObject({ id: Label, label: Label.nullish(), meters: z.array(Meter).max(MAX_METERS) })).max(MAX_METERS),
});
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

export class QuotaTracker {
  private readonly meters = new Map<string, QuotaMeter>();
  private updatedAt = 0;
  private readonly changeEmitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  /** The meters the agent reported, the most used first; one whose window has reset is gone until it says more. */
  get all(): readonly QuotaMeter[] {
    const now = Date.now();
    return [...this.meters.values()]
      .filter((m) => m.resetsAt === undefined || m.resetsAt > now)
      .sort((a, b) => (b.usedPercent ?? 0) - (a.usedPercent ?? 0));
  }

  /** A draft `quota_update`: the whole snapshot replaces the last, unless it is older. */
  takeUpdate(update: QuotaUpdate): void {
    const at = Date.parse(update.updatedAt);
    if (!Number.isFinite(at) || at < this.updatedAt) return;
    this.updatedAt = at;
    this.meters.clear();
    for (const pool of update.pools) {
      for (const m of pool.meters) {
        if (this.meters.size >= MAX_METERS) break;
        const resetsAt = m.resetsAt ? Date.parse(m.resetsAt) : NaN;
        const label = m.label ?? pool.label ?? undefined;
        this.meters.set(`${pool.id}/${m.id}`, {
          id: `${pool.id}/${m.id}`,
          ...(label ? { label } : {}),
          ...(m.usedPercent != null ? { usedPercent: Math.min(100, m.usedPercent) } : {}),
          ...(m.window ? { window: m.window } : {}),
          ...(Number.isFinite(resetsAt) ? { resetsAt } : {}),
          ...(m.status ? { status: m.status } : {}),
        });
      }
    }
    this.changeEmitter.fire();
  }

  /** claude-agent-acp's `_claude/rateLimit` in a `usage_update`'s `_meta`: one limit, kept beside the others. */
  takeClaudeMeta(meta: unknown): void {
    const raw = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['_claude/rateLimit'] : undefined;
    const info = raw === undefined ? undefined : ClaudeRateLimit.safeParse(raw);
    if (!info?.success) return;
    const type = info.data.rateLimitType ?? 'limit';
    const id = `claude/${type}`;
    if (!this.meters.has(id) && this.meters.size >= MAX_METERS) return;
    const used = info.data.utilization;
    const resets = info.data.resetsAt;
    const window = CLAUDE_WINDOWS[type];
    this.meters.set(id, {
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
