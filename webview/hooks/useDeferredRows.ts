// While the view follows the stream, new entries render newest first, a budget of characters at a time; the rest
// fill in once the updates pause. Keeps a burst of entries from being one long task that keeps a click waiting.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntryView } from '../../src/chat/protocol';

/**
 * Roughly the characters of new entries rendered at a time while the view follows the stream at the bottom. When
 * many entries arrive at once (the host sends what piled up while the page was busy, or a restored chat loads), one
 * render of them all is a long task that keeps a click waiting: measured in the UI benchmark, a render of 100+ new
 * entries took 60–100 ms of CPU. So new entries render newest first, this much at a time, and the older ones are
 * left empty above what is shown until they fill in (see useDeferredRows), or until newer entries push them out of
 * the window. With 4000, no frame of the benchmark's flood took more than 30 ms of CPU.
 */
const RENDER_CHARS = 4000;
/**
 * Entries left empty fill in once the updates pause this long... Longer than the host's updates are apart while a
 * stream keeps the page busy (it posts the next when the last was delivered: 100–250 ms apart in the benchmark's
 * flood), else each gap between them was taken for a pause, and fill-ins ran between all of them: 23 extra renders
 * in one flood, a third of the page's work, much of it for entries that newer ones then pushed out of the window.
 */
const FILL_PAUSE_MS = 300;
/** ...or once they have waited this long while the updates go on. */
const FILL_WAIT_MS = 2000;

/** What an entry costs to render, in characters of its text plus its fixed markup. */
function weight(entry: EntryView): number {
  if (entry.kind === 'message') return 200 + entry.text.length;
  if (entry.kind === 'compaction') return 200 + entry.summary.length;
  let chars = 500 + entry.title.length + (entry.rawInput?.length ?? 0) + (entry.rawOutput?.length ?? 0);
  for (const text of entry.content) chars += text.length;
  for (const terminal of entry.terminals) chars += terminal.output.length;
  return chars;
}

/** A row of the conversation: an entry, keyed apart from the same id among the earlier entries. */
export interface Row {
  readonly key: string;
  readonly entry: EntryView;
  readonly earlier: boolean;
}

/**
 * The keys of the visible rows to leave empty in this render (see RENDER_CHARS): while `following` the stream, the
 * rows not rendered yet, newest first, beyond RENDER_CHARS. The rest fill in RENDER_CHARS at a time once the
 * updates pause: during a burst they would take CPU that the burst needs, for entries that newer ones may push out
 * of the window anyway. When the user scrolls up (or asks for earlier messages), everything renders at once.
 */
export function useDeferredRows(rows: readonly Row[], visible: readonly Row[], following: boolean): ReadonlySet<string> {
  const rendered = useRef(new Set<string>());
  const [, fillIn] = useState(0);
  const deferred = new Set<string>();
  if (following) {
    let budget = RENDER_CHARS;
    for (let i = visible.length - 1; i >= 0; i--) {
      const row = visible[i];
      if (!row || rendered.current.has(row.key)) continue;
      if (budget > 0) budget -= weight(row.entry);
      else deferred.add(row.key);
    }
  }
  rendered.current = new Set(visible.flatMap((row) => (deferred.has(row.key) ? [] : [row.key])));

  const lastRows = useRef(rows);
  const deferredSince = useRef<number | undefined>(undefined);
  useEffect(() => {
    const updated = lastRows.current !== rows;
    lastRows.current = rows;
    if (deferred.size === 0) {
      deferredSince.current = undefined;
      return;
    }
    const now = performance.now();
    deferredSince.current ??= now;
    // After an update, wait for the next one (this timer is then replaced), at most until FILL_WAIT_MS is up;
    // after a fill-in, go on at once.
    const delay = updated ? Math.min(FILL_PAUSE_MS, Math.max(0, deferredSince.current + FILL_WAIT_MS - now)) : 0;
    const timer = window.setTimeout(() => fillIn((n) => n + 1), delay);
    return () => window.clearTimeout(timer);
  });
  return deferred;
}
