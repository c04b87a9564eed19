// The chat view's state and how messages change it. Pure: no DOM, unit-tested in plain Node. The view holds no
// protocol logic: it shows what the host sends and keeps only what the user is writing.
import {
  INITIAL_PARTS,
  type AttachmentView,
  type ChangesView,
  type EntryView,
  type FileMatch,
  type HostMessage,
  PARTS,
  type Part,
  type ViewParts,
  type PromptView,
  type SessionTarget,
} from '../src/chat/protocol';
import { t } from './l10n';

/** Entries kept in the page; earlier ones come back with "Show earlier messages". */
export const WINDOW = 150;

/** What the chat view shows: every view part as the host last sent it, and the page's own state. */
export interface ChatState extends Readonly<ViewParts> {
  readonly loaded: boolean;
  readonly agent: string;
  /** What the serializer needs after a reload (kept in the webview's state by the view). */
  readonly restore?: SessionTarget;
  readonly earlier: readonly EntryView[];
  /** The line below the earlier entries, when they are not from a restart. */
  readonly divider?: string;
  /** The divider offers Open the Earlier Branch (the entries above came from an edited and resent session). */
  readonly branch?: true;
  readonly entries: readonly EntryView[];
  /** The session's index of entries[0]: a long chat's state brings its last entries first, the rest in a `head`. */
  readonly entriesFrom: number;
  /** The `head` still to come, by its state's seq. */
  readonly headSeq?: number;
  readonly attachments: readonly AttachmentView[];
  readonly notice?: string;
  readonly draft: string;
  /** The prompt files offered under `/`. */
  readonly prompts: readonly PromptView[];
  /** The row to bring into view (its key, as the conversation names rows), bumped each time it is asked. */
  readonly reveal: { readonly key: string | undefined; readonly seq: number };
  /** Bumped when the composer should take focus (an attachment came from the editor). */
  readonly focusRequest: number;
  /** The latest answer to a file search, for `@` completions. */
  readonly files?: { readonly requestId: number; readonly files: readonly FileMatch[] };
}

type LocalAction =
  | { readonly type: 'draft'; readonly text: string }
  /** The composer sent its draft. */
  | { readonly type: 'sent' }
  /** A line the view says itself (an image it could not attach). */
  | { readonly type: 'localNotice'; readonly text: string | undefined };

export type Action = HostMessage | LocalAction;

export function initialState(draft = ''): ChatState {
  return {
    loaded: false,
    agent: '',
    earlier: [],
    entries: [],
    entriesFrom: 0,
    ...INITIAL_PARTS,
    attachments: [],
    draft,
    focusRequest: 0,
    reveal: { key: undefined, seq: 0 },
    prompts: [],
  };
}

export function reduce(state: ChatState, action: Action): ChatState {
  switch (action.type) {
    case 'state': {
      const { type: _type, notice, restore, divider, branch, draft, reveal, prompts, from, ...rest } = action;
      void _type;
      const next: ChatState = {
        ...state,
        ...rest,
        entriesFrom: from?.entries ?? 0,
        // A page that takes over a chat that moved starts with what the user was writing; one that reloads keeps its own.
        draft: state.draft === '' && draft !== undefined ? draft : state.draft,
        prompts: prompts ?? [],
        loaded: true,
        files: undefined,
        reveal: reveal ? { key: rowKey(reveal.entryId, reveal.earlier), seq: state.reveal.seq + 1 } : state.reveal,
      };
      const kept = withOptional(withOptional(withOptional(next, 'notice', notice ?? state.notice), 'restore', restore), 'headSeq', from?.seq);
      return withOptional(withOptional(kept, 'divider', divider), 'branch', branch);
    }
    case 'head':
      // Not the head of the state shown (a newer state came first): the newer one has its own.
      if (action.seq !== state.headSeq) return state;
      return withOptional(
        {
          ...state,
          earlier: [...action.earlier, ...state.earlier],
          entries: [...action.entries, ...state.entries],
          entriesFrom: 0,
          // The entry to bring into view came with it: it is brought into view now.
          reveal: revealedIn(action, state.reveal.key) ? { ...state.reveal, seq: state.reveal.seq + 1 } : state.reveal,
        },
        'headSeq',
        undefined,
      );
    case 'update': {
      let entries = state.entries;
      if (action.entries.length > 0) {
        const next = entries.slice();
        for (const { index, entry } of action.entries) {
          // Entries only ever grow at the end; an index past it would leave holes. One before the entries the page
          // has is in the head still to come, which brings it as it is then.
          const at = index - state.entriesFrom;
          if (at >= 0 && at <= next.length) next[at] = entry;
        }
        entries = next;
      }
      const { type: _type, entries: _entries, ...parts } = action;
      void _type;
      void _entries;
      // Every view part the update carries replaces the one shown (an absent one is unchanged; null is a value).
      const changed: Partial<Record<Part, unknown>> = {};
      for (const part of PARTS) if (parts[part] !== undefined) changed[part] = parts[part];
      return { ...state, ...(changed as Partial<ViewParts>), entries };
    }
    case 'editQueued':
      // The queued message comes back to be edited, in front of anything typed since.
      return { ...state, draft: state.draft.trim() === '' ? action.text : `${action.text}\n${state.draft}` };
    case 'sendFailed':
      // The draft comes back, keeping anything typed since.
      return {
        ...state,
        draft: state.draft.trim() === '' ? action.text : `${action.text}\n${state.draft}`,
        notice: t('Not sent: {0}.', action.reason),
      };
    case 'notice':
      return withOptional(state, 'notice', action.text === '' ? undefined : action.text);
    case 'attachments':
      return { ...state, attachments: action.attachments, focusRequest: action.focus ? state.focusRequest + 1 : state.focusRequest };
    case 'files':
      return { ...state, files: { requestId: action.requestId, files: action.files } };
    case 'draft':
      return { ...state, draft: action.text };
    case 'prompts':
      return { ...state, prompts: action.prompts };
    case 'reveal':
      return { ...state, reveal: { key: rowKey(action.entryId, action.earlier), seq: state.reveal.seq + 1 } };
    case 'sent':
      return withOptional({ ...state, draft: '' }, 'notice', undefined);
    case 'localNotice':
      return withOptional(state, 'notice', action.text);
    case 'image':
      return state; // kept apart, in images.ts
  }
}

