// `acp.instructions`: the user's instructions for every session, appended to the agent's own where the agent takes
// them (`systemPrompt`). The value is the text itself, or the workspace-relative path of a file that holds it (read
// from disk each time a session opens, bounded, and only from inside the workspace). A workspace's own value counts
// only once it is trusted (restrictedConfigurations), as VS Code's trust says; agents do not run before anyway.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
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
  const verdict = checkPath(path, roots);
  if (verdict.kind !== 'inside')
    return { problem: vscode.l10n.t('acp.instructions names {0}, which is outside the workspace: no instructions were sent.', value) };
  try {
    // At most what is sent (four bytes a character at worst): a large file is never read whole.
    const buffer = Buffer.alloc(MAX_INSTRUCTIONS * 4);
    // The path that was checked, resolved, opened without following a link put there since, and without waiting on a
    // FIFO put there since (which would hold the extension host): what is opened must be a regular file.
    const flags = process.platform === 'win32' ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
    const fd = openSync(verdict.path, flags);
    try {
      if (!fstatSync(fd).isFile())
        return { problem: vscode.l10n.t('acp.instructions names {0}, which is not a regular file: no instructions were sent.', value) };
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      return {
        text: buffer
          .subarray(0, read)
          .toString('utf8')
          .replace(/\ufffd$/, ''),
      };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { problem: vscode.l10n.t('acp.instructions names {0}, which could not be read ({1}): no instructions were sent.', value, String(error)) };
  }
}
