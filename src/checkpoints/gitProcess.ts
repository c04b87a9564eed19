// Running git for the checkpoints: one process per call, with a timeout, a cap on its output, the inherited GIT_*
// environment removed, and a sentence a user can read when it fails. Plain Node.
import { hostSpawnPlan, type SpawnPlan } from '../acp/spawnPlan';
import { spawn } from 'node:child_process';
import * as path from 'node:path';

/** A checkpoint operation failed. The message is a sentence a user can read ("git failed: …", "too many files: …"). */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

const STDERR_TAIL_CHARS = 2000;

export interface GitResult {
  readonly stdout: Buffer;
  readonly code: number;
}

export interface GitCall {
  readonly input?: string | Buffer;
  /** Exit codes that are answers rather than failures (e.g. 1 for `git config --get` of an unset key). */
  readonly okCodes?: readonly number[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/** The environment without anything git would take from it (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_*, …). */
export function scrubbedEnv(keep: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Windows names are case-insensitive: Git_Dir is GIT_DIR there.
    if (!/^GIT_/i.test(key) || keep.includes(key.toUpperCase())) env[key] = value;
  }
  return env;
}

/** The user's core.excludesFile from their global config, if set (git then ignores what it lists; so do we). */
export async function globalExcludesFile(git: string, cwd: string, timeoutMs: number): Promise<string | undefined> {
  const env = scrubbedEnv(['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM']);
  const { stdout, code } = await runGit(git, ['config', '--global', '--path', '--get', 'core.excludesFile'], {
    cwd,
    env,
    okCodes: [1],
    timeoutMs,
    maxOutputBytes: 64 * 1024,
  });
  const value = stdout.toString('utf8').trim();
  return code === 0 && value ? path.resolve(cwd, value) : undefined;
}

/**
 * How every call on a shadow repository runs git: its environment (no system or global config, no prompts, literal
 * paths, our own identity) and the arguments that name the repository and its work tree and set its config.
 */
export function shadowCall(gitDir: string, workTree: string, excludesFile: string | undefined): { env: NodeJS.ProcessEnv; args: string[] } {
  const env = {
    ...scrubbedEnv(),
    // Neither the system's nor the user's global config: they may turn on fsmonitor, hooks, filters, sparse
    // checkout, renames… The empty file stands for "no global config" on every platform.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(gitDir, 'acp-empty.gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
    // Paths we pass are file names, never patterns.
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'ACP checkpoints',
    GIT_AUTHOR_EMAIL: 'checkpoints@acp.invalid',
    GIT_COMMITTER_NAME: 'ACP checkpoints',
    GIT_COMMITTER_EMAIL: 'checkpoints@acp.invalid',
  };
  const settings = [
    // The work tree is given on every call; the repository was made with `init --bare` so that it has no work
    // tree of its own.
    'core.bare=false',
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.fsmonitor=false',
    `core.hooksPath=${path.join(gitDir, 'no-hooks')}`,
    'core.quotePath=false',
    'core.longpaths=true',
    'core.logAllRefUpdates=false',
    // The stat cache: the index keeps each file's stat data, so an unchanged file is not read again.
    'core.untrackedCache=true',
    'index.version=4',
    'gc.auto=0',
    'maintenance.auto=false',
    'advice.detachedHead=false',
    // The user's global ignore file, read once at open: git status ignores what it lists, and so do we.
    ...(excludesFile ? [`core.excludesFile=${excludesFile}`] : []),
  ];
  return { env, args: [`--git-dir=${gitDir}`, `--work-tree=${workTree}`, ...settings.flatMap((setting) => ['-c', setting])] };
}

export interface RunOptions extends GitCall {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly children?: Set<ReturnType<typeof spawn>>;
}

/** The git subcommand in `args`, for messages (the first argument that is not an option or an option's value). */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-c') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return 'git';
}

export function runGit(git: string, args: readonly string[], options: RunOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const name = `git ${subcommand(args)}`;
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    // git found as a batch file (a shim) on Windows starts through cmd.exe (acp/spawnPlan.ts).
    let plan: SpawnPlan;
    try {
      plan = hostSpawnPlan(git, args, options.env ?? process.env);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const child = spawn(plan.file, [...plan.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      ...(plan.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
    });
    options.children?.add(child);
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.children?.delete(child);
      child.kill('SIGKILL');
      reject(new CheckpointError(message));
    };
    const timer = setTimeout(() => fail(`git failed: ${name} took longer than ${Math.round(options.timeoutMs / 1000)} s`), options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxOutputBytes) {
        fail(`git failed: the output of ${name} passed ${(options.maxOutputBytes / (1024 * 1024)).toFixed(1)} MiB`);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      fail(error.code === 'ENOENT' ? `git was not found (${git}); install git or set its path` : `git failed: ${name}: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      const exit = code ?? -1;
      if (exit === 0 || options.okCodes?.includes(exit)) {
        settled = true;
        clearTimeout(timer);
        options.children?.delete(child);
        resolve({ stdout: Buffer.concat(chunks), code: exit });
        return;
      }
      const tail = stderr.trim().split(/\r?\n/).slice(-3).join(' ');
      fail(`git failed: ${name} ${signal ? `was killed by ${signal}` : `exited with code ${exit}`}${tail ? `: ${tail}` : ''}`);
    });
    // git may exit before reading all of its input (an early error): that is reported by its exit code, not here.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
