// A lock across windows (each its own extension host) on the folder of installs: an install, from its temporary
// folder to its record, and the cleanup that removes unused versions and what crashed installs left behind, never
// run at once. A lock file holds its owner's pid, a token and when it was last renewed; the owner renews it while it
// works, so one whose owner is gone, or that was not renewed for STALE_MS, is stale and taken over. Plain Node.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';

/** A lock not renewed for this long is stale whatever its owner says (the owner renews it every RENEW_MS). */
const STALE_MS = 2 * 60 * 1000;
const RENEW_MS = 20 * 1000;
/** A lock file that cannot be read is taken for stale once it is this old (never while it may be being written). */
const UNREADABLE_MS = 10 * 1000;
/** How often a waiting window looks again. */
const RETRY_MS = 200;

interface Owner {
  readonly pid: number;
  readonly at: number;
  readonly token: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // it exists, but is not ours to signal
  }
}

async function owner(file: string): Promise<Owner | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<Owner>;
    return typeof parsed.pid === 'number' && typeof parsed.at === 'number' && typeof parsed.token === 'string' ? (parsed as Owner) : undefined;
  } catch {
    return undefined;
  }
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

/** Writes `owner` to `file` whole: a temporary file renamed over it (readers never see half of it). */
async function put(file: string, owner: Owner, exclusive: boolean): Promise<boolean> {
  const temp = `${file}.${owner.token}.${randomUUID().slice(0, 8)}`;
  await fs.writeFile(temp, JSON.stringify(owner));
  try {
    // Taking: a hard link fails when the lock exists (exclusive, and whole from the first byte). Renewing: rename.
    if (exclusive) await fs.link(temp, file);
    else await fs.rename(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/** Whether the lock at `file` may be taken over: its owner is gone, it was not renewed, or it is unreadable and old. */
async function stale(file: string, held: Owner | undefined, now: number, staleMs: number): Promise<boolean> {
  if (held) return !alive(held.pid) || now - held.at > staleMs;
  const stat = await fs.stat(file).catch(() => undefined);
  return stat !== undefined && now - stat.mtimeMs > UNREADABLE_MS;
}

/**
 * Takes the lock at `file` (waiting while another live owner holds it, until `signal` aborts), runs `work` while
 * renewing it, and lets it go. `now`, `staleMs` and `renewMs` are parameters for tests.
 */
export async function withLock<T>(
  file: string,
  work: () => Promise<T>,
  options: { signal?: AbortSignal; staleMs?: number; renewMs?: number; now?: () => number } = {},
): Promise<T> {
  const now = options.now ?? Date.now;
  const token = randomUUID();
  for (;;) {
    options.signal?.throwIfAborted();
    if (await put(file, { pid: process.pid, at: now(), token }, true)) break;
    const held = await owner(file);
    if (await stale(file, held, now(), options.staleMs ?? STALE_MS)) {
      // Taken over by moving it aside: of two windows that both found it stale, only one moves this one.
      const aside = `${file}.stale-${randomUUID()}`;
      const moved = await fs.rename(file, aside).then(
        () => true,
        () => false,
      );
      if (moved) {
        const was = await owner(aside);
        // What was moved may be a lock taken meanwhile: then it goes back (unless yet another took its place).
        if (was && held && was.token !== held.token) await fs.link(aside, file).catch(() => undefined);
        await fs.rm(aside, { force: true });
      }
      continue;
    }
    await wait(RETRY_MS, options.signal);
  }
  const renew = setInterval(() => {
    void owner(file)
      .then((held) => (held?.token === token ? put(file, { pid: process.pid, at: now(), token }, false) : undefined))
      .catch(() => undefined);
  }, options.renewMs ?? RENEW_MS);
  try {
    return await work();
  } finally {
    clearInterval(renew);
    if ((await owner(file))?.token === token) await fs.rm(file, { force: true });
  }
}
