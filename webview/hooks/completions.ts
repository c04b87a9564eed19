// What the composer completes, worked out from the draft and the caret. Pure: no DOM, unit-tested in plain Node;
// useCompletions holds the state and the keys.
import type { CommandView } from '../../src/chat/protocol';

/** The completion the composer offers for what is before the caret: a slash command, a file mention, or none. */
export type Completion =
  { readonly kind: 'command'; readonly query: string } | { readonly kind: 'file'; readonly query: string; readonly start: number } | undefined;

export function completionAt(draft: string, caret: number): Completion {
  const before = draft.slice(0, caret);
  const command = /^\/([^\s/]*)$/.exec(before);
  if (command) return { kind: 'command', query: command[1] ?? '' };
  const mention = /(^|\s)@([^\s@]*)$/.exec(before);
  if (mention) return { kind: 'file', query: mention[2] ?? '', start: before.length - (mention[2] ?? '').length - 1 };
  return undefined;
}

/** The agent's commands whose name starts with what was typed after the slash, ignoring case, in the agent's order. */
export function matchingCommands(commands: readonly CommandView[], query: string): CommandView[] {
  const q = query.toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(q));
}

/** The line under a command in the list: its description, then its input hint. */
export function commandDetail(command: CommandView): string {
  return command.hint ? `${command.description} — ${command.hint}` : command.description;
}

/** The hint of the command being typed, once its name and a space are in ("/review " → "what to focus on"). */
export function commandHint(draft: string, commands: readonly CommandView[]): string | undefined {
  const typed = /^\/(\S+) (.*)$/s.exec(draft);
  return typed && typed[2] === '' ? commands.find((c) => c.name === typed[1])?.hint : undefined;
}

/** The option Up or Down moves to, wrapping around; `active` may be past a list that has shrunk since. */
export function stepOption(active: number, count: number, step: 1 | -1): number {
  return (Math.min(active, count - 1) + step + count) % count;
}

/** The draft with `from`..`to` replaced by `text`, and where the caret goes: after the inserted text. */
export function replaceRange(draft: string, from: number, to: number, text: string): { readonly draft: string; readonly caret: number } {
  return { draft: draft.slice(0, from) + text + draft.slice(to), caret: from + text.length };
}
