// Writes an archive's members under one folder so that nothing is ever created or opened through a link: every
// folder on the way is looked at (lstat) as it is made, hard links name only files this same archive wrote, and
// symbolic links are made last, once every file and folder is in place, and kept only when what they point at,
// resolved on disk, stays inside. Whatever is refused, nothing was made outside the folder. Plain Node, synchronous
// (a tar's members arrive in a synchronous callback, and a hard link must find the file its archive wrote before it).
import { linkSync, lstatSync, mkdirSync, openSync, realpathSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';

/** A refusal: the sentence says which member and why. */
export class UnsafeArchiveError extends Error {
  override readonly name = 'UnsafeArchiveError';
}

export function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

const refused = (name: string, why: string) => new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" ${why}.`);

export class SafeTree {
  private readonly root: string;
  /** Members written as regular files, by their normalized name: the only things a hard link may name. */
  private readonly files = new Set<string>();
  /** Folders known to be real folders inside, by their normalized name ('' is the root). */
  private readonly folders = new Set<string>(['']);
  private readonly links: { readonly name: string; readonly target: string }[] = [];

  constructor(folder: string) {
    this.root = realpathSync.native(folder);
  }

  /** A folder member, and every folder above it. */
  folder(name: string): void {
    this.ensureFolders(this.parts(name), name);
  }

  /** Creates a file member (never one that exists, never through a link) and returns its descriptor, open for writing. */
  file(name: string, mode: number): number {
    const parts = this.parts(name);
    this.ensureFolders(parts.slice(0, -1), name);
    // `wx`: a member listed twice, or a name something already holds, is refused rather than written through.
    const fd = openSync(path.join(this.root, ...parts), 'wx', mode & 0o777);
    this.files.add(parts.join('/'));
    return fd;
  }

  /** A hard link: only to a regular file this archive wrote, named from the archive's root. */
  hardLink(name: string, target: string): void {
    const parts = this.parts(name);
    const targetParts = this.parts(target);
    if (!this.files.has(targetParts.join('/'))) throw refused(name, `is a hard link to "${short(target)}", which is not a file of this archive`);
    const targetPath = path.join(this.root, ...targetParts);
    if (!lstatSync(targetPath).isFile()) throw refused(name, `is a hard link to "${short(target)}", which is not a file`);
    this.ensureFolders(parts.slice(0, -1), name);
    linkSync(targetPath, path.join(this.root, ...parts));
    this.files.add(parts.join('/'));
  }

  /** A symbolic link, made by `finish` once everything else is written. */
  symlink(name: string, target: string): void {
    this.parts(name);
    if (target.length === 0) throw refused(name, 'is a link with no target');
    if (/^[A-Za-z]:/.test(target) || target.startsWith('/') || target.startsWith('\\'))
      throw refused(name, `links to an absolute path (${short(target)})`);
    this.links.push({ name, target: target.replace(/\\/g, '/') });
  }

  /**
   * Makes the symbolic links, then checks each against the disk: it must resolve, through every link on the way, to
   * something inside the folder. One that does not (outside, missing, or a loop) refuses the archive; the caller
   * removes the folder. Nothing is created through a link, so a link that points outside harms nothing while it exists.
   */
  finish(): void {
    const made: string[] = [];
    for (const link of this.links) {
      const parts = this.parts(link.name);
      this.ensureFolders(parts.slice(0, -1), link.name);
      const at = path.join(this.root, ...parts);
      try {
        symlinkSync(link.target, at);
      } catch (error) {
        throw refused(link.name, `could not be made (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
      made.push(at);
    }
    this.links.forEach((link, i) => {
      let real: string;
      try {
        // The OS's own resolution: Node's JS realpath folds `a/link/..` to `a` before it follows `link`.
        real = realpathSync.native(made[i]!);
      } catch {
        throw refused(link.name, `links to "${short(link.target)}", which is not in the archive`);
      }
      if (!this.contains(real)) throw refused(link.name, `links outside the folder (${short(link.target)})`);
    });
  }

  /** The member's name as checked components: no empty name, no `..`, no absolute start; either separator. */
  private parts(name: string): string[] {
    const parts = name
      .replace(/\\/g, '/')
      .split('/')
      .filter((p) => p !== '' && p !== '.');
    if (parts.length === 0) throw refused(name, 'has no name');
    if (parts.includes('..')) throw refused(name, 'climbs out of the folder with ".."');
    if (/^[A-Za-z]:/.test(name) || name.startsWith('/') || name.startsWith('\\')) throw refused(name, 'has an absolute path');
    return parts;
  }

  /** Makes each folder of `parts` in turn, refusing one that exists as anything but a real folder (a link above all). */
  private ensureFolders(parts: readonly string[], member: string): void {
    let at = this.root;
    for (let i = 0; i < parts.length; i++) {
      const key = parts.slice(0, i + 1).join('/');
      at = path.join(at, parts[i]!);
      if (this.folders.has(key)) continue;
      let stat;
      try {
        stat = lstatSync(at);
      } catch {
        mkdirSync(at, 0o755);
        stat = lstatSync(at);
      }
      if (stat.isSymbolicLink()) throw refused(member, 'would be written through a link');
      if (!stat.isDirectory()) throw refused(member, `would be written under "${short(key)}", which is not a folder`);
      this.folders.add(key);
    }
  }

  private contains(real: string): boolean {
    const relative = path.relative(this.root, real);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  }
}
