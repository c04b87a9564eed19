// What the user is asked before run_task runs a task: built from the command that is started, not from the task's
// label or its line alone. The executable (a task's own shell too) and every argument, the folder when it is not the
// session's, each environment override by name, and where a variable's value comes from. A long question is cut in
// its middle, saying how much is hidden, so its end (the digest) stays. Plain Node: no `vscode`.
import { shellLine } from './taskLine';

/** What runs, as the question shows it (values as written: a resolved `${env:…}` could be a secret). */
export interface TaskCommandView {
  /** The program started: a shell, or a process task's program. */
  readonly executable: string;
  /** Every argument it is given, the shell's own and the task's line included. */
  readonly args: readonly string[];
  /** The folder it runs in, when that is not the session's first folder. */
  readonly folder?: string;
  /** Environment variables the task sets, with their values as written. */
  readonly env: Readonly<Record<string, string>>;
  /** Where values enter from outside the task: a setting, the environment. */
  readonly notes: readonly string[];
}

/** The longest question: VS Code's notification and the chat's card show it whole. */
const MAX_QUESTION = 600;
const MAX_ENV_VALUE = 80;

/** The question for running task `name` as `command`, ending with `digest`. */
export function taskQuestion(name: string, command: TaskCommandView, digest: string, windows: boolean): string {
  const line = shellLine(command.executable, command.args, windows);
  const env = Object.entries(command.env).map(([key, value]) => `${key}=${clipMiddle(value, MAX_ENV_VALUE)}`);
  const after = [
    ...(command.folder ? [`in ${command.folder}`] : []),
    ...(env.length ? [`setting ${env.join(', ')}`] : []),
    ...command.notes,
    digest,
  ].join(' \u00b7 ');
  const head = `Run task \u201c${clipMiddle(name, 80)}\u201d: `;
  return `${head}${clipMiddle(line, Math.max(120, MAX_QUESTION - head.length - after.length - 3))} \u00b7 ${clipMiddle(after, MAX_QUESTION)}`;
}

/** `text` at most about `max` characters: its start and its end, with how many characters between are hidden. */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(2, max - 40);
  const start = Math.ceil(keep / 2);
  const end = keep - start;
  return `${text.slice(0, start)} \u2026[${text.length - keep} characters hidden]\u2026 ${text.slice(text.length - end)}`;
}
