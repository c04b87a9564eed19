// A lock across windows (each its own extension host) on the folder of installs: an install, from its temporary
// folder to its record, and the cleanup that removes unused versions and what crashed installs left behind, never
// run at once. A lock file holds its owner's pid and when it was taken; one whose owner is gone, or that is older
// than the longest an install may take, is stale and taken over. Plain Node.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';

/** A lock older than this is stale whatever its owner: no install takes so long (the download itself is bounded). */
export const STALE_MS = 30 * 60 * 1000;
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

/**
 * Takes the lock at `file` (waiting while another live owner holds it, until `signal` aborts), runs `work`, and
 * lets it go. `now` and `staleMs` are parameters for tests.
 */
export async function withLock<T>(
  file: string,
  work: () => Promise<T>,
  options: { signal?: AbortSignal; staleMs?: number; now?: () => number } = {},
): Promise<T> {
  const now = options.now ?? Date.now;
  const me: Owner = { pid: process.pid, at: now(), token: randomUUID() };
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await fs.writeFile(file, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await owner(file);
    // Unreadable (a crash while it was written), or its owner gone or too old: taken over, if it is still that one.
    if (!held || !alive(held.pid) || now() - held.at > (options.staleMs ?? STALE_MS)) {
      const again = await owner(file);
      if (again?.token === held?.token) await fs.rm(file, { force: true });
      continue;
    }
    await wait(RETRY_MS, options.signal);
  }
  try {
    return await work();
  } finally {
    if ((await owner(file))?.token === me.token) await fs.rm(file, { force: true });
  }
}
