// The conversation stays anchored at the bottom unless the user scrolls up; while anchored, the page keeps only the
// last WINDOW rows. Show earlier messages lets go of the bottom and keeps what the user was reading in place.
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { WINDOW } from '../state';
import type { RowWindow } from './useRows';

export function useStickToBottom(ref: RefObject<HTMLDivElement | null>, window: RowWindow, stick: { current: boolean }) {
  const lastTop = useRef(0);
  const frame = useRef(0);
  const { rows, shown, setShown } = window;
  // Back at the bottom after a render: in the next frame, before it is painted. Reading scrollHeight lays the page
  // out, so the renders of a burst of updates then cost one layout a frame rather than one each (measured in the UI
  // benchmark's flood, a forced layout per render was the view's largest cost).
  useLayoutEffect(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const el = ref.current;
      if (el && stick.current) el.scrollTop = el.scrollHeight;
      if (el) lastTop.current = el.scrollTop;
    });
  });
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  useEffect(() => {
    if (stick.current && shown > WINDOW && rows.length > 0) setShown(WINDOW);
  }, [rows.length]);
  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    // Only the user scrolling up lets go of the bottom: content that grew since it was pinned does not.
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 32) stick.current = true;
    else if (el.scrollTop < lastTop.current) stick.current = false;
    lastTop.current = el.scrollTop;
  };
  const showEarlier = () => {
    const el = ref.current;
    const fromBottom = el ? el.scrollHeight - el.scrollTop : 0;
    stick.current = false;
    setShown((n) => n + WINDOW);
    // Keep what the user was reading in place as the earlier entries appear above it.
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - fromBottom;
    });
  };
  return { onScroll, showEarlier };
}
