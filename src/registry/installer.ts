// Installing one registry agent. A binary is downloaded and extracted into a temporary folder beside its final place,
// checked (its `cmd` must be a file inside it), made executable and only then renamed to `<root>/<id>/<version>/`, so
// a half-done install is never used. A package-run agent (npx, uvx) installs nothing: its command line is pinned to
// the version chosen, and the tool it needs must be on PATH. Plain Node.
import { randomUUID } from 'node:crypto';
import { constants, existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findOnPath, HOST } from '../acp/commandPath';
import type { Logger } from '../acp/log';
import { archiveKind, extract, UnsafeArchiveError, type ExtractBounds } from './archive';
import { packageCommand, type HowToRun, type RegistryAgent } from './format';
import type { InstalledAgent } from './installed';
import { megabytes, type RequestBounds } from '../common/http';
import { download, isLoopbackUrl } from './net';

export interface InstallBounds {
  readonly download: RequestBounds;
  readonly extract: ExtractBounds;
}

/** Real agents ship archives of tens of MB that unpack to a few hundred at most. */
const DEFAULT_INSTALL_BOUNDS: InstallBounds = {
  download: { maxBytes: 512 * 1024 * 1024, idleTimeoutMs: 60_000, totalTimeoutMs: 30 * 60_000 },
  extract: { maxBytes: 2 * 1024 * 1024 * 1024, maxMembers: 20_000 },
};

export interface InstallProgress {
  /** A short sentence of what is happening, and how far a download is (0..1) when known. */
  report(message: string, fraction?: number): void;
}

/** The sentence of an install the user cancelled. */
export const CANCELLED = 'The install was cancelled.';

export class InstallError extends Error {
  override readonly name = 'InstallError';
}

const TOOL_HINTS = {
  npx: 'npx comes with Node.js: install Node.js (https://nodejs.org), then try again',
  uvx: 'uvx comes with uv: install uv (https://docs.astral.sh/uv/), then try again',
} as const;

export class Installer {
  constructor(
    /** `<globalStorage>/agents`. */
    readonly root: string,
    private readonly log: Logger,
    private readonly bounds: InstallBounds = DEFAULT_INSTALL_BOUNDS,
    private readonly onPath: (tool: string) => string | undefined = (tool) => findOnPath(tool, process.env, HOST),
  ) {}

  /** The folder a binary install of this version lives in. */
  folderOf(id: string, version: string): string {
    return path.join(this.root, id, safeSegment(version));
  }

