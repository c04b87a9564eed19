// Paths in and out of the editor's tools. In: workspace-relative (in a multi-root workspace, the first folder that has
// it, or one named by its first segment), or absolute; either way it must be inside the session's folders, links
// resolved, as the path policy decides for `fs/*`. Out: relative to the folder that holds it, else absolute. Plain Node.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { checkPath, isWithin } from '../common/paths';

/** The absolute path `given` names inside `folders`, or a sentence saying why it names none. */
export function toolPath(given: string, folders: readonly string[]): { path: string } | { error: string } {
  if (folders.length === 0) return { error: 'There is no workspace folder for paths to be in.' };
  let candidate: string;
  if (path.isAbsolute(given)) candidate = given;
  else {
    const named = folders.find((f) => given.split(/[\\/]/)[0] === path.basename(f));
    const candidates = [...folders.map((f) => path.join(f, given)), ...(named ? [path.join(named, given.split(/[\\/]/).slice(1).join('/'))] : [])];
    candidate = candidates.find((c) => existsSync(c)) ?? candidates[0]!;
  }
  const verdict = checkPath(candidate, folders);
  if (verdict.kind === 'invalid') return { error: `The path is not valid: ${verdict.reason}.` };
  // Whether a file outside exists is not said either.
  if (verdict.kind === 'outside') return { error: `${given} is outside this session's workspace.` };
  // The path with its links resolved, as checked: a link swapped in after the check cannot take it elsewhere.
  return { path: verdict.path };
}

/** `absolute` as a tool shows it: relative to the session's folder that holds it (with `/`), else as it is. */
export function shownPath(absolute: string, folders: readonly string[]): string {
  const folder = folders.find((f) => isWithin(f, absolute));
  if (!folder) return absolute;
  const rel = path.relative(folder, absolute).split(path.sep).join('/');
  return folders.length > 1 ? `${path.basename(folder)}/${rel}` : rel;
}
