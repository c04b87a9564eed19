// Plans by id (unstable: the `plan` client capability of schema.unstable.json). Beside ACP v1's one `plan` per
// session, an agent may keep several plans, each under its `planId`: `plan_update` replaces one whole (its entries,
// its Markdown or the file that holds it) and `plan_removed` drops it. Read strictly, as subagents.ts reads
// `subagent_update`: a malformed update is skipped with a log line; an entry the schema would not take is skipped
// alone, as the schema says (`x-deserialize-skip-invalid-items`). Bounded in plans, entries and characters.
import { z } from 'zod';
import * as S from './schema.gen';
import { clip } from './text';

const planId = z.string().min(1).max(1000);
const meta = z.record(z.string(), z.unknown()).nullable().optional();

/** Entries of one plan kept; characters of one entry's text. */
const MAX_ENTRIES = 1000;
const ENTRY_TEXT_LIMIT = 10_000;
/** Characters of one plan kept (its Markdown, or its entries' text together). */
export const PLAN_TEXT_LIMIT = 64 * 1024;
/** Plans kept per session, and their characters together; past either, the plans that came first go. */
const MAX_PLANS = 50;
const SESSION_TEXT_LIMIT = 256 * 1024;

const Content = z.discriminatedUnion('type', [
  z.object({ type: z.literal('items'), planId, entries: z.array(z.unknown()).max(100_000), _meta: meta }),
  z.object({ type: z.literal('markdown'), planId, content: z.string(), _meta: meta }),
  z.object({ type: z.literal('file'), planId, uri: z.string().min(1).max(4096), _meta: meta }),
]);

export const PlanByIdUpdate = z.discriminatedUnion('sessionUpdate', [
  z.object({ sessionUpdate: z.literal('plan_update'), plan: Content, _meta: meta }),
  z.object({ sessionUpdate: z.literal('plan_removed'), planId, _meta: meta }),
]);
export type PlanByIdUpdate = z.infer<typeof PlanByIdUpdate>;

/** The kinds read here, so the reader can tell them from ACP v1's own (a list: see inbound.ts `unstableKind`). */
export const PLAN_BY_ID_KINDS: readonly string[] = ['plan_update', 'plan_removed'];

/** One plan as the session keeps it. */
export type PlanState =
  | { readonly planId: string; readonly kind: 'items'; readonly entries: readonly S.PlanEntry[] }
  | { readonly planId: string; readonly kind: 'markdown'; readonly markdown: string; readonly truncated: boolean }
  | { readonly planId: string; readonly kind: 'file'; readonly uri: string };

/** A session's plans by id, in the order they first came. */
export class Plans {
  private readonly byId = new Map<string, PlanState>();

  get all(): readonly PlanState[] {
    return [...this.byId.values()];
  }

  get(planId: string): PlanState | undefined {
    return this.byId.get(planId);
  }

  /** Applies one update; whether anything changed. */
  apply(update: PlanByIdUpdate): boolean {
    if (update.sessionUpdate === 'plan_removed') return this.byId.delete(update.planId);
    const plan = stateOf(update.plan);
    this.byId.set(plan.planId, plan);
    let total = 0;
    for (const kept of this.byId.values()) total += sizeOf(kept);
    for (const [id, kept] of this.byId) {
      if (this.byId.size <= MAX_PLANS && total <= SESSION_TEXT_LIMIT) break;
      if (id === plan.planId) continue;
      this.byId.delete(id);
      total -= sizeOf(kept);
    }
    return true;
  }
}

function sizeOf(plan: PlanState): number {
  switch (plan.kind) {
    case 'items':
      return plan.entries.reduce((sum, e) => sum + e.content.length, 0);
    case 'markdown':
      return plan.markdown.length;
    case 'file':
      return plan.uri.length;
  }
}

function stateOf(content: z.infer<typeof Content>): PlanState {
  switch (content.type) {
    case 'items': {
      const entries: S.PlanEntry[] = [];
      let size = 0;
      for (const raw of content.entries) {
        if (entries.length >= MAX_ENTRIES || size >= PLAN_TEXT_LIMIT) break;
        const entry = S.PlanEntry.safeParse(raw);
        if (!entry.success) continue;
        const text = entry.data.content;
        size += Math.min(text.length, ENTRY_TEXT_LIMIT);
        entries.push({
          content: clip(text, ENTRY_TEXT_LIMIT),
          priority: entry.data.priority,
          status: entry.data.status,
        });
      }
      return { planId: content.planId, kind: 'items', entries };
    }
    case 'markdown': {
      const truncated = content.content.length > PLAN_TEXT_LIMIT;
      return {
        planId: content.planId,
        kind: 'markdown',
        markdown: truncated ? content.content.slice(0, PLAN_TEXT_LIMIT) : content.content,
        truncated,
      };
    }
    case 'file':
      return { planId: content.planId, kind: 'file', uri: content.uri };
  }
}
