// The conversation's rows: the earlier entries, then the session's, and the window of them the page shows (the
// last WINDOW while it follows the bottom, more as the user asks for earlier ones); and what goes under a row (its
// permission requests, questions, usage, changes card, and the checkpoints' question and restore line).
import { useMemo, useState } from 'preact/hooks';
import type { CheckpointsView, ElicitationView, EntryView, PermissionView, TurnView } from '../../src/chat/protocol';
import type { Row } from './useDeferredRows';
import { cardsAfter, rowKey, turnEnds, WINDOW } from '../state';

export interface RowWindow {
  readonly rows: readonly Row[];
  /** The rows in the page: the last `shown`. */
  readonly visible: readonly Row[];
  /** How many rows are above the window. */
  readonly hidden: number;
  readonly shown: number;
  setShown(shown: number | ((shown: number) => number)): void;
}

export function useRows(earlier: readonly EntryView[], entries: readonly EntryView[]): RowWindow {
  const [shown, setShown] = useState(WINDOW);
  const rows = useMemo<Row[]>(
    () => [
      ...earlier.map((entry) => ({ key: rowKey(entry.id, true), entry, earlier: true })),
      ...entries.map((entry) => ({ key: rowKey(entry.id, false), entry, earlier: false })),
    ],
    [earlier, entries],
  );
  const hidden = Math.max(0, rows.length - shown);
  const visible = hidden > 0 ? rows.slice(hidden) : rows;
  return { rows, visible, hidden, shown, setShown };
}

/** What the conversation shows besides its entries, each where it goes. */
export function useRowExtras(
  window: RowWindow,
  props: {
    readonly entries: readonly EntryView[];
    readonly permissions: readonly PermissionView[];
    readonly elicitations: readonly ElicitationView[];
    readonly checkpoints: CheckpointsView;
    readonly turn: TurnView;
  },
) {
  const { rows, visible, hidden } = window;
  const { entries, permissions } = props;
  const byTool = useMemo(() => {
    const map = new Map<string, PermissionView[]>();
    for (const p of permissions) map.set(p.toolCallId, [...(map.get(p.toolCallId) ?? []), p]);
    return map;
  }, [permissions]);
  // Checkpoints and cards belong to this session's messages; an earlier session's entries have ids of their own.
  const cards = useMemo(
    () =>
      cardsAfter(
        visible.filter((row) => !row.earlier).map((row) => row.entry),
        props.checkpoints.cards,
      ),
    [rows, hidden, props.checkpoints.cards],
  );
  const restorable = useMemo(() => new Set(props.checkpoints.restorable), [props.checkpoints.restorable]);
  const usageAfter = useMemo(() => new Map((props.turn.usage ?? []).map((u) => [u.after, u])), [props.turn.usage]);
  // A question and a restore's line go under the turn they are about, after its card.
  const ends = useMemo(() => turnEnds(visible.filter((row) => !row.earlier).map((row) => row.entry)), [rows, hidden]);
  const { question, restored } = props.checkpoints;
  const isTool = (toolCallId: string) => entries.some((e) => e.kind === 'tool' && e.toolCallId === toolCallId);
  return {
    byTool,
    cards,
    restorable,
    usageAfter,
    question,
    restored,
    questionAfter: question ? ends.get(question.turn) : undefined,
    restoredAfter: restored ? ends.get(restored.turn) : undefined,
    /** Permission requests whose tool call the conversation does not hold: at the end. */
    orphans: permissions.filter((p) => !isTool(p.toolCallId)),
    /** A question goes under the tool call it belongs to, or at the end. */
    questionsAt: (toolCallId: string) => props.elicitations.filter((q) => q.toolCallId === toolCallId),
    loose: props.elicitations.filter((q) => !q.toolCallId || !isTool(q.toolCallId)),
  };
}
