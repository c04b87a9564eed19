// VS Code's prompt files (`*.prompt.md`): an optional YAML-ish front matter, then a markdown body with variables
// (`${input:name}`, `${input:name:placeholder}`, `${selection}`, `${file}`, ...). Pure: no `vscode`, no disk; the host
// reads the file, asks the user for the inputs and hands over the editor's context.
//
// The front matter is read with a few lines of code rather than a YAML library: only `description` is used, and a
// prompt file is text the user (or a repository they cloned) wrote, so whatever it holds must never throw here.
import { trimTrailing } from '../acp/text';

export interface PromptFile {
  /** The file name without `.prompt.md`: what the user picks it by. */
  readonly name: string;
  readonly description?: string;
  readonly body: string;
  /** The `${input:…}` variables of the body, each name once, in the order they first appear. */
  readonly inputs: readonly PromptInput[];
}

interface PromptInput {
  readonly name: string;
  readonly placeholder?: string;
}

/** The editor's context a prompt's variables are filled from. */
export interface PromptContext {
  readonly selection?: string;
  /** The active file's path. */
  readonly file?: string;
  readonly workspaceFolder?: string;
}

const SUFFIX = '.prompt.md';
/** Bytes of a prompt file read (UTF-8); the rest is cut, with a note, so a huge file cannot become a huge prompt. */
export const MAX_PROMPT_BYTES = 256 * 1024;
/** Inputs asked of the user at most: each is a question in a row of input boxes. */
export const MAX_PROMPT_INPUTS = 20;
/** A description is shown on one line of a picker. */
export const MAX_DESCRIPTION_CHARS = 200;
/** A name or placeholder is shown in an input box's prompt; longer ones are cut. */
const MAX_INPUT_NAME_CHARS = 100;
const MAX_PLACEHOLDER_CHARS = 200;

/** The note appended to a body cut at the bound. */
export const CUT_NOTE = `\n\n… (the prompt file was cut at ${MAX_PROMPT_BYTES / 1024} KB)`;

/** Whether a file name (or a path's last segment) is a prompt file's name: `<something>.prompt.md`. */
export function isPromptFileName(name: string): boolean {
  const base = baseName(name);
  return base.length > SUFFIX.length && base.toLowerCase().endsWith(SUFFIX);
}

/** Parses a prompt file's text. Never throws: malformed front matter is treated as body text. */
export function parsePromptFile(fileName: string, text: string): PromptFile {
  const base = baseName(fileName);
  const name = base.toLowerCase().endsWith(SUFFIX) ? base.slice(0, -SUFFIX.length) : base;
  // One line ending for everything after: front matter lines and the body the agent receives.
  const normalized = cutToBytes(text.replace(/^\ufeff/, ''), MAX_PROMPT_BYTES).replace(/\r\n?/g, '\n');
  const { description, body } = splitFrontMatter(normalized);
  return { name, ...(description ? { description } : {}), body, inputs: inputsOf(body) };
}

/**
 * The body with each `${input:…}` replaced by `values[name]` (every occurrence of a name gets the same value; a
 * missing one becomes empty) and the context variables filled from `context` (missing ones become empty). Unknown
 * `${…}` stay as they are. One pass: a value that itself holds `${…}` is not expanded again.
 */
export function fillPrompt(file: PromptFile, values: Readonly<Record<string, string>>, context: PromptContext): string {
  return file.body.replace(VARIABLE, (whole, inner: string) => {
    const input = parseInput(inner);
    if (input) return Object.prototype.hasOwnProperty.call(values, input.name) ? (values[input.name] ?? '') : '';
    const filled = contextVariable(inner, context);
    return filled ?? whole;
  });
}

// ---- front matter --------------------------------------------------------------------------------------------------

/** A top-level `key: value` line of the front matter. */
const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:(.*)$/;

function splitFrontMatter(text: string): { description?: string; body: string } {
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== '---') return { body: text };
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  if (end < 0) return { body: text }; // unterminated: not front matter at all
  const fields = readFields(lines.slice(1, end));
  if (!fields) return { body: text };
  const raw = fields.get('description');
  const description = raw === undefined ? undefined : oneLine(raw, MAX_DESCRIPTION_CHARS);
  return { ...(description ? { description } : {}), body: lines.slice(end + 1).join('\n') };
}

/**
 * The top-level scalar fields, or undefined when a line is neither a field, an indented continuation (lists, block
 * scalars), a list item, a comment nor blank: such a block was not meant as front matter.
 */
