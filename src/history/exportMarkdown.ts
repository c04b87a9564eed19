// Export Chat as Markdown: a chat (the messages kept on this computer, then the live session) as one readable Markdown
// file. Pure: no `vscode`, no disk; the host picks the file and writes the string.
//
// The agent's markdown is kept as it is (it is markdown), but for raw HTML: a `<` that could open a tag or a comment is
// written `&lt;` outside code, as the chat shows it (HTML off), so a reader with HTML on (VS Code's preview) sees
// every later turn. Everything else that goes into the file is made safe where it lands: code fences longer than any
// backtick run inside them, one-line headings, links with their targets in angle brackets. What an agent controls is
// bounded: a diff's lines, a command's output lines.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type * as S from '../acp/schema.gen';
import type { SessionModel } from '../acp/sessionModel';
import type { Entry, TerminalState, ToolCallState } from '../acp/sessionState';
import { plainTerminalText } from '../common/ansi';
import { diffsOf, terminalIds } from '../acp/toolCalls';
import { shortPath } from '../chat/view';
import { nameOf, type StoredEntry } from './format';
import { longestRun } from '../acp/text';
import MarkdownIt from 'markdown-it';

export interface ExportInput {
  readonly title: string;
  readonly agent: string;
  readonly cwd: string;
  readonly exportedAt: Date;
  /** Earlier messages kept on this computer (shown above the live session), may be empty. */
  readonly earlier: readonly StoredEntry[];
  /** The live session, if any. */
  readonly model?: SessionModel;
  /** How each turn ended: after which entry index of `model.entries` (the last entry of the turn) and its stop reason. */
  readonly turnEnds?: readonly { readonly afterEntry: number; readonly stopReason: string }[];
}

/** Lines of one diff written out; a longer diff ends with a note of how many more there were. */
export const MAX_DIFF_LINES = 2000;
/** Lines of a command's output written out: its last ones, as a terminal shows. */
export const MAX_CONSOLE_LINES = 400;
/**
 * A diff's cost grows with the lines changed: past this many, or this long, it is given up and the edit is shown as
 * what it then is, every old line removed and every new one added. An export is one click; it must not hang.
 */
const MAX_EDIT_LENGTH = 5000;
const DIFF_TIMEOUT_MS = 300;

/** What a stopped turn's line says after the reason: why the user may care. */
const STOP_EXPLANATIONS: Readonly<Record<string, string>> = {
  refusal: 'the agent refused; this message and what follows are left out of its context',
  max_tokens: 'the agent reached its token limit',
  max_turn_requests: 'the turn reached its limit of model requests',
};

/** The chat as a Markdown document, ending with a newline. */
export function exportMarkdown(input: ExportInput): string {
  const blocks: string[] = [
    `# ${noHtml(oneLine(input.title)) || 'Chat'}`,
    `Agent: ${oneLine(input.agent)} · Folder: ${inlineCode(input.cwd)} · Exported: ${dateLine(input.exportedAt)}`,
  ];
  const agentHeading = `## ${oneLine(input.agent) || 'Agent'}`;
  // A heading per change of speaker: the agent's thoughts, tool calls and messages of one turn sit under one heading.
  let speaker: 'user' | 'agent' | undefined;
  const speak = (who: 'user' | 'agent') => {
    if (who === 'user') blocks.push('## You');
    else if (speaker !== 'agent') blocks.push(agentHeading);
    speaker = who;
  };

  if (input.earlier.length > 0) {
    blocks.push('_Earlier messages, kept on this computer_');
    for (const entry of input.earlier) {
      speak(entry.t === 'user' ? 'user' : 'agent');
      blocks.push(...storedBlocks(entry));
    }
  }

  const model = input.model;
  if (model) {
    if (input.earlier.length > 0) {
      blocks.push('---');
      speaker = undefined;
    }
    const ends = new Map<number, string[]>();
    const trailing: string[] = [];
    for (const end of input.turnEnds ?? []) {
      if (end.stopReason === 'end_turn') continue;
      const line = stopLine(end.stopReason);
      if (Number.isInteger(end.afterEntry) && end.afterEntry >= 0 && end.afterEntry < model.entries.length) {
        ends.set(end.afterEntry, [...(ends.get(end.afterEntry) ?? []), line]);
      } else {
        trailing.push(line); // a turn that ended before any entry of its own, or past them: at the end
      }
    }
    model.entries.forEach((entry, index) => {
      speak(entry.type === 'message' && entry.role === 'user' ? 'user' : 'agent');
      blocks.push(...entryBlocks(entry, input.cwd, model.terminals));
      blocks.push(...(ends.get(index) ?? []));
    });
    blocks.push(...trailing);
    if (model.plan.length > 0) blocks.push('## Plan', model.plan.map(planLine).join('\n'));
  }
  return `${withoutForeignHtml(blocks.filter((b) => b !== '').join('\n\n'))}\n`;
}

