// When the composer takes the focus: once the chat has loaded or a turn has ended (the box is disabled before) if the
// chat has the focus, and whenever the host asks (an attachment came from the editor).
import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function useFocusRequest(box: RefObject<HTMLTextAreaElement | null>, focusRequest: number, disabled: boolean): void {
  useEffect(() => {
    if (focusRequest === 0) return;
    box.current?.focus();
    // The panel is being revealed too; when the webview itself takes focus, the box should keep it.
    const refocus = () => box.current?.focus();
    window.addEventListener('focus', refocus, { once: true });
    const stop = window.setTimeout(() => window.removeEventListener('focus', refocus), 1000);
    return () => {
      window.clearTimeout(stop);
      window.removeEventListener('focus', refocus);
    };
  }, [focusRequest]);
  const loaded = useRef(false);
  useEffect(() => {
    if (disabled) return;
    // The first time: the chat just opened. Later (a turn ended), only while the chat has the focus: a turn that ends
    // while the user is in the editor or a quick pick leaves them there.
    if (!loaded.current || document.hasFocus()) box.current?.focus();
    loaded.current = true;
  }, [disabled]);
}
