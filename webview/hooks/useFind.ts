// Find in the chat: the bar's state, the matches over every row (see find.ts), and going to one: its row is brought
// into the page, what folds it is unfolded, and it is painted and scrolled to (see findDom.ts). Only the user's own
// moves (a new search, Next, Previous, Match Case) scroll; new output while the bar is open only repaints, a few
// times a second at most, and the current match stays where it was.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FindBarProps } from '../components/findBar';
import { findMatches, stepped, type FindTarget, type Match } from '../find';
import { paint, rangesIn, show } from '../findDom';

/** While the bar is open, new output is searched again at most this often. */
const RESEARCH_MS = 300;

export interface Find {
  /** The bar's props while it is open. */
  readonly bar: FindBarProps | undefined;
  /** Ctrl+F: opens the bar, or gives it the focus again. */
  open(): void;
}

/**
 * `targets` builds what can be found (only while the bar is open); `bring` puts a row in the page (showing earlier
 * rows, waiting for a deferred one) and answers its element, or undefined once `stale` says the move was replaced.
 */
export function useFind(
  targets: () => readonly FindTarget[],
  version: unknown,
  bring: (key: string, stale: () => boolean) => Promise<Element | undefined>,
): Find {
  const [opened, setOpened] = useState(false);
  const [query, setQuery] = useState('');
  const [matchCase, setMatchCase] = useState(false);
  /** The current match, or -1 for "the newest" (a new search). */
  const [index, setIndex] = useState(-1);
  /** Bumped by the user's moves: only these scroll. */
  const [move, setMove] = useState(0);
  const [focusSeq, setFocusSeq] = useState(0);
  const returnFocus = useRef<Element | null>(null);
  // The conversation searched again a few times a second while it streams, not on every frame.
  const [searched, setSearched] = useState(version);
  useEffect(() => {
    if (!opened || searched === version) return;
    const timer = setTimeout(() => setSearched(version), RESEARCH_MS);
    return () => clearTimeout(timer);
  }, [opened, version, searched]);
  const matches = useMemo(() => (opened ? findMatches(targets(), query, matchCase) : []), [opened, searched, query, matchCase]);
  const current = matches.length === 0 ? -1 : index < 0 || index >= matches.length ? matches.length - 1 : index;
  const [announced, setAnnounced] = useState('');

  // The user's move: to the current match.
  useEffect(() => {
    if (!opened) return;
    let stale = false;
    void go(matches[current], query, matchCase, bring, () => stale);
    setAnnounced(query === '' ? '' : matches.length === 0 ? 'none' : `${current + 1}/${matches.length}`);
    return () => {
      stale = true;
    };
  }, [opened, move]);
  // New output: painted again where it is, nothing scrolled.
  useEffect(() => {
    if (opened) repaint(matches[current], query, matchCase);
  }, [opened, matches]);

  const close = () => {
    setOpened(false);
    paint([], undefined);
    const back = returnFocus.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus();
    else document.querySelector<HTMLElement>('textarea')?.focus();
  };
  return {
    open: () => {
      if (!opened) returnFocus.current = document.activeElement;
      setOpened(true);
      setSearched(version);
      setFocusSeq((n) => n + 1);
    },
    bar: opened
      ? {
          query,
          matchCase,
          index: current,
          count: matches.length,
          announced,
          focusSeq,
          setQuery: (text) => {
            setQuery(text);
            setIndex(-1);
            setMove((n) => n + 1);
          },
          toggleCase: () => {
            setMatchCase((c) => !c);
            setIndex(-1);
            setMove((n) => n + 1);
          },
          step: (step) => {
            setIndex(stepped(current, step, matches.length));
            setMove((n) => n + 1);
          },
          close,
        }
      : undefined,
  };
}

/** The rows in the page that can hold matches: the conversation's, and the plan. */
function roots(): Element[] {
  return [...document.querySelectorAll('.conversation [data-key], [data-find]')];
}

/** Brings `match` into view and paints it as the current one, with the others around it. */
async function go(
  match: Match | undefined,
  query: string,
  matchCase: boolean,
  bring: (key: string, stale: () => boolean) => Promise<Element | undefined>,
  stale: () => boolean,
): Promise<void> {
  if (query === '' || !match) {
    paint([], undefined);
    return;
  }
  const root = await bring(match.key, stale);
  if (stale()) return;
  const here = repaint(match, query, matchCase, root);
  if (here) show(here);
}

/** Paints the matches in the page, the current one first (bounded in all); answers the current one's range. */
function repaint(match: Match | undefined, query: string, matchCase: boolean, root?: Element): Range | undefined {
  if (query === '') {
    paint([], undefined);
    return undefined;
  }
  const home = root ?? (match ? document.querySelector(`[data-key="${match.key}"]`) : null) ?? undefined;
  const inRow = home ? rangesIn(home, query, matchCase) : [];
  const here = match ? inRow[Math.min(match.nth, inRow.length - 1)] : undefined;
  const others = roots().filter((el) => el !== home);
  const all = [...inRow];
  for (const el of others) {
    if (all.length >= 2000) break;
    all.push(...rangesIn(el, query, matchCase, 2000 - all.length));
  }
  paint(all, here);
  return here;
}