  /** Installs `agent` as `how` says. Throws InstallError (or a cancellation) with a sentence; leaves nothing behind on failure. */
  /** `registry` is the URL of the list the agent came from: plain http to this machine only when it is on this machine. */
  async install(
    agent: RegistryAgent,
    how: HowToRun,
    options: { signal?: AbortSignal; progress?: InstallProgress; registry?: string } = {},
  ): Promise<InstalledAgent> {
    const base = { id: agent.id, name: agent.name, version: agent.version, installedAt: new Date().toISOString() };
    if (how.kind === 'unsupported') throw new InstallError(`${agent.name} cannot run here: ${how.why}.`);
    if (how.kind !== 'binary') {
      if (!this.onPath(how.kind)) throw new InstallError(`${agent.name} runs with ${how.kind}, which is not on PATH. ${TOOL_HINTS[how.kind]}.`);
      const { command, args } = packageCommand(how.kind, how.target, agent.version);
      this.log.info(`[registry] ${agent.id} ${agent.version} runs as: ${[command, ...args].join(' ')}`);
      return { ...base, kind: how.kind, command, args, env: { ...how.target.env } };
    }
    const final = this.folderOf(agent.id, agent.version);
    const cmd = how.target.cmd;
    if (existsSync(final)) {
      // Installed before (another window, or a record lost): reuse it only when its command is there.
      const command = await this.commandInside(final, cmd).catch(() => undefined);
      if (command) return { ...base, kind: 'binary', command, args: [...(how.target.args ?? [])], env: { ...how.target.env }, dir: final };
      await fs.rm(final, { recursive: true, force: true });
    }
    const kind = archiveKind(how.target.archive);
    if (typeof kind !== 'string')
      throw new InstallError(`${agent.name}'s download is a ${kind.unsupported} file, which this extension cannot unpack.`);
    await fs.mkdir(this.root, { recursive: true });
    const temp = path.join(this.root, `.install-${agent.id}-${randomUUID()}`);
    const archive = `${temp}.download`;
    await fs.mkdir(temp, { recursive: true });
    try {
      options.progress?.report(`Downloading ${agent.name} ${agent.version}…`);
      this.log.info(`[registry] downloading ${agent.id} ${agent.version} (${how.platform}) from ${new URL(how.target.archive).host}`);
      let reported = -1;
      await download(how.target.archive, archive, this.bounds.download, {
        signal: options.signal,
        loopbackHttp: options.registry !== undefined && isLoopbackUrl(options.registry),
        progress: (received, total) => {
          const fraction = total ? received / total : undefined;
          const step = Math.floor((fraction ?? 0) * 20);
          if (step === reported) return;
          reported = step;
          options.progress?.report(
            `Downloading ${agent.name} ${agent.version}: ${megabytes(received)}${total ? ` of ${megabytes(total)}` : ''}`,
            fraction,
          );
        },
      });
      options.signal?.throwIfAborted();
      options.progress?.report(`Unpacking ${agent.name} ${agent.version}…`);
      await extract(archive, kind, temp, this.bounds.extract, path.posix.basename(cmd.replace(/\\/g, '/')));
      options.signal?.throwIfAborted();
      await this.commandInside(temp, cmd);
      await fs.mkdir(path.dirname(final), { recursive: true });
      await fs.rename(temp, final);
      const command = await this.commandInside(final, cmd);
      this.log.info(`[registry] installed ${agent.id} ${agent.version} in ${final}`);
      return { ...base, kind: 'binary', command, args: [...(how.target.args ?? [])], env: { ...how.target.env }, dir: final };
    } catch (error) {
      if (options.signal?.aborted) throw new InstallError(CANCELLED);
      if (error instanceof InstallError) throw error;
      if (error instanceof UnsafeArchiveError) throw new InstallError(`${agent.name} ${agent.version} was not installed. ${error.message}`);
      throw new InstallError(`${agent.name} could not be installed: ${error instanceof Error ? error.message : String(error)}.`);
    } finally {
      await fs.rm(temp, { recursive: true, force: true }).catch(() => undefined);
      await fs.rm(archive, { force: true }).catch(() => undefined);
    }
  }

  /** The absolute path of `cmd` in `folder`: it must resolve (links followed) to a file inside the folder. Made executable. */
  private async commandInside(folder: string, cmd: string): Promise<string> {
    // fs.promises.realpath is the OS's resolution (the synchronous JS one folds `link/..` before following the link).
    const root = await fs.realpath(folder);
    const target = path.resolve(root, cmd.replace(/\\/g, '/'));
    const outside = (p: string) => {
      const relative = path.relative(root, p);
      return relative === '' || relative.startsWith('..') || path.isAbsolute(relative);
    };
    if (outside(target)) throw new InstallError(`The registry's command "${cmd}" is not inside the install folder, so it was not run.`);
    let real: string;
    try {
      real = await fs.realpath(target);
    } catch {
      throw new InstallError(`The download has no "${cmd}", the command the registry names.`);
    }
    if (outside(real)) throw new InstallError(`The registry's command "${cmd}" links outside the install folder, so it was not run.`);
    const stat = await fs.lstat(real);
    if (!stat.isFile()) throw new InstallError(`The registry's command "${cmd}" is not a file in the download.`);
    if (process.platform !== 'win32') {
      await fs.chmod(real, (stat.mode & 0o777) | 0o111);
      await fs.access(real, constants.X_OK);
    }
    return target;
  }
}

/** A version as a folder name: no separators, no dots alone. */
function safeSegment(version: string): string {
  const cleaned = version.replace(/[^A-Za-z0-9._+-]/g, '_');
  return cleaned === '.' || cleaned === '..' || cleaned === '' ? '_' : cleaned;
}
