// Asks before something ends what chats still run after their turns (a dev server, a test watcher): stopping their
// agent, or closing a chat from the Sessions view. A modal, because the work is the user's and would be gone.
import * as vscode from 'vscode';
import { clip } from '../acp/text';
import type { ChatPanel } from './panel';

/** Items named in the question; the rest are counted. */
const NAMED = 3;
/** Characters of an item's title in the question. */
const TITLE_LIMIT = 80;

/**
 * Whether the user lets `action` (its button's label) end what `panels` still run in the background. True at once
 * when nothing runs.
 */
export async function confirmEndingBackground(panels: readonly ChatPanel[], action: string): Promise<boolean> {
  const titles = panels.flatMap((panel) => panel.model.session?.model.background.items.map((item) => item.title) ?? []);
  if (titles.length === 0) return true;
  const named = namedItems(titles);
  const message =
    titles.length === 1
      ? vscode.l10n.t('{0} still runs in the background. {1} will stop it.', named[0]!, action)
      : vscode.l10n.t('{0} things still run in the background: {1}. {2} will stop them.', titles.length, named.join(', '), action);
  const choice = await vscode.window.showWarningMessage(message, { modal: true }, action);
  return choice === action;
}

/** The first items, quoted, on one line and clipped (the agent writes them), and how many more: for a sentence. */
export function namedItems(titles: readonly string[]): string[] {
  const named = titles.slice(0, NAMED).map((title) => `"${clip(title.replace(/\s+/g, ' ').trim(), TITLE_LIMIT)}"`);
  if (titles.length > NAMED) named.push(vscode.l10n.t('{0} more', titles.length - NAMED));
  return named;
}
