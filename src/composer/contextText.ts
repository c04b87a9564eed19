// What an `@` mention of VS Code's own knowledge becomes as text: the problems, the terminal's last command, a
// folder's listing; and which of those the completion list offers for what was typed. Pure: no `vscode`,
// unit-tested in Node. Every text is bounded: the chat shows its size, and past a bound asks before it is sent.
import { plainTerminalText } from '../common/ansi';
import type { FileMatch, Translate } from '../chat/protocol';
import { trimTrailing } from '../acp/text';

/** Problems listed at most; the rest are counted. */
export const MAX_PROBLEMS = 500;
/** Entries of a folder listed at most. */
export const MAX_LISTING = 500;
/** A mention larger than this asks before it is sent (the chip's Attach Anyway). */
export const ASK_BYTES = 256 * 1024;
/** A mention larger than this is not attached at all. */
export const MAX_MENTION_BYTES = 16 * 1024 * 1024;

export interface Problem {
  /** Workspace-relative path. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  readonly source?: string;
  readonly code?: string;
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, hint: 3 } as const;

/** One line per problem, errors first, then by file and line: `src/a.ts:12:5 error: message (ts 2322)`. */
export function problemsText(problems: readonly Problem[]): string {
  if (problems.length === 0) return 'No problems.';
  const sorted = [...problems].sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column,
  );
  const lines = sorted.slice(0, MAX_PROBLEMS).map((p) => {
    const origin = [p.source, p.code].filter((part) => part !== undefined && part !== '').join(' ');
    return `${p.path}:${p.line}:${p.column} ${p.severity}: ${oneLine(p.message)}${origin ? ` (${origin})` : ''}`;
  });
  if (sorted.length > MAX_PROBLEMS) lines.push(`… and ${sorted.length - MAX_PROBLEMS} more`);
  return lines.join('\n');
}

/**
 * The text on one line: each line break, with the whitespace around it, becomes one space. By hand, in one pass: the
 * regular expression `\s*\n\s*` backtracks quadratically over a long run of spaces without a line break.
 */
export function oneLine(text: string): string {
  const lines = text.split('\n');
  const last = lines.length - 1;
  let out = lines[0]!;
  if (last === 0) return out;
  out = out.trimEnd();
  for (let i = 1; i <= last; i++) {
    const line = i === last ? lines[i]!.trimStart() : lines[i]!.trim();
    if (line !== '' || i === last) out += ' ' + line;
  }
  return out;
}

/** The terminal's last command as the agent reads it: the prompt line, the output (plain text), how it ended. */
export function terminalText(command: {
  commandLine: string;
  output: string;
  truncated: boolean;
  exitCode: number | undefined;
  cwd?: string | undefined;
}): string {
  const output = trimTrailing(plainTerminalText(command.output), '\n');
  const ended = command.exitCode === undefined ? '(still running, or the exit code is unknown)' : `(exit code ${command.exitCode})`;
  return [
    `$ ${command.commandLine}`,
    ...(command.truncated ? ['… (the start of the output was left out)'] : []),
    ...(output ? [output] : []),
    ended,
  ].join('\n');
}

/** A folder's entries, folders first with a trailing "/", bounded. */
export function folderListing(entries: readonly { name: string; folder: boolean }[]): string {
  const sorted = [...entries].sort((a, b) => Number(b.folder) - Number(a.folder) || a.name.localeCompare(b.name));
  const lines = sorted.slice(0, MAX_LISTING).map((e) => (e.folder ? `${e.name}/` : e.name));
  if (sorted.length > MAX_LISTING) lines.push(`… and ${sorted.length - MAX_LISTING} more`);
  return lines.length > 0 ? lines.join('\n') : '(empty)';
}

/** The mentions of VS Code's own knowledge that match what follows the `@`, with what each will attach. */
export function specialMentions(t: Translate, query: string, counts: { activeProblems: number | undefined; allProblems: number }): FileMatch[] {
  const q = query.toLowerCase();
  const offered = (word: string) => q === '' || word.startsWith(q);
  const found: FileMatch[] = [];
  if (offered('problems')) {
    if (counts.activeProblems !== undefined)
      found.push({ kind: 'problems', path: 'active', name: 'problems', folder: t("the active file's problems ({0})", counts.activeProblems) });
    found.push({ kind: 'problems', path: 'all', name: 'problems:all', folder: t('all problems ({0})', counts.allProblems) });
  }
  if (offered('terminal'))
    found.push({ kind: 'terminal', path: 'last', name: 'terminal', folder: t("the active terminal's last command and output") });
  if (offered('changes')) {
    found.push({ kind: 'changes', path: 'working', name: 'changes', folder: t('the uncommitted changes (git diff)') });
    found.push({ kind: 'changes', path: 'staged', name: 'changes:staged', folder: t('the staged changes (git diff --staged)') });
  }
  if (offered('commit'))
    found.push({ kind: 'commit', path: 'pick', name: 'commit', folder: t('a commit: its message and diff, picked from the log') });
  if (offered('chat')) found.push({ kind: 'chat', path: 'pick', name: 'chat', folder: t('an earlier chat of this workspace, picked from the list') });
  if (offered('url')) found.push({ kind: 'url', path: 'ask', name: 'url', folder: t('a web page, fetched from this computer after you confirm') });
  return found;
}
