// Bringing a row of the conversation into view: Find (Ctrl+F, the chat's own, which knows its folded and earlier
// rows), Alt+Up / Alt+Down between the user's messages, the outline's list of them, and a search result opened at
// its match (shown, scrolled to and marked; the view lets go of the bottom so that it stays there).
import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { entryText, type FindTarget } from '../find';
import { useFind } from './useFind';
import type { RowWindow } from './useRows';

export function useMessageJumps(
  ref: RefObject<HTMLDivElement | null>,
  window: RowWindow,
  stick: { current: boolean },
  props: { readonly planText?: string | undefined; readonly reveal?: { readonly key: string | undefined; readonly seq: number } | undefined },
) {
  const { rows, shown, setShown } = window;
  // The rows and the window as they are now, for what waits for frames (bringing a row into the page).
  const now = useRef({ rows, shown });
  now.current = { rows, shown };
  /** Puts the row of `key` in the page (earlier rows shown, a deferred one filled in) and answers its element. */
  const bring = async (key: string, stale: () => boolean = () => false): Promise<Element | undefined> => {
    if (key === 'plan') return document.querySelector('[data-find="plan"]') ?? undefined;
    const index = now.current.rows.findIndex((row) => row.key === key);
    if (index < 0) return undefined;
    stick.current = false;
    const needed = now.current.rows.length - index;
    if (needed > now.current.shown) setShown(needed + 10);
    for (let frame = 0; frame < 90 && !stale(); frame++) {
      const element = ref.current?.querySelector(`[data-key="${key}"]`);
      if (element && element.childElementCount > 0) return element;
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return undefined;
  };
  // What Find searches, built only while its bar is open.
  const targets = (): FindTarget[] => [
    ...now.current.rows.map((row) => ({ key: row.key, text: entryText(row.entry) })),
    ...(props.planText ? [{ key: 'plan', text: props.planText }] : []),
  ];
  // A new token whenever what Find searches changed.
  const searchable = useMemo(() => ({}), [rows, props.planText]);
  const find = useFind(targets, searchable, bring);
  const focusMessage = async (key: string) => {
    const element = (await bring(key))?.querySelector<HTMLElement>('.message.user');
    element?.focus();
    element?.scrollIntoView({ block: 'start' });
  };
  /** Alt+Up / Alt+Down: the user's message before or after the one in focus (or the bottom), focused. */
  const jump = async (step: 1 | -1) => {
    const mine = now.current.rows.filter((row) => row.entry.kind === 'message' && row.entry.role === 'user');
    const from = document.activeElement?.closest('[data-key]')?.getAttribute('data-key');
    const at = from ? now.current.rows.findIndex((row) => row.key === from) : now.current.rows.length;
    const position = (key: string) => now.current.rows.findIndex((row) => row.key === key);
    const target = step === -1 ? mine.filter((row) => position(row.key) < at).at(-1) : mine.find((row) => position(row.key) > at);
    if (target) await focusMessage(target.key);
  };
  useEffect(() => {
    const mac = /Mac|iPhone|iPad/.test(navigator.platform);
    const onKey = (event: KeyboardEvent) => {
      const primary = mac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
      if (primary && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'f') {
        // Not VS Code's own find: the chat's, which knows its folded and earlier rows.
        event.preventDefault();
        event.stopPropagation();
        find.open();
      } else if (
        event.altKey &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.shiftKey &&
        !event.isComposing &&
        (event.key === 'ArrowUp' || event.key === 'ArrowDown') &&
        jumpsFrom(event.target, mac)
      ) {
        event.preventDefault();
        event.stopPropagation();
        void jump(event.key === 'ArrowUp' ? -1 : 1);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
  const revealKey = props.reveal?.key;
  useEffect(() => {
    if (revealKey === undefined) return;
    const index = rows.findIndex((row) => row.key === revealKey);
    if (index < 0) return;
    stick.current = false;
    if (rows.length - index > shown) setShown(rows.length - index + 10);
    requestAnimationFrame(() => ref.current?.querySelector(`[data-key="${revealKey}"]`)?.scrollIntoView({ block: 'center' }));
  }, [props.reveal?.seq, revealKey, rows.length > 0]);
  /** The user's messages, for the outline's list. */
  const outline = rows.filter((row) => row.entry.kind === 'message' && row.entry.role === 'user');
  return { find, focusMessage, outline, revealKey };
}

/**
 * Whether Alt+Up / Alt+Down jump from where the key was pressed: not in a field that uses them (a list opens with
 * Alt+Down; the find box), and in the message box only where the platform does not move the caret with them (macOS).
 */
function jumpsFrom(target: EventTarget | null, mac: boolean): boolean {
  if (!(target instanceof Element)) return true;
  if (target.closest('select, input, [contenteditable="true"]')) return false;
  return !(mac && target.closest('textarea'));
}
