// What screen readers hear of the agent's streaming reply, in a visually hidden live region.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntryView } from '../../src/chat/protocol';

/** How often streaming text is announced to screen readers. */
const ANNOUNCE_MS = 2000;
const ANNOUNCE_MAX = 600;

/**
 * Reads the agent's streaming reply to screen readers politely: what arrived since the last announcement, at
 * most every two seconds, and the rest when the turn ends. The conversation itself is not live, so a stream
 * of small changes is never read out one by one.
 */
export function Announcer({ entries, running }: { entries: readonly EntryView[]; running: boolean }) {
  const [spoken, setSpoken] = useState('');
  const said = useRef<{ id: number; length: number }>({ id: -1, length: 0 });
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(entries);
  latest.current = entries;

  const announce = () => {
    timer.current = undefined;
    const last = [...latest.current].reverse().find((e) => e.kind === 'message' && e.role === 'agent');
    if (!last || last.kind !== 'message') return;
    const from = said.current.id === last.id ? said.current.length : 0;
    const fresh = last.text.slice(from).trim();
    said.current = { id: last.id, length: last.text.length };
    // Only the start is read aloud, so only the start is cleaned: plain()'s patterns are not linear in what streamed.
    if (fresh !== '') setSpoken(plain(fresh.slice(0, 4 * ANNOUNCE_MAX)).slice(0, ANNOUNCE_MAX));
  };

  useEffect(() => {
    if (!running) {
      if (timer.current !== undefined) window.clearTimeout(timer.current);
      announce();
      return;
    }
    if (timer.current === undefined) timer.current = window.setTimeout(announce, ANNOUNCE_MS);
  }, [entries, running]);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  return (
    <div class="visually-hidden" aria-live="polite" aria-atomic="true">
      {spoken}
    </div>
  );
}

/** Markdown read aloud: without the marks. */
function plain(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n/g, '')
    .replace(/[*_`#>]+/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ');
}
