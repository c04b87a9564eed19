// Context compactions (ACP v1, `session.compaction`): the agent summarises the conversation to free its context. Each
// compaction is an entry of the conversation, placed where its first update arrived, then patched in place:
// `compaction_update` with the schema's patch semantics (an omitted field keeps its value, `null` clears it,
// `summary: []` clears the summary) and `compaction_summary_chunk` appending to the summary (a first-seen id creates
// an in-progress compaction). The tokens before and after come from the compaction's `_meta` where the agent puts
// them there, or else from the context usage (`usage_update`) around it.
import type * as S from './schema.gen';
import type { CompactionState, Entry } from './sessionState';

/** Characters of a summary's text kept; what comes after is dropped, and the view says so. */
export const COMPACTION_SUMMARY_LIMIT = 256 * 1024;

/** Compactions one session keeps apart by id; a later first-seen id is dropped (a hostile agent's endless ids). */
const MAX_COMPACTIONS = 1000;
/** Characters of summary text one session keeps in all its compactions. */
const SESSION_SUMMARY_LIMIT = 4 * 1024 * 1024;

type Update = Extract<S.SessionUpdate, { sessionUpdate: 'compaction_update' | 'compaction_summary_chunk' }>;

/** The change to the entries, for the model to announce. */
interface Change {
  readonly index: number;
  readonly added: boolean;
}

export class Compactions {
  /** Entry index by compaction id. */
  private readonly byId = new Map<string, number>();
  /** The context's tokens as the latest `usage_update` said, and whether a compaction ended since. */
  private used: number | undefined;
  private awaitingAfter: number | undefined;
  /** Summary characters kept in all; past SESSION_SUMMARY_LIMIT a summary is cut as if at its own bound. */
  private kept = 0;

  /** Applies one update to `entries`, adding the compaction's entry when its id is new. */
  apply(update: Update, entries: Entry[], newId: () => number): Change | undefined {
    let index = this.byId.get(update.compactionId);
    let added = false;
    if (index === undefined) {
      if (this.byId.size >= MAX_COMPACTIONS) return undefined;
      index = entries.length;
      const compaction: CompactionState = { compactionId: update.compactionId, status: 'in_progress', summary: [], summaryLength: 0 };
      if (this.used !== undefined) compaction.tokensBefore = this.used;
      entries.push({ id: newId(), type: 'compaction', compaction });
      this.byId.set(update.compactionId, index);
      added = true;
    }
    const entry = entries[index];
    if (entry?.type !== 'compaction') return undefined;
    const state = entry.compaction;
    if (update.sessionUpdate === 'compaction_summary_chunk') {
      this.append(state, update.content);
    } else {
      state.status = update.status;
      if (update.summary === null || (update.summary !== undefined && update.summary.length === 0)) {
        this.clear(state);
      } else if (update.summary !== undefined) {
        this.clear(state);
        for (const block of update.summary) this.append(state, block);
      }
      if (update.error === null) delete state.error;
      else if (update.error !== undefined) state.error = update.error;
      if (update._meta === null) delete state.meta;
      else if (update._meta !== undefined) state.meta = update._meta;
      const said = tokensOf(state.meta);
      if (said.before !== undefined) state.tokensBefore = said.before;
      if (said.after !== undefined) state.tokensAfter = said.after;
      if (state.status === 'completed' && state.tokensAfter === undefined) this.awaitingAfter = index;
    }
    return { index, added };
  }

  /**
   * The context usage the agent reported: the tokens before the next compaction, and after the one that just
   * completed when its `_meta` did not say. Returns the index of a compaction entry that changed.
   */
  usage(used: number, entries: readonly Entry[]): number | undefined {
    this.used = used;
    const index = this.awaitingAfter;
    if (index === undefined) return undefined;
    this.awaitingAfter = undefined;
    const entry = entries[index];
    if (entry?.type !== 'compaction' || entry.compaction.tokensAfter !== undefined) return undefined;
    entry.compaction.tokensAfter = used;
    return index;
  }

  private clear(state: CompactionState): void {
    this.kept -= state.summaryLength;
    state.summary = [];
    state.summaryLength = 0;
    delete state.truncated;
  }

  /**
   * Appends a block to the summary, within its bound and the session's: text is joined to the text before it, as
   * messages are. Other blocks (images, resources) are not kept: the marker shows text.
   */
  private append(state: CompactionState, block: S.ContentBlock): void {
    if (state.truncated || block.type !== 'text' || block.text === '') return;
    const room = Math.min(COMPACTION_SUMMARY_LIMIT - state.summaryLength, SESSION_SUMMARY_LIMIT - this.kept);
    if (block.text.length > room) state.truncated = true;
    const kept = block.text.length > room ? block.text.slice(0, Math.max(0, room)) : block.text;
    if (kept === '') return;
    state.summaryLength += kept.length;
    this.kept += kept.length;
    const tail = state.summary[state.summary.length - 1];
    if (tail?.type === 'text' && tail.annotations == null && block.annotations == null) tail.text += kept;
    else state.summary.push({ type: 'text', text: kept });
  }
}

// Names that agents have used in `_meta` for the context's size around a compaction.
const BEFORE_KEYS = ['tokensBefore', 'preTokens', 'pre_tokens', 'tokens_before'];
const AFTER_KEYS = ['tokensAfter', 'postTokens', 'post_tokens', 'tokens_after'];

/** Tokens before and after, from a compaction's `_meta` or an object one level inside it. */
export function tokensOf(meta: Record<string, unknown> | undefined): { before?: number; after?: number } {
  if (!meta) return {};
  const found: { before?: number; after?: number } = {};
  const look = (record: Record<string, unknown>) => {
    for (const key of BEFORE_KEYS) if (found.before === undefined && isCount(record[key])) found.before = record[key] as number;
    for (const key of AFTER_KEYS) if (found.after === undefined && isCount(record[key])) found.after = record[key] as number;
  };
  look(meta);
  for (const value of Object.values(meta))
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) look(value as Record<string, unknown>);
  return found;
}

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
