// What the buttons of messages and tool cards do. A long chat has thousands of them, and a handler each (a closure
// and its context, a listener) was megabytes of the page's heap: instead each button says what it does (`data-act`,
// with `data-index` or `data-terminal`), its article says which entry it is (`data-entry`, `data-tool`,
// `data-earlier`), and the conversation hands every click here. A click from the keyboard (Enter, Space) is a click
// too.
import { cancelToolCall, copyEntry, forkFrom, openLocation, restoreCheckpoint, showDiff, showTerminal } from './intents';

/** Acts on a click on one of an entry's buttons; false when `target` is not one. `edit` opens a message for editing. */
export function entryAction(target: Element, edit: (entryId: number) => void): boolean {
  const button = target.closest('button[data-act]');
  const article = button?.closest('article[data-entry]');
  if (!button || !article) return false;
  const entryId = Number(article.getAttribute('data-entry'));
  const earlier = article.hasAttribute('data-earlier');
  const toolCallId = article.getAttribute('data-tool') ?? '';
  const index = Number(button.getAttribute('data-index'));
  switch (button.getAttribute('data-act')) {
    case 'copy':
      // A subagent's entries are numbered apart from the chat's: its card names its session.
      copyEntry(entryId, earlier, article.closest('[data-session]')?.getAttribute('data-session') ?? undefined);
      return true;
    case 'edit':
      edit(entryId);
      return true;
    case 'fork':
      forkFrom(entryId);
      return true;
    case 'restore':
      restoreCheckpoint(entryId);
      return true;
    case 'location':
      openLocation(toolCallId, index);
      return true;
    case 'diff':
      showDiff(toolCallId, index);
      return true;
    case 'terminal':
      showTerminal(toolCallId, button.getAttribute('data-terminal') ?? '');
      return true;
    case 'stop':
      cancelToolCall(toolCallId);
      return true;
    default:
      return false;
  }
}
