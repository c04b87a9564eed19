// The folders of the stdio bridge's sockets (pipe.ts) that an extension host left behind: one that is killed or
// crashes (a remote server stopped, a crash, a SIGKILL) never disposes its pipe. Each folder is named for the process
// that made it; one whose process is gone and whose socket takes no connection is removed when the next pipe starts
// (and those of earlier versions, named for no process, whose socket takes no connection).
// POSIX only: a named pipe on Windows goes with its process.
import { lstat, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';

const PREFIX = 'acp-tools-';
/** How many left-behind folders one start removes at most (the rest go at the next start). */
const MAX_SWEPT = 64;
/** How long a connection to a socket may take to say whether anyone listens. */
const PROBE_MS = 1000;
/** A folder younger than this is left: its host may be between making it and listening in it. */
const SETTLE_MS = 60_000;

/** The prefix of this process's socket folders (for mkdtemp). */
export function socketFolderPrefix(): string {
  return path.join(tmpdir(), `${PREFIX}${process.pid}-`);
}

/** Removes the socket folders of this user whose process is gone; what it removed is logged. Never throws. */
export async function sweepStaleSocketFolders(log: Logger): Promise<number> {
  if (process.platform === 'win32') return 0;
  const dir = tmpdir();
  let swept = 0;
  try {
    for (const name of await readdir(dir)) {
      if (swept >= MAX_SWEPT) break;
      const owner = ownerOf(name);
      if (owner === undefined || owner === process.pid || (owner !== 'unnamed' && alive(owner))) continue;
      const folder = path.join(dir, name);
      if (!(await settledOwnFolder(folder)) || (await listens(path.join(folder, 's')))) continue;
      // One that cannot be removed does not stop the others.
      const removed = await rm(folder, { recursive: true, force: true }).then(
        () => true,
        () => false,
      );
      if (removed) swept++;
    }
    if (swept > 0) log.info(`[editor-tools] removed ${swept} socket folder(s) left behind by extension hosts that ended without closing them`);
  } catch (error) {
    log.debug(`[editor-tools] could not look for left-behind socket folders: ${errorMessage(error)}`);
  }
  return swept;
}

/**
 * The process a folder is named for; 'unnamed' for the name earlier versions gave (no process id: only its socket
 * can tell whether it is alive); undefined for any other name.
 */
function ownerOf(name: string): number | 'unnamed' | undefined {
  if (/^acp-tools-[A-Za-z0-9]{6}$/.test(name)) return 'unnamed';
  const match = /^acp-tools-(\d{1,9})-[A-Za-z0-9]{6}$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Whether a process `pid` may exist: only "no such process" says it does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A real folder (not a link) of this user's, made more than SETTLE_MS ago. */
async function settledOwnFolder(folder: string): Promise<boolean> {
  const stat = await lstat(folder).catch(() => undefined);
  return stat !== undefined && stat.isDirectory() && stat.uid === process.getuid?.() && Date.now() - stat.mtimeMs > SETTLE_MS;
}

/**
 * Whether something listens on the socket. A process of the same id in another PID namespace that shares this /tmp
 * (a container) would look gone: its socket still answers, and its folder stays.
 */
function listens(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (result: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(true), PROBE_MS); // no answer either way: leave it
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}
