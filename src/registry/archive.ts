// Extracting a downloaded agent: `.zip` (yauzl), `.tar.gz`/`.tgz`/`.tar.bz2`/`.tbz2`/`.tar` (node-tar, with
// unbzip2-stream for bzip2), or a raw executable. Every archive is read twice: first every member is checked (its
// path stays inside the folder, links point inside, no devices, the total size and count are bounded), and only an
// archive that passes all of it is written. One bad member fails the whole install. Plain Node.
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar';
import bz2 from 'unbzip2-stream';
import * as yauzl from 'yauzl';
import { SafeTree, short, UnsafeArchiveError } from './safeTree';

export { UnsafeArchiveError } from './safeTree';

export type ArchiveKind = 'zip' | 'tar.gz' | 'tar.bz2' | 'tar' | 'raw';

export interface ExtractBounds {
  /** The most bytes all members may add up to (and the most a tar stream may decompress to). */
  readonly maxBytes: number;
  /** The most members. */
  readonly maxMembers: number;
}

class CorruptArchiveError extends Error {
  override readonly name = 'CorruptArchiveError';
}

/** What the archive's URL says it is. Anything without a known archive suffix is the executable itself. */
export function archiveKind(url: string): ArchiveKind | { unsupported: string } {
  const name = new URL(url).pathname.toLowerCase();
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar.bz2') || name.endsWith('.tbz2') || name.endsWith('.tbz')) return 'tar.bz2';
  if (name.endsWith('.tar')) return 'tar';
  for (const suffix of ['.tar.xz', '.txz', '.tar.zst', '.7z', '.rar', '.gz', '.bz2', '.xz']) {
    if (name.endsWith(suffix)) return { unsupported: suffix };
  }
  return 'raw';
}

/**
 * Why a member's name may not be written under the install folder, or undefined when it may. Both separators count,
 * so a name cannot climb out on either OS; a drive letter or a UNC start is as absolute as a leading slash.
 */
export function unsafeMemberName(name: string): string | undefined {
  if (name.length === 0) return 'has no name';
  if (name.length > 1024) return 'has a name over 1,024 characters';
  if (name.includes('\0')) return 'has a NUL character in its name';
  if (/^[A-Za-z]:/.test(name)) return 'names a drive';
  if (name.startsWith('/') || name.startsWith('\\')) return 'has an absolute path';
  if (name.split(/[\\/]+/).includes('..')) return 'climbs out of the folder with ".."';
  return undefined;
}

/** Why a link at `member` pointing at `target` leaves the folder, or undefined. `relativeTo` is 'member' for symlinks, 'root' for hard links. */
export function unsafeLinkTarget(member: string, target: string, relativeTo: 'member' | 'root'): string | undefined {
  if (target.length === 0) return 'is a link with no target';
  if (/^[A-Za-z]:/.test(target) || target.startsWith('/') || target.startsWith('\\')) return `links to an absolute path (${short(target)})`;
  const base = relativeTo === 'member' ? path.posix.dirname(member.replace(/\\/g, '/')) : '.';
  const resolved = path.posix.normalize(path.posix.join(base, target.replace(/\\/g, '/')));
  if (resolved === '..' || resolved.startsWith('../')) return `links outside the folder (${short(target)})`;
  return undefined;
}

/** Checks the file's first bytes against what its URL claimed, so a wrong or damaged file fails with a sentence. */
async function checkMagic(file: string, kind: ArchiveKind): Promise<void> {
  const handle = await fs.open(file, 'r');
  const head = Buffer.alloc(4);
  try {
    await handle.read(head, 0, 4, 0);
  } finally {
    await handle.close();
  }
  const is = (bytes: number[]) => bytes.every((b, i) => head[i] === b);
  const ok = kind === 'zip' ? is([0x50, 0x4b]) : kind === 'tar.gz' ? is([0x1f, 0x8b]) : kind === 'tar.bz2' ? is([0x42, 0x5a, 0x68]) : true;
  if (!ok) throw new CorruptArchiveError(`the download is not a ${kind} archive`);
}

/**
 * Extracts `file` (downloaded from a URL that said `kind`) into `folder`, which must exist and be empty. For a raw
 * executable, `rawName` is the name it gets there. Throws UnsafeArchiveError or CorruptArchiveError with a sentence.
 */
