// `acp.instructions`: the user's instructions for every session, appended to the agent's own where the agent takes
// them (`systemPrompt`). The value is the text itself, or the workspace-relative path of a file that holds it (read
// from disk each time a session opens, bounded, and only from inside the workspace).
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { checkPath } from '../common/paths';
import { workspaceRoots } from '../common/workspace';
import { SECTION } from '../ids';

/** Characters of instructions sent; a longer file or text is cut there, and the log says so. */
const MAX_INSTRUCTIONS = 64 * 1024;

/** The instructions to send, or undefined when there are none; `problem` says why a file named could not be used. */
export function readInstructions(): { readonly text?: string; readonly problem?: string } {
  const raw = vscode.workspace.getConfiguration(SECTION).get<unknown>('instructions');
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  const value = raw.trim();
  const file = looksLikePath(value) ? fileOf(value) : undefined;
  if (file?.problem) return { problem: file.problem };
  const text = file?.text ?? raw;
  return { text: text.length > MAX_INSTRUCTIONS ? text.slice(0, MAX_INSTRUCTIONS) : text };
}

/** One line, no spaces at its ends, and a file name's shape: read as a path rather than as text. */
function looksLikePath(value: string): boolean {
  return !/[\r\n]/.test(value) && value.length <= 1000 && /^[^\s].*\.[A-Za-z0-9]{1,10}$/.test(value) && !/\s{2}/.test(value);
}

function fileOf(value: string): { text?: string; problem?: string } | undefined {
  const roots = workspaceRoots();
  const first = roots[0];
  if (!first) return undefined;
  const path = isAbsolute(value) ? value : join(first, value);
  try {
    if (!statSync(path).isFile()) return undefined;
  } catch {
    return undefined; // no such file: the value is the text itself
  }
  if (checkPath(path, roots).kind !== 'inside')
    return { problem: vscode.l10n.t('acp.instructions names {0}, which is outside the workspace: no instructions were sent.', value) };
  try {
    const bytes = readFileSync(path);
    return { text: bytes.subarray(0, MAX_INSTRUCTIONS * 4).toString('utf8') };
  } catch (error) {
    return { problem: vscode.l10n.t('acp.instructions names {0}, which could not be read ({1}): no instructions were sent.', value, String(error)) };
  }
}
