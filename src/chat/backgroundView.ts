// The view of what runs after its turn ended (acp/background.ts): each item with the last lines of its output and
// who can stop it. Pure: unit-tested in plain Node.
import type { SessionModel } from '../acp/sessionModel';
import type { TerminalState } from '../acp/sessionState';
import { clip } from '../acp/text';
import { terminalIds } from '../acp/toolCalls';
import { plainTerminalText } from '../common/ansi';
import type { BackgroundView } from './protocol';

/** Lines of output an item shows. */
const TAIL_LINES = 3;
/** Characters of one line shown. */
const LINE_LIMIT = 200;
/** Characters of output read for the tail: enough for its lines, whatever the command printed. */
const READ_LIMIT = 4096;
/** Items shown, the oldest first: an agent that leaves thousands of tool calls in progress does not fill the chat. */
export const BACKGROUND_SHOWN = 50;

export function backgroundViews(model: Pick<SessionModel, 'background' | 'terminals' | 'toolCall'>): BackgroundView[] {
  return model.background.items.slice(0, BACKGROUND_SHOWN).map((item) => {
    const call = item.toolCallId === undefined ? undefined : model.toolCall(item.toolCallId);
    const terminalId = item.terminalId ?? item.agentTerminalId ?? (call ? terminalIds(call, model.terminals)[0] : undefined);
    return {
      key: item.key,
      title: clip(item.title, LINE_LIMIT),
      startedAt: item.startedAt,
      tail: terminalId === undefined ? '' : outputTail(model.terminals.get(terminalId)),
      stop: item.terminalId === undefined && item.cancel === undefined ? 'dismiss' : 'kill',
    };
  });
}

/** The last TAIL_LINES lines a command printed, without escapes; blank lines are skipped. */
export function outputTail(state: TerminalState | undefined): string {
  const raw = state?.text ?? '';
  const read = raw.length > READ_LIMIT ? raw.slice(raw.length - READ_LIMIT) : raw;
  const lines = plainTerminalText(read).split('\n');
  if (read.length < raw.length) lines.shift(); // the first line read may be the end of a longer one
  const shown: string[] = [];
  for (let i = lines.length - 1; i >= 0 && shown.length < TAIL_LINES; i--) {
    const line = lines[i]!.trimEnd();
    if (line !== '') shown.unshift(clip(line, LINE_LIMIT));
  }
  return shown.join('\n');
}