export async function extract(file: string, kind: ArchiveKind, folder: string, bounds: ExtractBounds, rawName: string): Promise<void> {
  await checkMagic(file, kind);
  if (kind === 'raw') {
    const problem = unsafeMemberName(rawName);
    if (problem) throw new UnsafeArchiveError(`The registry's command "${short(rawName)}" cannot be placed: it ${problem}.`);
    const size = (await fs.stat(file)).size;
    if (size > bounds.maxBytes) throw new UnsafeArchiveError(`The executable is over the limit of ${mb(bounds.maxBytes)}.`);
    const target = path.join(folder, rawName);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(file, target);
    return;
  }
  if (kind === 'zip') {
    await scanZip(file, bounds);
    await extractZip(file, folder, bounds);
    return;
  }
  await scanTar(file, kind, bounds);
  await extractTar(file, kind, folder, bounds);
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

// ---- tar ----

/** The archive's bytes, decompressed, with the decompressed total bounded (a bomb stops at the bound). */
function tarStream(file: string, kind: 'tar.gz' | 'tar.bz2' | 'tar', bounds: ExtractBounds): Readable {
  // Headers and padding add to the members' sizes: allow for them.
  const limit = bounds.maxBytes + (bounds.maxMembers + 2) * 1024;
  let total = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limit) done(new UnsafeArchiveError(`The archive unpacks to more than ${mb(bounds.maxBytes)}.`));
      else done(null, chunk);
    },
  });
  const source = createReadStream(file);
  const fail = (error: unknown) =>
    counter.destroy(error instanceof UnsafeArchiveError ? error : new CorruptArchiveError(`the archive is damaged (${messageOf(error)})`));
  source.on('error', fail);
  if (kind === 'tar') return source.pipe(counter);
  const decompress = kind === 'tar.gz' ? createGunzip() : (bz2() as unknown as NodeJS.ReadWriteStream);
  decompress.on('error', fail);
  source.pipe(decompress).pipe(counter);
  return counter;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const TAR_TYPES_ALLOWED = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link', 'GNUDumpDir']);

async function scanTar(file: string, kind: 'tar.gz' | 'tar.bz2' | 'tar', bounds: ExtractBounds): Promise<void> {
  let members = 0;
  let bytes = 0;
  let refusal: UnsafeArchiveError | undefined;
  const refuse = (name: string, why: string) => {
    refusal ??= new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" ${why}.`);
  };
  const parser = new tar.Parser({
    strict: true,
    onReadEntry: (entry) => {
      entry.resume();
      if (refusal) return;
      members++;
      bytes += entry.size ?? 0;
      const name = entry.path;
      if (members > bounds.maxMembers) refusal = new UnsafeArchiveError(`The archive has more than ${bounds.maxMembers} members.`);
      else if (bytes > bounds.maxBytes) refusal = new UnsafeArchiveError(`The archive unpacks to more than ${mb(bounds.maxBytes)}.`);
      else if (!TAR_TYPES_ALLOWED.has(entry.type)) refuse(name, `is a ${entry.type}, not a file, folder or link`);
      else {
        const problem = unsafeMemberName(name);
        if (problem) refuse(name, problem);
        else if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
          const linkProblem = unsafeLinkTarget(name, entry.linkpath ?? '', entry.type === 'SymbolicLink' ? 'member' : 'root');
          if (linkProblem) refuse(name, linkProblem);
        }
      }
    },
  });
  try {
    await consume(tarStream(file, kind, bounds), parser, 'end');
  } catch (error) {
    // A refused member says more than the damage the parser met after it (a bomb's header is followed by nothing).
    throw refusal ?? error;
  }
  if (refusal) throw refusal;
  if (members === 0) throw new CorruptArchiveError('the archive is empty or not a tar archive');
}

async function extractTar(file: string, kind: 'tar.gz' | 'tar.bz2' | 'tar', folder: string, bounds: ExtractBounds): Promise<void> {
  // node-tar reads the format; the members are written here, by the same SafeTree as a zip's (node-tar's own Unpack
  // can stall on a link to a file in a sibling folder, and follows links it made itself).
  const writes: Promise<void>[] = [];
  let failure: unknown;
  const tree = new SafeTree(folder);
  const parser = new tar.Parser({
    strict: true,
    onReadEntry: (entry) => {
      if (failure) {
        entry.resume();
        return;
      }
      try {
        if (entry.type === 'Directory' || entry.type === 'GNUDumpDir') tree.folder(entry.path);
        else if (entry.type === 'SymbolicLink') tree.symlink(entry.path, entry.linkpath ?? '');
        else if (entry.type === 'Link') tree.hardLink(entry.path, entry.linkpath ?? '');
        else {
          // Opened at once, so a hard link later in the archive finds it.
          const fd = tree.file(entry.path, entry.mode ?? 0o644);
          writes.push(pipeline(entry as unknown as Readable, createWriteStream('', { fd })));
          return;
        }
        entry.resume();
      } catch (error) {
        failure = error;
        entry.resume();
      }
    },
  });
  await consume(tarStream(file, kind, bounds), parser, 'end');
  const settled = await Promise.allSettled(writes);
  if (!failure) {
    try {
      tree.finish();
    } catch (error) {
      failure = error;
    }
  }
  if (failure)
    throw failure instanceof UnsafeArchiveError ? failure : new CorruptArchiveError(`the archive could not be written (${messageOf(failure)})`);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw new CorruptArchiveError(`the archive could not be written (${messageOf(failed.reason)})`);
}

