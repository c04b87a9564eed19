// Transcripts of what real agents send (test/fixtures/transcripts/*.jsonl): one message per line,
// `{"method": "session/update" | "session/request_permission", "params": {...}}`.
//
// A line that is deliberately NOT conformant to the ACP schema carries `"quirk": "<kind>: <what is off>"`, where
// <kind> says what a tolerant client does with it:
//   legacy        older field names (tool_call id/name/arguments, status "success", output): mapped
//   unknown-kind  a sessionUpdate kind ACP v1 does not have: skipped
//   invalid-value an optional field with a wrong value: the field is dropped (with a warning), the message kept
//   invalid-item  an invalid item in a list: the item is dropped (with a warning), the message kept
// A conformant line may carry `"note"`: a behaviour of the real agent worth knowing (a tool call announced twice,
// an id never announced, ...). Notes never make a line non-conformant.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

type TranscriptMethod = 'session/update' | 'session/request_permission';
export type QuirkKind = 'legacy' | 'unknown-kind' | 'invalid-value' | 'invalid-item';
const QUIRK_KINDS: readonly QuirkKind[] = ['legacy', 'unknown-kind', 'invalid-value', 'invalid-item'];

export interface TranscriptLine {
  readonly method: TranscriptMethod;
  readonly params: Record<string, unknown>;
  /** Present on lines that are deliberately not conformant: `<QuirkKind>: <what is off>`. */
  readonly quirk?: string;
  /** A real-agent behaviour this (conformant) line shows. */
  readonly note?: string;
  /** 1-based line number in the file, for messages. */
  readonly line: number;
}

/** The transcripts that exist, by name. */
export const TRANSCRIPT_NAMES = ['gemini', 'claude', 'codex'] as const;
export type TranscriptName = (typeof TRANSCRIPT_NAMES)[number];

let root: string | undefined;

/** The repository root: the nearest directory above this file that holds package.json. */
export function repoRoot(): string {
  if (root) return root;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`no package.json above ${__dirname}`);
  }
}

/** The kind of a quirk line (`legacy`, `unknown-kind`, ...), or undefined for a conformant line. */
export function quirkKind(line: { readonly quirk?: string }): QuirkKind | undefined {
  if (line.quirk === undefined) return undefined;
  const kind = line.quirk.slice(0, line.quirk.indexOf(':'));
  if (!(QUIRK_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown quirk kind in ${JSON.stringify(line.quirk)}`);
  return kind as QuirkKind;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads test/fixtures/transcripts/<name>.jsonl. Every call returns fresh objects, so callers may mutate them.
 * Throws on a line that is not a well-formed transcript line.
 */
export function loadTranscript(name: TranscriptName | (string & {})): TranscriptLine[] {
  const file = join(repoRoot(), 'test', 'fixtures', 'transcripts', name.endsWith('.jsonl') ? name : `${name}.jsonl`);
  const lines: TranscriptLine[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      const where = `${file}:${index + 1}`;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        throw new Error(`${where}: not JSON: ${(error as Error).message}`);
      }
      if (!isObject(raw)) throw new Error(`${where}: not an object`);
      const { method, params, quirk, note, ...rest } = raw;
      if (method !== 'session/update' && method !== 'session/request_permission') throw new Error(`${where}: unexpected method ${String(method)}`);
      if (!isObject(params)) throw new Error(`${where}: params is not an object`);
      if (quirk !== undefined && typeof quirk !== 'string') throw new Error(`${where}: quirk is not a string`);
      if (note !== undefined && typeof note !== 'string') throw new Error(`${where}: note is not a string`);
      if (Object.keys(rest).length) throw new Error(`${where}: unexpected keys ${Object.keys(rest).join(', ')}`);
      const line: TranscriptLine = {
        method,
        params,
        line: index + 1,
        ...(quirk !== undefined ? { quirk } : {}),
        ...(note !== undefined ? { note } : {}),
      };
      quirkKind(line);
      lines.push(line);
    });
  return lines;
}