// ---- entries -------------------------------------------------------------------------------------------------------

function entryBlocks(entry: Entry, cwd: string, terminals: ReadonlyMap<string, TerminalState>): string[] {
  if (entry.type === 'tool') return toolBlocks(entry.call, cwd, terminals);
  if (entry.type === 'compaction') {
    const c = entry.compaction;
    const summary = c.summary.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return compactionBlocks(c.status, summary, c.error, c.tokensBefore, c.tokensAfter);
  }
  const { text, links } = messageParts(entry.role === 'user', entry.content);
  if (entry.role === 'thought') return [thinking(text, links)];
  return [entry.role === 'user' ? closeOpenFence(noHtml(text)) : quoted(text), attachments(links, entry.role === 'user' && !entry.sent)];
}

function storedBlocks(entry: StoredEntry): string[] {
  if (entry.t === 'tool') return [`### ${toolTitle(entry.title)}`, statusLine(entry.kind, entry.status)];
  if (entry.t === 'compaction') return compactionBlocks(entry.status, entry.text, entry.error, entry.before, entry.after);
  const links = (entry.links ?? []).map((l) => `- ${link(l.name, l.uri)}`);
  const text = noHtml(entry.text);
  if (entry.t === 'thought') return [thinking(text, links)];
  return [entry.t === 'user' ? closeOpenFence(text) : quoted(text), attachments(links, entry.t === 'user' && !entry.sent)];
}

/** A message's attachments as a list; a user's message as the agent recorded it says that its links are the agent's. */
function attachments(links: readonly string[], byAgent: boolean): string {
  return links.length > 0 && byAgent ? [`_Links as the agent recorded this message:_`, ...links].join('\n') : links.join('\n');
}

/**
 * A message's markdown and its attachments as list items. A user's links are attachments; an agent's links stay in
 * its text, where it put them. Embedded resources and media are named and linked, never written out.
 */
function messageParts(fromUser: boolean, content: readonly S.ContentBlock[]): { text: string; links: string[] } {
  let text = '';
  const links: string[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        text += noHtml(block.text); // before the links of ours go in: those are not the agent's HTML
        break;
      case 'resource_link':
        if (fromUser) links.push(`- ${link(block.title ?? block.name, block.uri)}`);
        else text += link(block.title ?? block.name, block.uri);
        break;
      case 'resource':
        links.push(`- ${link(nameOf(block.resource.uri), block.resource.uri)}`);
        break;
      case 'image':
        links.push(block.uri ? `- ${link(nameOf(block.uri), block.uri)}` : `- _image (${escapeInline(block.mimeType)})_`);
        break;
      case 'audio':
        links.push(`- _audio (${escapeInline(block.mimeType)})_`);
        break;
    }
  }
  return { text, links };
}

/** A thought, folded: readers want the answer first. A `</details>` in it would close the fold early. */
function thinking(text: string, links: readonly string[]): string {
  const body = [quoted(text), links.join('\n')].filter((b) => b !== '').join('\n\n');
  return `<details><summary>Thinking</summary>\n\n${body.replace(/<\/details/gi, '&lt;/details')}\n\n</details>`;
}