/** Pipes `source` into a node-tar parser and settles when it is done (`event`) or on the first error of either. */
function consume(source: Readable, sink: tar.Parser, event: 'end'): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      source.destroy();
      reject(
        error instanceof UnsafeArchiveError || error instanceof CorruptArchiveError
          ? error
          : new CorruptArchiveError(`the archive is damaged (${messageOf(error)})`),
      );
    };
    source.on('error', fail);
    sink.on('error', fail);
    sink.on(event, () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    source.pipe(sink as unknown as NodeJS.WritableStream);
  });
}

// ---- zip ----

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

interface ZipMember {
  readonly entry: yauzl.Entry;
  readonly kind: 'file' | 'dir' | 'symlink';
  readonly mode: number;
}

function zipMemberKind(entry: yauzl.Entry): ZipMember | { other: string } {
  const madeBy = entry.versionMadeBy >> 8;
  const unixMode = madeBy === 3 ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const type = unixMode & S_IFMT;
  if (zipName(entry).endsWith('/')) return { entry, kind: 'dir', mode: 0o755 };
  if (type === S_IFLNK) return { entry, kind: 'symlink', mode: 0o777 };
  if (type === S_IFDIR) return { entry, kind: 'dir', mode: 0o755 };
  if (type !== 0 && type !== S_IFREG) return { other: 'a device or other special file' };
  return { entry, kind: 'file', mode: unixMode & 0o777 || 0o644 };
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    // Names are decoded and checked here (decodeStrings off), so a zip's refusals read like a tar's.
    yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true, decodeStrings: false }, (error, zip) => {
      if (error || !zip) reject(zipError(error));
      else resolve(zip);
    });
  });
}

function zipError(error: unknown): Error {
  return new CorruptArchiveError(`the archive is damaged (${messageOf(error)})`);
}

/** A member's name: UTF-8 when its flag says so, else the old DOS code page, read as Latin-1 (names are checked, not shown). */
function zipName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer | string;
  if (typeof raw === 'string') return raw;
  return raw.toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
}

/** Visits each member in order; `visit` may be async. Rejects on the first error. */
function eachZipMember(zip: yauzl.ZipFile, visit: (entry: yauzl.Entry) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      zip.close();
      reject(error instanceof UnsafeArchiveError || error instanceof CorruptArchiveError ? error : zipError(error));
    };
    zip.on('error', fail);
    zip.on('end', () => {
      if (!failed) resolve();
    });
    zip.on('entry', (entry: yauzl.Entry) => {
      visit(entry).then(() => {
        if (!failed) zip.readEntry();
      }, fail);
    });
    zip.readEntry();
  });
}

async function scanZip(file: string, bounds: ExtractBounds): Promise<void> {
  const zip = await openZip(file);
  let members = 0;
  let bytes = 0;
  await eachZipMember(zip, async (entry) => {
    members++;
    bytes += entry.uncompressedSize;
    const name = zipName(entry);
    if (members > bounds.maxMembers) throw new UnsafeArchiveError(`The archive has more than ${bounds.maxMembers} members.`);
    if (bytes > bounds.maxBytes) throw new UnsafeArchiveError(`The archive unpacks to more than ${mb(bounds.maxBytes)}.`);
    const problem = unsafeMemberName(name);
    if (problem) throw new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" ${problem}.`);
    const member = zipMemberKind(entry);
    if ('other' in member) throw new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" is ${member.other}.`);
    if (member.kind === 'symlink') {
      const target = await readZipText(zip, entry, 4096);
      const linkProblem = unsafeLinkTarget(name, target, 'member');
      if (linkProblem) throw new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" ${linkProblem}.`);
    }
  });
  if (members === 0) throw new CorruptArchiveError('the archive is empty');
}

function openZipStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error || !stream ? reject(zipError(error)) : resolve(stream))),
  );
}

async function readZipText(zip: yauzl.ZipFile, entry: yauzl.Entry, max: number): Promise<string> {
  if (entry.uncompressedSize > max) throw new UnsafeArchiveError(`The archive was refused: its link "${short(zipName(entry))}" is too long.`);
  const chunks: Buffer[] = [];
  for await (const chunk of await openZipStream(zip, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function extractZip(file: string, folder: string, bounds: ExtractBounds): Promise<void> {
  const zip = await openZip(file);
  const tree = new SafeTree(folder);
  let written = 0;
  await eachZipMember(zip, async (entry) => {
    const name = zipName(entry);
    const member = zipMemberKind(entry);
    if ('other' in member) throw new UnsafeArchiveError(`The archive was refused: its member "${short(name)}" is ${member.other}.`);
    if (member.kind === 'dir') return tree.folder(name);
    if (member.kind === 'symlink') return tree.symlink(name, await readZipText(zip, entry, 4096));
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        written += chunk.length;
        if (written > bounds.maxBytes) done(new UnsafeArchiveError(`The archive unpacks to more than ${mb(bounds.maxBytes)}.`));
        else done(null, chunk);
      },
    });
    const stream = await openZipStream(zip, entry);
    await pipeline(stream, counter, createWriteStream('', { fd: tree.file(name, member.mode) }));
  });
  tree.finish();
}
