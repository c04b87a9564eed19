// How a command is started on this platform. On Windows, `npx`, `npm`, `uvx` shims and many CLIs are `.cmd` or
// `.bat` files, which Node refuses to spawn without a shell (EINVAL, since the fix for CVE-2024-27980). Those start
// through `cmd.exe /d /s /c "<line>"`, the way cross-spawn starts them (codex-acp itself spawns so), with each word
// quoted for cmd.exe and the programs' own argument parsing. cmd.exe expands `%NAME%` even inside quotes, and `^`, `&`,
// `"` and line breaks can break out of or change a quoted word, so a word with any of them is refused with a sentence
// rather than passed on. Everything else starts as it is, without a shell. Plain Node; the platform is a parameter,
// so Windows is unit-tested anywhere (commandPath.ts finds the file first, in PATH only).
import { spawn, type ChildProcess } from 'node:child_process';
import { win32, type win32 as Win32 } from 'node:path';

export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** The arguments are one command line for cmd.exe, passed as they are. */
  readonly windowsVerbatimArguments?: true;
}

export interface SpawnPlatform {
  readonly os: NodeJS.Platform;
  readonly path: typeof Win32;
  /** The platform's environment: `ComSpec` and `SystemRoot` name cmd.exe. */
  readonly env: NodeJS.ProcessEnv;
}

/** A word that cmd.exe cannot be given safely, with why. */
export class UnsafeArgumentError extends Error {
  constructor(
    readonly word: string,
    readonly character: string,
  ) {
    super(
      `"${word.length > 80 ? `${word.slice(0, 80)}…` : word}" cannot be passed safely to a .cmd or .bat program on Windows: cmd.exe would read its ${describe(character)}. Start the program by its .exe, or without that character.`,
    );
    this.name = 'UnsafeArgumentError';
  }
}

function describe(character: string): string {
  switch (character) {
    case '%':
      return '"%" as the start of a variable';
    case '\r':
    case '\n':
      return 'line break as the end of the command';
    case '\0':
      return 'NUL character as the end of the word';
    default:
      return `"${character}" as a command character`;
  }
}

const UNSAFE = /[%^&"\r\n\0]/;

/** Needs a shell on Windows: a batch file, which only cmd.exe runs. */
function isBatchFile(file: string): boolean {
  return /\.(cmd|bat)$/i.test(file);
}

/** A word quoted for cmd.exe and for the program's own parsing (a run of `\` before the closing quote doubled). */
function quoted(word: string): string {
  if (word !== '' && /^[\w\-.:\\/@+=,]+$/.test(word)) return word;
  return `"${word.replace(/(\\+)$/, '$1$1')}"`;
}

/** A variable of the environment, by name, without regard to case (Windows' `Path` and `PATH` are one). */
function variable(platform: SpawnPlatform, name: string): string | undefined {
  const key = Object.keys(platform.env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : platform.env[key];
}

/** A program of Windows itself (`taskkill.exe`), by its full path under SystemRoot: never one the working folder has. */
export function windowsTool(name: string, platform: SpawnPlatform): string {
  const root = variable(platform, 'SYSTEMROOT');
  return platform.path.join(root && platform.path.isAbsolute(root) ? root : 'C:\\Windows', 'System32', name);
}

/** cmd.exe itself, by its full path: never a `cmd.exe` found in the working folder. */
function commandInterpreter(platform: SpawnPlatform): string {
  const given = variable(platform, 'COMSPEC');
  return given && platform.path.isAbsolute(given) ? given : windowsTool('cmd.exe', platform);
}

/**
 * What to spawn for `file` (already found: commandPath.ts) and `args` on `platform`: as it is, or through cmd.exe for a
 * batch file on Windows. Throws UnsafeArgumentError for a word cmd.exe would misread.
 */
export function spawnPlan(file: string, args: readonly string[], platform: SpawnPlatform): SpawnPlan {
  if (platform.os !== 'win32' || !isBatchFile(file)) return { file, args };
  for (const word of [file, ...args]) {
    const bad = UNSAFE.exec(word);
    if (bad) throw new UnsafeArgumentError(word, bad[0]);
  }
  const line = [file, ...args].map(quoted).join(' ');
  return { file: commandInterpreter(platform), args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}

/** The plan on this machine, with its environment. */
export function hostSpawnPlan(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): SpawnPlan {
  return spawnPlan(file, args, { os: process.platform, path: win32, env });
}

/** Ends a process and its tree on Windows, with Windows' own taskkill (the name alone would be looked up in the working folder first). */
export function taskkillTree(pid: number): ChildProcess {
  const taskkill = windowsTool('taskkill.exe', { os: process.platform, path: win32, env: process.env });
  return spawn(taskkill, ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
}