/** A compaction: what became of it, the tokens before and after, and its summary folded. */
function compactionBlocks(status: string, summary: string, error: string | undefined, before?: number, after?: number): string[] {
  const heading =
    status === 'completed'
      ? 'Context compacted'
      : status === 'failed'
        ? 'Context compaction failed'
        : status === 'cancelled'
          ? 'Context compaction cancelled'
          : 'Compacting context…';
  const count = (n: number) => n.toLocaleString('en-US');
  const blocks = [`### ${heading}`];
  if (before !== undefined && after !== undefined) blocks.push(`_Tokens: ${count(before)} → ${count(after)}_`);
  else if (before !== undefined) blocks.push(`_Tokens before: ${count(before)}_`);
  else if (after !== undefined) blocks.push(`_Tokens after: ${count(after)}_`);
  if (error) blocks.push(`_Error: ${escapeInline(oneLine(error))}_`);
  if (summary !== '')
    blocks.push(`<details><summary>Summary</summary>\n\n${quoted(noHtml(summary)).replace(/<\/details/gi, '&lt;/details')}\n\n</details>`);
  return blocks;
}

// ---- tool calls ----------------------------------------------------------------------------------------------------

function toolBlocks(call: ToolCallState, cwd: string, terminals: ReadonlyMap<string, TerminalState>): string[] {
  const blocks = [`### ${toolTitle(call.title)}`, statusLine(call.kind, call.status)];
  if (call.autoAnswer) blocks.push(`_Answered by the client: ${escapeInline(call.autoAnswer.optionName)} (${escapeInline(call.autoAnswer.reason)})_`);
  if (call.locations.length > 0)
    blocks.push(call.locations.map((l) => `- ${inlineCode(`${shortPath(l.path, cwd)}${l.line != null ? `:${l.line}` : ''}`)}`).join('\n'));
  for (const diff of diffsOf(call)) blocks.push(...diffBlocks(diff, cwd));
  for (const id of terminalIds(call, terminals)) blocks.push(...consoleBlocks(commandOf(call), terminals.get(id)));
  for (const c of call.content) {
    if (c.type !== 'content') continue;
    const { text, links } = messageParts(false, [c.content]);
    blocks.push(quoted(text), links.join('\n'));
  }
  return blocks;
}

/** A tool call's title as a heading: one line, without codicons (`$(check)`), never empty, its marks escaped. */
function toolTitle(title: string): string {
  return escapeInline(oneLine(title.replace(/\$\([\w~-]+\)/g, ''))) || 'Tool call';
}

/**
 * What the agent wrote, as a quote: none of its lines can start a heading of the document's own (a fake "## You"),
 * an HTML comment that hides the rest of the file, or a fence left open, since a quote ends where its lines do
 * (CommonMark closes an HTML block or a fence with the quote that holds it).
 */
