// Find in the chat: the bar's state, the matches over every row (see find.ts), and going to one: its row is brought
// into the page, what folds it is unfolded, and it is painted and scrolled to (see findDom.ts).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FindBarProps } from '../components/findBar';
import { findMatches, stepped, type FindTarget } from '../find';
import { paint, rangesIn, show } from '../findDom';

export interface Find {
  /** The bar's props while it is open. */
  readonly bar: FindBarProps | undefined;
  /** Ctrl+F: opens the bar, or gives it the focus again. */
  open(): void;
}

/**
 * `bring` puts a row in the page (showing earlier rows, waiting for a deferred one) and answers its element; the
 * plan is `plan`.
 */
export function useFind(targets: readonly FindTarget[], bring: (key: string) => Promise<Element | undefined>): Find {
  const [opened, setOpened] = useState(false);
  const [query, setQuery] = useState('');
  const [matchCase, setMatchCase] = useState(false);
  const [index, setIndex] = useState(-1);
  const [focusSeq, setFocusSeq] = useState(0);
  const returnFocus = useRef<Element | null>(null);
  const matches = useMemo(() => (opened ? findMatches(targets, query, matchCase) : []), [opened, targets, query, matchCase]);
  // A new search starts at the newest match (the bottom, where the chat is read); more output keeps the current one.
  const current = index >= matches.length ? matches.length - 1 : index;

  useEffect(() => {
    if (!opened || query === '') {
      paint([], undefined);
      return;
    }
    const match = matches[current];
    let stale = false;
    void (async () => {
      const root = match ? await bring(match.key) : undefined;
      if (stale) return;
      const all = [...document.querySelectorAll('.conversation [data-key], [data-find]')].flatMap((el) => rangesIn(el, query, matchCase));
      const inRow = root ? rangesIn(root, query, matchCase) : [];
      const here = match ? inRow[Math.min(match.nth, inRow.length - 1)] : undefined;
      paint(all, here);
      if (here) show(here);
    })();
    return () => {
      stale = true;
    };
  }, [opened, matches, current, query, matchCase]);

  const close = () => {
    setOpened(false);
    paint([], undefined);
    const back = returnFocus.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus();
  };
  return {
    open: () => {
      if (!opened) returnFocus.current = document.activeElement;
      setOpened(true);
      setFocusSeq((n) => n + 1);
    },
    bar: opened
      ? {
          query,
          matchCase,
          index: current,
          count: matches.length,
          focusSeq,
          setQuery: (text) => {
            setQuery(text);
            setIndex(Number.MAX_SAFE_INTEGER);
          },
          toggleCase: () => {
            setMatchCase((c) => !c);
            setIndex(Number.MAX_SAFE_INTEGER);
          },
          step: (step) => setIndex(stepped(current, step, matches.length)),
          close,
        }
      : undefined,
  };
}
