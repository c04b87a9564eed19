// The webview's translations. The host sends its `vscode.l10n.bundle` (translated message → translation) with the
// state; `t` looks a message up there and fills in its `{0}`, `{1}` placeholders, the same format as vscode.l10n.t.
// Without a bundle (English, or before the state arrives) a message is its own English text.
import * as l10n from '@vscode/l10n';
import type { Translate } from '../src/chat/protocol';

/** Uses `bundle` for the messages translated from now on; undefined goes back to English. */
export function setBundle(bundle: Readonly<Record<string, string>> | undefined): void {
  l10n.config({ contents: bundle ? { ...bundle } : {} });
}

export const t: Translate = (message, ...args) => l10n.t(message, ...args);
