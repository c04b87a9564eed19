// Where a command runs from: a bare name ("npx", "copilot") is looked up in PATH only, with PATHEXT's suffixes on
// Windows, and never in the working folder. Windows' own lookup (and libuv's) tries the working folder first, so an
// `npx.cmd` that a cloned repository carries would run instead of the user's. Plain Node; the platform's path
// module is a parameter so both are unit-tested anywhere.
import { existsSync } from 'node:fs';
import * as path from 'node:path';

type PathModule = typeof path.posix;

export interface Platform {
  readonly os: NodeJS.Platform;
  readonly path: PathModule;
  readonly exists: (file: string) => boolean;
}

/** A variable of `env`, by name; without regard to case on Windows, where `Path` and `PATH` are one. */
function variable(env: NodeJS.ProcessEnv, name: string, os: NodeJS.Platform): string | undefined {
  if (os !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

/** True when `command` names a file by a path (absolute or relative) rather than a name to look up. */
function isBareName(command: string, p: PathModule): boolean {
  return !command.includes('/') && !(p.sep === '\\' && command.includes('\\')) && !p.isAbsolute(command);
}

/**
 * The file a bare command name runs: the first PATH folder (absolute ones only: an empty or relative entry means the
 * working folder) that holds it, trying PATHEXT's suffixes on Windows (a name that has one of them is tried as it is
 * first). Undefined when no folder holds it. A command with a path is not looked up: it is returned as it is.
 */
export function findOnPath(command: string, env: NodeJS.ProcessEnv, platform: Platform): string | undefined {
  const p = platform.path;
  if (!isBareName(command, p)) return command;
  const folders = (variable(env, 'PATH', platform.os) ?? '').split(p.delimiter).filter((dir) => dir !== '' && p.isAbsolute(dir));
  const suffixes =
    platform.os === 'win32'
      ? (variable(env, 'PATHEXT', platform.os) ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((s) => /^\.[A-Za-z0-9]+$/.test(s))
      : [];
  const hasSuffix = suffixes.some((s) => command.toUpperCase().endsWith(s.toUpperCase()));
  const names = platform.os === 'win32' ? [...(hasSuffix ? [command] : []), ...suffixes.map((s) => command + s.toLowerCase())] : [command];
  for (const folder of folders) {
    for (const name of names) {
      const candidate = p.join(folder, name);
      if (platform.exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/** This machine. */
export const HOST: Platform = {
  os: process.platform,
  path: process.platform === 'win32' ? path.win32 : path.posix,
  exists: (file) => existsSync(file),
};

/**
 * What to spawn for `command`: the file PATH has for a bare name; a command with a path as it is. A bare name that
 * PATH does not have becomes a path where it is not (under PATH's first folder), so the start fails as "not found"
 * rather than the OS trying the working folder.
 */
export function commandToSpawn(command: string, env: NodeJS.ProcessEnv, platform: Platform = HOST): string {
  const found = findOnPath(command, env, platform);
  if (found !== undefined) return found;
  const p = platform.path;
  const first = (variable(env, 'PATH', platform.os) ?? '').split(p.delimiter).find((dir) => dir !== '' && p.isAbsolute(dir));
  return p.join(first ?? p.parse(p.resolve('.')).root, command);
}
