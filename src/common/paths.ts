// Where an agent may read and write. A path must be absolute; `..` is resolved, and so are symlinks at every level,
// dangling or not, before it is compared with the workspace folders: a link inside the workspace that points outside
// is outside, whether or not its target exists yet (a cloned repository can carry one). The agent is not trusted,
// so the work is bounded: a path longer than MAX_PATH_LENGTH is refused, the walk is one pass over the components,
// and at most MAX_LINKS links are followed. No `vscode` import: unit-tested in plain Node.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

export type PathVerdict =
  | { readonly kind: 'inside'; readonly path: string }
  | { readonly kind: 'outside'; readonly path: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** The longest path an agent may give (Linux's PATH_MAX; Windows long paths are longer, but no agent needs more). */
const MAX_PATH_LENGTH = 4096;
/** Symlinks followed for one path before giving up, as the kernel does with ELOOP. */
export const MAX_LINKS = 40;
/** How much of a refused path a reason quotes. */
const PREVIEW = 80;

/**
 * Resolves `..` and symlinks through every level, like realpath(3), but also for a path that does not exist: a
 * dangling link's target is resolved (relative to the link's folder) and the walk goes on from there, and a missing
 * tail is kept as written under its real parent. Undefined when the path cannot be resolved: a link loop, more than
 * MAX_LINKS links, or a component that cannot be examined (no permission, a name too long).
 */
export function realPath(p: string): string | undefined {
  const resolved = path.resolve(p);
  try {
    return realpathSync.native(resolved); // the whole path exists: one call
  } catch {
    return walk(resolved);
  }
}

function walk(resolved: string): string | undefined {
  let root = path.parse(resolved).root;
  let real: string[] = []; // the real components under `root` so far
  const pending = components(resolved.slice(root.length)).reverse(); // what is left, next last
  let links = 0;
  let missing = false; // below a missing folder nothing exists, so nothing is a link
  const here = () => root + real.join(path.sep);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name === '..') {
      real.pop();
      continue;
    }
    real.push(name);
    if (missing) continue;
    let isLink: boolean;
    try {
      isLink = lstatSync(here()).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
      missing = true;
      continue;
    }
    if (!isLink) continue;
    if (++links > MAX_LINKS) return undefined;
    let target: string;
    try {
      target = readlinkSync(here());
    } catch {
      return undefined;
    }
    real.pop(); // the link is replaced by its target, read from the link's folder
    if (path.isAbsolute(target)) {
      const absolute = path.resolve(target);
      root = path.parse(absolute).root;
      real = [];
      target = absolute.slice(root.length);
    }
    const next = components(target);
    for (let i = next.length - 1; i >= 0; i--) pending.push(next[i]!);
  }
  return here();
}

// Windows takes either slash; elsewhere a backslash is part of a name.
const SEPARATORS = path.sep === '\\' ? /[\\/]/ : /\//;

/** A relative path's names, without empty ones and `.` (`..` is kept: it is resolved against the real folder). */
function components(relative: string): string[] {
  return relative.split(SEPARATORS).filter((name) => name !== '' && name !== '.');
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

/** The `\\server\share` a Windows path is on, lower-cased, or undefined for a path on a drive. */
function shareOf(p: string): string | undefined {
  const match = /^[\\/]{2}([^\\/?.][^\\/]*)[\\/]+([^\\/]+)/.exec(p);
  return match ? `${match[1]}\\${match[2]}`.toLowerCase() : undefined;
}

/**
 * Windows only (`p` is a win32 path when `pathModule` is path.win32): why a path is refused before anything touches
 * it, or undefined. A device path (`\\.\`, `\\?\`) is not a file of the workspace; a UNC path
 * (`\\server\share\…`) reaches that machine as soon as it is resolved, which hands it the user's credentials, so it
 * is taken only on the share of a workspace folder, compared as text.
 */
export function networkPathRefusal(p: string, roots: readonly string[], pathModule: typeof path.win32 = path): string | undefined {
  if (pathModule.sep !== '\\' || !/^[\\/]{2}/.test(p)) return undefined;
  if (/^[\\/]{2}[?.]([\\/]|$)/.test(p)) return `a device path is not a file of the workspace: ${preview(p)}`;
  const share = shareOf(p);
  if (share !== undefined && roots.some((root) => shareOf(root) === share)) return undefined;
  return `the path is on another machine, outside the workspace's share: ${preview(p)}`;
}

/**
 * Checks an agent's path against the workspace folders (given as they are; they are resolved here too). A path that
 * cannot be resolved is outside: the user is asked, or it is refused, like any other outside path.
 */
export function checkPath(p: unknown, roots: readonly string[]): PathVerdict {
  if (typeof p !== 'string' || p === '') return { kind: 'invalid', reason: 'the path is empty' };
  if (p.length > MAX_PATH_LENGTH) return { kind: 'invalid', reason: `the path is longer than ${MAX_PATH_LENGTH} characters: ${preview(p)}` };
  if (p.includes('\0')) return { kind: 'invalid', reason: 'the path contains a NUL character' };
  if (!path.isAbsolute(p)) return { kind: 'invalid', reason: `the path must be absolute: ${preview(p)}` };
  const network = networkPathRefusal(p, roots);
  if (network) return { kind: 'invalid', reason: network };
  const real = realPath(p);
  if (real === undefined) return { kind: 'outside', path: path.resolve(p) };
  const inside = roots.some((root) => {
    const realRoot = realPath(root);
    return realRoot !== undefined && isWithin(realRoot, real);
  });
  return { kind: inside ? 'inside' : 'outside', path: real };
}

function preview(p: string): string {
  return p.length > PREVIEW ? `${p.slice(0, PREVIEW)}…` : p;
}
