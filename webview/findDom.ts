// Find in the chat, in the page: the text ranges of the matches in a rendered row, painted with the CSS Custom
// Highlight API (no markup is changed, so nothing the agent wrote is re-parsed), and the current one unfolded (a
// folded thought, tool output) and scrolled into view.
import { occurrences } from './find';

/** Ranges painted at most, in all. */
const MAX_PAINTED = 2000;
/** What the chat itself writes around the conversation's text. */
const CHROME = 'button, summary, .role, .tool-status, .terminal-foot, .tool-note, .chips, .visually-hidden, .steer, .divider';

/** The matches of `query` in the text of `root`, in document order (a match split across two text nodes is not found). */
export function rangesIn(root: Element, query: string, matchCase: boolean, limit = MAX_PAINTED): Range[] {
  const ranges: Range[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    // The chat's own words (buttons, labels, statuses) are not the conversation: their text is not searched.
    acceptNode: (node) => (node.parentElement?.closest(CHROME) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node = walker.nextNode(); node && ranges.length < limit; node = walker.nextNode()) {
    for (const at of occurrences(node.nodeValue ?? '', query, matchCase, limit - ranges.length)) {
      const range = root.ownerDocument.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + query.length);
      ranges.push(range);
    }
  }
  return ranges;
}

interface Highlights {
  set(name: string, highlight: unknown): void;
  delete(name: string): void;
}

/** Paints `all` matches, and `current` apart; clears both with nothing. A page without the API is only scrolled. */
export function paint(all: readonly Range[], current: Range | undefined): void {
  const highlights = (globalThis.CSS as unknown as { highlights?: Highlights } | undefined)?.highlights;
  const Highlight = (globalThis as unknown as { Highlight?: new (...ranges: Range[]) => unknown }).Highlight;
  if (!highlights || !Highlight) return;
  document.documentElement.classList.toggle('finding', all.length > 0 || current !== undefined);
  if (all.length === 0) highlights.delete('acp-find');
  else highlights.set('acp-find', new Highlight(...all.slice(0, MAX_PAINTED)));
  if (current) highlights.set('acp-find-current', new Highlight(current));
  else highlights.delete('acp-find-current');
}

/** Unfolds what hides `range` (a folded thought, raw output), and brings it to the middle of the view. */
export function show(range: Range): void {
  const element: Element | null = range.startContainer.parentElement ?? (range.startContainer instanceof Element ? range.startContainer : null);
  for (let el: Element | null = element; el; el = el.parentElement) if (el instanceof HTMLDetailsElement) el.open = true;
  element?.scrollIntoView({ block: 'center' });
}
