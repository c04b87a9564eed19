// Loading a CommonJS bundle with V8's code cache: the second and later loads take the compiled code from a file
// instead of compiling the bundle again. For dist/core.js, whose compiling was most of its load time. Plain Node.
//
// Only this one file, never a hook on every require: the extension host is shared with other extensions. The cache
// is keyed by the bundle's content (V8's own check would accept a different bundle of the same length), V8 refuses
// data made by another V8 or with other flags, and the data is checked against the digest written with it (V8 checks
// only the header, and would run damaged code). A cache that is missing, refused, damaged, too large, unreadable or
// unwritable costs one ordinary compile, never the load.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** Larger than any cache of our bundle (about 1-3 MB), smaller than a file someone put there by mistake. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const PREFIX = 'code-';
const SUFFIX = '.v8cache';
/** A half-written cache this old was left by a process that ended while writing it. */
const ABANDONED_MS = 10 * 60_000;
const KEY_CHARS = 32;
/** A cache file is the SHA-256 of its data, then the data. */
const DIGEST_BYTES = 32;
/** What follows `<prefix><bundle>-` in the name of a cache, or of a half-written one. */
const STALE_NAME = /^[0-9a-f]{32}\.v8cache(\.\d+\.partial)?$/;

/**
 * How the load went: compiled from the cache, or compiled afresh: no cache yet, one V8 refused (another V8, other
 * flags), or one whose bytes are not what was written (V8 checks only a cache's header, and runs a damaged one).
 */
type CacheOutcome = 'used' | 'none' | 'refused' | 'damaged';

export interface CachedModule<T> {
  readonly exports: T;
  readonly outcome: CacheOutcome;
  /**
   * Writes the cache for the next load, when this one did not use it. Call it once the bundle has done its start:
   * the data then holds the functions compiled so far, not only the top level. Never rejects; says why it could not.
   */
  save(): Promise<string | undefined>;
}

/** Node's own wrapper of a CommonJS module, with the module's first line on a line of its own (see lineOffset). */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_TAIL = '\n})';

/**
 * Loads `file`, a CommonJS module, as `require` would (its own `require`, `module`, `exports`, `__filename` and
 * `__dirname`), compiled with the cache kept in `cacheDir` when there is one.
 */
export function loadWithCodeCache<T>(file: string, cacheDir: string): CachedModule<T> {
  const source = fs.readFileSync(file, 'utf8');
  const key = createHash('sha256').update(source).digest('hex').slice(0, KEY_CHARS);
  const cacheFile = path.join(cacheDir, `${PREFIX}${path.basename(file, '.js')}-${key}${SUFFIX}`);
  const cached = readCache(cacheFile);
  const cachedData = typeof cached === 'string' ? undefined : cached;
  // The module's lines keep their numbers in stack traces and the debugger: the head is a line of its own, before 1.
  const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, { filename: file, lineOffset: -1, cachedData });
  const outcome: CacheOutcome = typeof cached === 'string' ? cached : script.cachedDataRejected ? 'refused' : 'used';
  // The bundle reads and sets only `module.exports` (esbuild's CommonJS output).
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  let saved: Promise<string | undefined> | undefined;
  const save = async (): Promise<string | undefined> => {
    if (outcome === 'used') return undefined;
    let data: Buffer;
    try {
      data = script.createCachedData();
    } catch (error) {
      return `could not make the code cache of ${file}: ${error instanceof Error ? error.message : String(error)}`;
    }
    return write(cacheDir, cacheFile, data);
  };
  return { exports: module.exports, outcome, save: () => (saved ??= save()) };
}

/** The cache's data, checked against the digest written before it; or why there is none to use. */
function readCache(file: string): Buffer | 'none' | 'damaged' {
  let bytes: Buffer;
  try {
    if (fs.statSync(file).size > MAX_CACHE_BYTES) return 'damaged';
    bytes = fs.readFileSync(file);
  } catch {
    return 'none'; // none yet, or unreadable: compiled afresh
  }
  if (bytes.length <= DIGEST_BYTES) return 'damaged';
  const data = bytes.subarray(DIGEST_BYTES);
  return createHash('sha256').update(data).digest().equals(bytes.subarray(0, DIGEST_BYTES)) ? data : 'damaged';
}

/** The new cache, written whole (a load in another window reads the old one or the new one), and the stale ones gone. */
async function write(cacheDir: string, cacheFile: string, data: Buffer): Promise<string | undefined> {
  const partial = `${cacheFile}.${process.pid}.partial`;
  try {
    await fs.promises.mkdir(cacheDir, { recursive: true });
    const handle = await fs.promises.open(partial, 'w');
    try {
      await handle.writeFile(Buffer.concat([createHash('sha256').update(data).digest(), data]));
      // On the disk before it takes the cache's name: a crash then leaves the old cache or the new one, not zeros.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(partial, cacheFile);
  } catch (error) {
    await fs.promises.rm(partial, { force: true }).catch(() => undefined);
    return `could not write the code cache ${cacheFile}: ${error instanceof Error ? error.message : String(error)}`;
  }
  await removeStale(cacheDir, path.basename(cacheFile));
  return undefined;
}

/**
 * Older caches of the same bundle go, and halves that a process which ended mid-write left; not another window's half
 * being written now, which is young.
 */
async function removeStale(cacheDir: string, current: string): Promise<void> {
  const stem = current.slice(0, -(SUFFIX.length + KEY_CHARS + 1));
  const names = await fs.promises.readdir(cacheDir).catch(() => [] as string[]);
  const stale = names.filter((name) => name !== current && name.startsWith(`${stem}-`) && STALE_NAME.test(name.slice(stem.length + 1)));
  for (const name of stale) {
    const file = path.join(cacheDir, name);
    if (name.endsWith('.partial')) {
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (!stat || Date.now() - stat.mtimeMs < ABANDONED_MS) continue;
    }
    await fs.promises.rm(file, { force: true }).catch(() => undefined);
  }
}
