// Where an agent may read and write. A path must be absolute; `..` is resolved, and so are symlinks (of the path, or
// of its nearest existing folder for a file that does not exist yet), before it is compared with the workspace
// folders. No `vscode` import: unit-tested in plain Node.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';

export type PathVerdict =
  | { readonly kind: 'inside'; readonly path: string }
  | { readonly kind: 'outside'; readonly path: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Resolves `..` and symlinks. A missing tail is kept as written under its nearest existing (real) folder. */
export function realPath(p: string, realpath: (p: string) => string = realpathSync.native): string {
  const resolved = path.resolve(p);
  const missing: string[] = [];
  let current = resolved;
  for (;;) {
    try {
      return path.join(realpath(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return resolved;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

const caseInsensitive = process.platform === 'win32' || process.platform === 'darwin';

/** True when `child` is `root` or inside it. Both must be resolved already. */
export function isWithin(root: string, child: string): boolean {
  const a = caseInsensitive ? root.toLowerCase() : root;
  const b = caseInsensitive ? child.toLowerCase() : child;
  if (a === b) return true;
  const prefix = a.endsWith(path.sep) ? a : a + path.sep;
  return b.startsWith(prefix);
}

/** Checks an agent's path against the workspace folders (given as they are; they are resolved here too). */
export function checkPath(p: unknown, roots: readonly string[], realpath?: (p: string) => string): PathVerdict {
  if (typeof p !== 'string' || p === '') return { kind: 'invalid', reason: 'the path is empty' };
  if (p.includes('\0')) return { kind: 'invalid', reason: 'the path contains a NUL character' };
  if (!path.isAbsolute(p)) return { kind: 'invalid', reason: `the path must be absolute: ${p}` };
  const real = realPath(p, realpath);
  const inside = roots.some((root) => isWithin(realPath(root, realpath), real));
  return { kind: inside ? 'inside' : 'outside', path: real };
}