function readFields(lines: readonly string[]): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '' || /^\s/.test(line) || line.startsWith('#') || line.startsWith('-')) continue;
    const match = KEY_LINE.exec(line);
    if (!match) return undefined;
    const key = match[1] ?? '';
    let value = stripComment((match[2] ?? '').trim());
    if (/^[|>][+-]?$/.test(value)) {
      // A block scalar: the indented lines that follow, joined (a description is one line anyway).
      const block: string[] = [];
      while (i + 1 < lines.length && (/^\s/.test(lines[i + 1] ?? '') || (lines[i + 1] ?? '').trim() === '')) block.push((lines[++i] ?? '').trim());
      value = block.join(' ');
    } else {
      value = unquote(value);
    }
    if (!fields.has(key)) fields.set(key, value);
  }
  return fields;
}

/** `'it''s'` → `it's`, `"say \"hi\""` → `say "hi"`; an unquoted value as it is. */
function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
    return value.slice(1, -1).replace(/\\(["\\nt])/g, (_, c: string) => (c === 'n' ? ' ' : c === 't' ? '\t' : c));
  return value;
}

/** YAML comments start with ` #` outside quotes; a quoted value keeps its `#`. */
function stripComment(value: string): string {
  if (value.startsWith('"') || value.startsWith("'")) return value;
  const at = value.search(/\s#/);
  return at < 0 ? value : value.slice(0, at).trimEnd();
}

// ---- variables -----------------------------------------------------------------------------------------------------

/** `${…}` without nested braces: linear, and an odd `$${input:x}` or `${` without an end simply does not match more. */
const VARIABLE = /\$\{([^{}\n]*)\}/g;

function parseInput(inner: string): PromptInput | undefined {
  if (!inner.startsWith('input:')) return undefined;
  const rest = inner.slice('input:'.length);
  const colon = rest.indexOf(':');
  const name = (colon < 0 ? rest : rest.slice(0, colon)).trim();
  if (name === '') return undefined;
  const placeholder = colon < 0 ? '' : rest.slice(colon + 1).trim();
  return { name, ...(placeholder ? { placeholder } : {}) };
}

/** Each input name once, first occurrence first; a later occurrence may give the placeholder the first lacked. */
function inputsOf(body: string): PromptInput[] {
  const byName = new Map<string, PromptInput>();
  for (const match of body.matchAll(VARIABLE)) {
    const input = parseInput(match[1] ?? '');
    if (!input) continue;
    const known = byName.get(input.name);
    if (known) {
      if (!known.placeholder && input.placeholder) byName.set(input.name, input);
      continue;
    }
    if (byName.size >= MAX_PROMPT_INPUTS) continue; // later names are filled with their value, or emptied
    byName.set(input.name, input);
  }
  return [...byName.values()].map((input) => ({
    name: oneLine(input.name, MAX_INPUT_NAME_CHARS),
    ...(input.placeholder ? { placeholder: oneLine(input.placeholder, MAX_PLACEHOLDER_CHARS) } : {}),
  }));
}

/** The value of a context variable, or undefined for a name this module does not know. */
function contextVariable(name: string, context: PromptContext): string | undefined {
  const file = context.file ?? '';
  const folder = context.workspaceFolder ?? '';
  switch (name) {
    case 'selection':
    case 'selectedText':
      return context.selection ?? '';
    case 'file':
      return file;
    case 'fileBasename':
      return baseName(file);
    case 'fileBasenameNoExtension': {
      const base = baseName(file);
      const dot = base.lastIndexOf('.');
      return dot > 0 ? base.slice(0, dot) : base;
    }
    case 'fileDirname':
      return dirName(file);
    case 'workspaceFolder':
      return folder;
    case 'workspaceFolderBasename':
      return baseName(folder);
    default:
      return undefined;
  }
}

// ---- helpers -------------------------------------------------------------------------------------------------------

/** The last segment of a path, POSIX or Windows (the host may be either). */
function baseName(path: string): string {
  const trimmed = trimTrailing(path, '\\/');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1);
}

function dirName(path: string): string {
  const trimmed = trimTrailing(path, '\\/');
  const at = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return at < 0 ? '' : at === 0 ? trimmed.slice(0, 1) : trimmed.slice(0, at);
}

/** Whitespace collapsed to single spaces, cut to `max` characters with an ellipsis. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The text cut to `max` UTF-8 bytes (never inside a character), with a note that it was. */
function cutToBytes(text: string, max: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: text this short cannot be over the bound, and needs no encoding.
  if (text.length * 3 <= max) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  const kept = trimTrailing(new TextDecoder().decode(bytes.subarray(0, max)), '\ufffd');
  return kept + CUT_NOTE;
}
