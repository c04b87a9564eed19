// The maintained adapters' failure records: JetBrains AIR's `sessionFailure` extension, which claude-agent-acp 0.101
// and codex-acp 2.6 implement for a client that declares it (`clientCapabilities._meta.jetbrains.air`, version 1, its
// `capabilities` listing `sessionFailure`: capabilities.ts). Declared, a turn that fails ends `end_turn` with the
// record in the answer's `_meta` (over v2, in the idle state's), and a failure outside a turn or a retry in progress
// (severity `warning`) comes as a `session_info_update` with the record in its `_meta`:
//   `_meta.jetbrains.air.sessionFailure = {id, revision, category, severity, title, details?, reason?, actions}`.
// The kind is read from `category` and `actions` alone, never from the words; the title is what the chat shows.
import { z } from 'zod';
import type { QuotaMeter } from './quota';
import type * as S from './schema.gen';
import type { TurnState } from './sessionState';
import { clip } from './text';
import type { TurnFailure } from './turnFailure';

/** What the client declares in `initialize`'s `clientCapabilities._meta.jetbrains.air`: failure records only. */
export const AIR_FAILURE_RECORDS = { version: 1, capabilities: ['sessionFailure'] } as const;

const Record = z.looseObject({
  id: z.string().min(1).max(500),
  revision: z.number().int().nonnegative().catch(0),
  /** `connection`, `access`, `limit`, `request`, `service`, `unknown`. */
  category: z.string().max(64).catch('unknown'),
  severity: z.enum(['warning', 'error']).catch('error'),
  title: z.string().min(1),
  details: z.string().nullish().catch(undefined),
  /** `retry`, `login`, `new_session`. */
  actions: z.array(z.string().max(64)).max(16).catch([]),
});

export interface FailureRecord {
  readonly id: string;
  readonly revision: number;
  readonly category: string;
  readonly severity: 'warning' | 'error';
  /** The title, and its details where given, bounded: what the chat says. */
  readonly text: string;
  readonly actions: readonly string[];
}

/** The record in `meta` (an answer's, an update's), or undefined: none, or one that is not a record. */
export function failureRecordOf(meta: unknown): FailureRecord | undefined {
  const air = field(field(meta, 'jetbrains'), 'air');
  const raw = field(air, 'sessionFailure');
  if (raw === undefined) return undefined;
  const parsed = Record.safeParse(raw);
  if (!parsed.success) return undefined;
  const { id, revision, category, severity, title, details, actions } = parsed.data;
  const text = details ? `${clip(title, 1000)} (${clip(details, 1000)})` : clip(title, 2000);
  return { id, revision, category, severity, text, actions };
}

/**
 * The kind of failure a record says: a used-up limit (`limit` without a retry or a new session: not the budget or
 * context of this session), too many requests (`limit` with `retry`), signed out (`access`), overloaded (`service`
 * with `retry`), the network (`connection`). As for an error, a limit the agent's quota says is exceeded is named.
 */
export function recordedFailure(record: FailureRecord, quota: readonly QuotaMeter[] = []): TurnFailure | undefined {
  const failure = kindOf(record);
  const exceeded = failure?.kind === 'rateLimited' || failure?.kind === 'quotaExhausted' ? quota.find((m) => m.status === 'exceeded') : undefined;
  if (!exceeded) return failure;
  return {
    kind: 'quotaExhausted',
    limit: exceeded.label ?? exceeded.id,
    ...(exceeded.resetsAt !== undefined ? { resetsAt: exceeded.resetsAt } : {}),
  };
}

function kindOf(record: FailureRecord): TurnFailure | undefined {
  const retry = record.actions.includes('retry');
  switch (record.category) {
    case 'access':
      return { kind: 'signedOut' };
    case 'limit':
      if (retry) return { kind: 'rateLimited' };
      return record.actions.includes('new_session') ? undefined : { kind: 'quotaExhausted' };
    case 'service':
      return retry ? { kind: 'overloaded' } : undefined;
    case 'connection':
      return { kind: 'network' };
    default:
      return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [k: string]: unknown })[key] : undefined;
}

/** How many records a session remembers having said (by id, with their revision), the oldest first out. */
const MAX_SEEN = 64;

/**
 * A `session_info_update`'s record, said as a notice where the chat would not say it otherwise: a retry in progress
 * (`warning`) while the turn runs, or a failure outside any turn once the session has had one of its own (the records
 * a reopened session's history replays are not news). A failure while a turn runs is left to the turn's end, which
 * carries it. Each record is said once per revision.
 */
export class RecordNotices {
  private readonly seen = new Map<string, number>();

  noticeFor(meta: unknown, turn: TurnState): S.Notice | undefined {
    const record = failureRecordOf(meta);
    if (!record) return undefined;
    const live = turn.phase !== 'idle';
    if (record.severity === 'warning' ? !live : live || (turn.stopReason === undefined && turn.error === undefined)) return undefined;
    const last = this.seen.get(record.id);
    if (last !== undefined && record.revision <= last) return undefined;
    this.seen.delete(record.id);
    this.seen.set(record.id, record.revision);
    if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.keys().next().value!);
    return { severity: record.severity, title: record.text };
  }
}
