// When the composer takes the focus: whenever the host asks (an attachment came from the editor, the user's own act),
// and once when the chat has loaded, only if VS Code gave the chat the focus. A chat that loads while the user is in
// a quick pick, the palette or an editor (a restored tab, a chat opened by a command) leaves them there, and takes
// the focus when the user comes to it, unless they clicked something in it first.
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
    if (disabled || loaded.current) return;
    loaded.current = true;
    // Nothing in the page has the focus yet: a click on a button keeps its own.
    const take = () => {
      if (document.activeElement === null || document.activeElement === document.body) box.current?.focus();
    };
    if (document.hasFocus()) return take();
    window.addEventListener('focus', take, { once: true });
    return () => window.removeEventListener('focus', take);
  }, [disabled]);
}