function quoted(text: string): string {
  if (text === '') return '';
  // Every line ending CommonMark knows (a lone \r ends a line too), or a \r could start a line outside the quote.
  return closeOpenFence(text.replace(/\r\n?/g, '\n'))
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** `_Edit · completed_`: the kind and the status in words. */
function statusLine(kind: string, status: string): string {
  const words = (s: string) => escapeInline(s.replace(/_/g, ' '));
  const label = words(kind);
  return `_${label.charAt(0).toUpperCase()}${label.slice(1)} · ${words(status)}_`;
}

type DiffContent = ReturnType<typeof diffsOf>[number];

/** A unified diff of one file, the path as its header (`/dev/null` for a new file), bounded in lines. */
function diffBlocks(diff: DiffContent, cwd: string): string[] {
  const path = shortPath(diff.path, cwd);
  const created = diff.oldText == null;
  const oldText = diff.oldText ?? '';
  const patch =
    createTwoFilesPatch(created ? '/dev/null' : path, path, oldText, diff.newText, undefined, undefined, {
      headerOptions: FILE_HEADERS_ONLY,
      maxEditLength: MAX_EDIT_LENGTH,
      timeout: DIFF_TIMEOUT_MS,
    }) ?? wholeReplacement(path, oldText, diff.newText);
  const lines = patch.replace(/\n$/, '').split('\n');
  const more = lines.length - MAX_DIFF_LINES;
  const blocks = [fenced(lines.slice(0, MAX_DIFF_LINES).join('\n'), 'diff')];
  if (more > 0) blocks.push(`_… ${more} more lines_`);
  return blocks;
}

/** An edit too large to diff, as what it is: every old line removed, every new line added. */
function wholeReplacement(path: string, oldText: string, newText: string): string {
  const split = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const removed = split(oldText);
  const added = split(newText);
  return [
    `--- ${path}`,
    `+++ ${path}`,
    `@@ -${removed.length > 0 ? 1 : 0},${removed.length} +${added.length > 0 ? 1 : 0},${added.length} @@`,
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
  ].join('\n');
}

/** The command a tool call ran: its `rawInput.command` (a string, or argv joined), else its title. */
function commandOf(call: ToolCallState): string {
  const input = call.rawInput;
  const command = input && typeof input === 'object' ? (input as Record<string, unknown>)['command'] : undefined;
  if (typeof command === 'string' && command.trim() !== '') return command;
  if (Array.isArray(command) && command.length > 0 && command.every((a) => typeof a === 'string')) return command.map(shellWord).join(' ');
  return toolTitle(call.title);
}

/** An argv word as a shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command and the tail of its output (escape sequences removed) as a console block, then how it ended. */
function consoleBlocks(command: string, state: TerminalState | undefined): string[] {
  const output = plainTerminalText(state?.text ?? '').replace(/\n$/, '');
  const lines = output === '' ? [] : output.split('\n');
  const hidden = Math.max(0, lines.length - MAX_CONSOLE_LINES);
  const blocks: string[] = [];
  if (hidden > 0 || state?.truncated) blocks.push(hidden > 0 ? `_… ${hidden} earlier lines not shown_` : '_… earlier output not kept_');
  blocks.push(fenced([`$ ${command}`, ...lines.slice(hidden)].join('\n'), 'console'));
  const exit = state?.exitStatus;
  if (exit?.signal) blocks.push(`_Signal: ${escapeInline(exit.signal)}_`);
  else if (exit && exit.exitCode != null) blocks.push(`_Exit code: ${exit.exitCode}_`);
  return blocks;
}

// ---- the plan and the turns ----------------------------------------------------------------------------------------

function planLine(entry: S.PlanEntry): string {
  const box = entry.status === 'completed' ? '[x]' : '[ ]';
  return `- ${box} ${noHtml(oneLine(entry.content))}${entry.status === 'in_progress' ? ' _(in progress)_' : ''}`;
}

/** `_Stopped: cancelled_`, with what a reason means when that is not obvious. */
function stopLine(stopReason: string): string {
  const why = STOP_EXPLANATIONS[stopReason];
  return `_Stopped: ${escapeInline(oneLine(stopReason))}${why ? ` — ${why}` : ''}_`;
}

// ---- markdown safety -----------------------------------------------------------------------------------------------

/** A fenced code block whose fence is longer than any run of backticks in the text, so nothing inside can close it. */
export function fenced(text: string, lang: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Inline code that holds any text: a longer backtick string than any inside, padded when the text touches one. */
function inlineCode(text: string): string {
  const line = oneLine(text);
  const ticks = '`'.repeat(longestRun(line, '`') + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** A fence opening a code block (CommonMark: up to three spaces, three or more backticks or tildes). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The agent's markdown as it is, unless it leaves a code block open (a turn cut short): then the block is closed, so
 * the rest of the file is not swallowed into it.
 */
function closeOpenFence(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line);
    if (!match) continue;
    const fence = match[1] ?? '';
    const rest = match[2] ?? '';
    if (open === undefined) {
      if (!(fence.startsWith('`') && rest.includes('`'))) open = fence; // a backtick fence's info has no backtick
    } else if (fence[0] === open[0] && fence.length >= open.length && rest.trim() === '') {
      open = undefined;
    }
  }
  return open === undefined ? text : `${text}\n${open}`;
}

/**
 * Markdown with no raw HTML: outside fenced code and inline code, each `<` that could start a tag, a comment, a
 * declaration or an instruction is `&lt;`, which reads as `<` whether HTML is on or off. A code span that runs over
 * lines is not seen as one: a `<` in it shows as `&lt;`, which is safe.
 */
export function noHtml(text: string): string {
  let fence: string | undefined;
  // Every line ending CommonMark knows: a lone \r ends a line too, and fences are found by line.
  return text
    .split(/\r\n?|\n/)
    .map((line) => {
      const match = FENCE.exec(line);
      if (match && fence === undefined && !(match[1]!.startsWith('`') && match[2]!.includes('`'))) fence = match[1];
      else if (match && fence !== undefined && match[1]![0] === fence[0] && match[1]!.length >= fence.length && match[2]!.trim() === '')
        fence = undefined;
      else if (fence === undefined) return outsideCode(line);
      return line;
    })
    .join('\n');
}

/** One line of markdown with `<` escaped where it could open HTML, but inside a code span. Linear in the line. */
function outsideCode(line: string): string {
  if (!line.includes('<')) return line;
  // Where each run of backticks starts, by its length: a code span closes with the next run of its opener's length.
  const runs = new Map<number, { starts: number[]; next: number }>();
  for (const match of line.matchAll(/`+/g)) {
    const run = runs.get(match[0].length) ?? { starts: [], next: 0 };
    run.starts.push(match.index);
    runs.set(match[0].length, run);
  }
  let out = '';
  for (let i = 0; i < line.length;) {
    const c = line[i]!;
    if (c === '\\') {
      out += line.slice(i, i + 2); // an escaped character: an escaped backtick opens no code span
      i += 2;
    } else if (c === '`') {
      let length = 0;
      while (line[i + length] === '`') length++;
      const run = runs.get(length);
      while (run && run.next < run.starts.length && run.starts[run.next]! < i + length) run.next++;
      const close = run?.starts[run.next];
      const end = close === undefined ? i + length : close + length;
      out += line.slice(i, end);
      i = end;
    } else {
      out += c === '<' && /[A-Za-z/!?]/.test(line[i + 1] ?? '') ? '&lt;' : c;
      i++;
    }
  }
  return out;
}

/** The document's own HTML: the folds of thoughts and summaries, each on a line of its own. */
const OWN_HTML = /^(<details><summary>(Thinking|Summary)<\/summary>|<\/details>)$/;
const PASSES = 32;

/**
 * The document with no HTML but its own, as markdown-it (VS Code's preview) reads it with HTML on: noHtml's line
 * scan cannot see every construct (a backtick in a link's title, a fence that a list item closes), so each line where
 * a parser still finds HTML has its `<` escaped, code included, until none is found (each pass takes the `<` out of
 * at least one line; past PASSES, every line but our own).
 */
function withoutForeignHtml(doc: string): string {
  const lines = doc.split('\n');
  const parser = new MarkdownIt({ html: true });
  const escape = (line: number) => (lines[line] = lines[line]!.replace(/<(?=[A-Za-z/!?])/g, '&lt;'));
  for (let pass = 0; pass < PASSES; pass++) {
    const foreign = new Set<number>();
    for (const token of parser.parse(lines.join('\n'), {})) {
      const html = token.type === 'html_block' || (token.type === 'inline' && token.children?.some((c) => c.type === 'html_inline'));
      if (!html || !token.map) continue;
      for (let line = token.map[0]; line < token.map[1]; line++) if (!OWN_HTML.test(lines[line] ?? '')) foreign.add(line);
    }
    if (foreign.size === 0) return lines.join('\n');
    for (const line of foreign) escape(line);
  }
  lines.forEach((line, index) => OWN_HTML.test(line) || escape(index));
  return lines.join('\n');
}

/** `[text](<uri>)`: brackets in the text escaped, the target in angle brackets (spaces and brackets encoded). */
function link(text: string, uri: string): string {
  const label = noHtml(oneLine(text).replace(/[[\]\\]/g, (c) => `\\${c}`)) || uri;
  return `[${label}](<${uri.replace(/[<>\s]/g, encodeURIComponent)}>)`;
}

/** Text placed inside our own emphasis: the characters that would end or start markup there are escaped. */
function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `2026-01-02 03:04 UTC`: the same for every reader, whatever their time zone. */
function dateLine(date: Date): string {
  if (Number.isNaN(date.getTime())) return 'unknown date';
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
