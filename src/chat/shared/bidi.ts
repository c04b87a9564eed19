// Bidirectional-text controls, judged alike by the host and the webview.
// Bidirectional-text controls: invisible characters that reorder how the text around them is shown. In a link they
// can disguise where it leads ("gpj.exe" shown as "exe.jpg"), so links refuse them. Here, so that the host (links.ts)
// and the webview (markdown.ts) judge alike.

/** LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI; LRM, RLM; the Arabic letter mark. */
const CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const CONTROLS_ALL = new RegExp(CONTROLS.source, 'g');
/** The same characters percent-encoded as UTF-8, as they are in a link's address once it is normalized. */
const ENCODED = /%E2%80%A[A-E]|%E2%81%A[6-9]|%E2%80%8[EF]|%D8%9C/i;

/** Whether `text` holds a bidirectional-text control, as itself or percent-encoded. */
export function hasBidiControls(text: string): boolean {
  return CONTROLS.test(text) || ENCODED.test(text);
}

/** `text` with each bidirectional-text control replaced by its visible name, like `[U+202E]`. */
export function showBidiControls(text: string): string {
  return text.replace(CONTROLS_ALL, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}