/** The key of an entry's row in the conversation: an earlier entry's and the session's own are numbered apart. */
export function rowKey(entryId: number, earlier: boolean): string {
  return `${earlier ? 'e' : 'n'}${entryId}`;
}

/** Whether the row `key` names is among a head's entries. */
function revealedIn(head: Extract<HostMessage, { type: 'head' }>, key: string | undefined): boolean {
  return key !== undefined && (head.earlier.some((e) => rowKey(e.id, true) === key) || head.entries.some((e) => rowKey(e.id, false) === key));
}

/** Sets or removes an optional key (so `exactOptionalPropertyTypes`-style state never holds `undefined` values). */
function withOptional<K extends 'notice' | 'restore' | 'divider' | 'branch' | 'headSeq'>(
  state: ChatState,
  key: K,
  value: ChatState[K] | undefined,
): ChatState {
  if (value === undefined) {
    if (!(key in state)) return state;
    const copy: Record<string, unknown> = { ...state };
    delete copy[key];
    return copy as unknown as ChatState;
  }
  return { ...state, [key]: value };
}

/** The user's earlier prompts, latest last, for Up in the composer. */
export function promptHistory(state: ChatState): string[] {
  const prompts: string[] = [];
  for (const entry of [...state.earlier, ...state.entries]) {
    if (entry.kind === 'message' && entry.role === 'user' && entry.text.trim() !== '' && prompts[prompts.length - 1] !== entry.text)
      prompts.push(entry.text);
  }
  return prompts;
}

/**
 * Where the changes cards go: each after the last entry of its turn, that is the entry just before the next user
 * message, or the last of `entries`. Keyed by that entry's id. A card whose turn (the id of the user message that
 * started it) is not among `entries` is left out: its message is above the window, or in an earlier session.
 */
export function cardsAfter(entries: readonly EntryView[], cards: readonly ChangesView[]): Map<number, ChangesView> {
  const placed = new Map<number, ChangesView>();
  if (cards.length === 0) return placed;
  const byTurn = new Map(cards.map((card) => [card.turn, card]));
  let open: ChangesView | undefined;
  let last: EntryView | undefined;
  for (const entry of entries) {
    if (entry.kind === 'message' && entry.role === 'user') {
      if (open && last) placed.set(last.id, open);
      open = byTurn.get(entry.id);
    }
    last = entry;
  }
  if (open && last) placed.set(last.id, open);
  return placed;
}

/**
 * Where each turn ends: the id of a turn's user message → the id of the turn's last entry in `entries` (what comes
 * under a turn, a question or a restore's line, goes after it).
 */
export function turnEnds(entries: readonly EntryView[]): Map<number, number> {
  const ends = new Map<number, number>();
  let turn: number | undefined;
  for (const entry of entries) {
    if (entry.kind === 'message' && entry.role === 'user') turn = entry.id;
    if (turn !== undefined) ends.set(turn, entry.id);
  }
  return ends;
}

/** "3 files changed", "1 file changed". */
export function filesChanged(count: number): string {
  return count === 1 ? t('1 file changed') : t('{0} files changed', count);
}

/** The lines a card's files add and remove, together. */
export function lineCounts(files: ChangesView['files']): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const file of files) {
    added += file.added;
    removed += file.removed;
  }
  return { added, removed };
}

/**
 * Splits a long markdown text into blocks that can be rendered apart: at blank lines outside code fences, once a
 * block has `min` characters. A cut depends only on the text before it, so while a message streams, every block
 * but the last stays the same and is not rendered again.
 */
export function markdownBlocks(text: string, min = 4096): string[] {
  if (text.length < 2 * min) return [text];
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (fence === undefined && line.trim() === '' && lineEnd < text.length && lineStart - start >= min) {
      blocks.push(text.slice(start, lineEnd + 1));
      start = lineEnd + 1;
    }
    lineStart = lineEnd + 1;
  }
  blocks.push(text.slice(start));
  return blocks;
}

/** "12.3k" */
export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}
