// `terminal/*`: commands the agent asks the client to run. With `args` the command is spawned directly; without
// them the command line runs through the user's shell (agents send "echo hi" that way). Each command runs in its own
// process group, so kill and release end everything it started. Output (stdout and stderr, interleaved as they
// arrive) keeps only its last `outputByteLimit` bytes, cut at a character boundary.
import { spawn, type ChildProcess } from 'node:child_process';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { AcpError, ErrorCodes } from './errors';
import type * as S from './schema.gen';

/** Output kept when the agent gives no limit: enough for any log a person would read in a chat. */
const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
const KILL_GRACE_MS = 2000;

export interface TerminalOutputEvent {
  readonly terminalId: string;
  readonly sessionId: string;
  /** The new output, decoded. */
  readonly text: string;
}

export interface TerminalExitEvent {
  readonly terminalId: string;
  readonly sessionId: string;
  readonly exitStatus: S.TerminalExitStatus;
}

class Terminal {
  private chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;
  exitStatus: S.TerminalExitStatus | undefined;
  readonly exited: Promise<S.TerminalExitStatus>;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    readonly id: string,
    readonly sessionId: string,
    readonly child: ChildProcess,
    private readonly limit: number,
    onOutput: (text: string) => void,
    onExit: (status: S.TerminalExitStatus) => void,
  ) {
    const take = (data: Buffer) => {
      this.append(data);
      const text = this.decoder.decode(data, { stream: true });
      if (text) onOutput(text);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        // The command could not be started: say so in the output, like a shell would.
        take(Buffer.from(`${error.message}\n`));
        this.finish({ exitCode: 127, signal: null }, resolve, onExit);
      });
      child.once('close', (code, signal) => this.finish({ exitCode: code, signal }, resolve, onExit));
    });
  }

  private finish(status: S.TerminalExitStatus, resolve: (s: S.TerminalExitStatus) => void, onExit: (s: S.TerminalExitStatus) => void): void {
    if (this.exitStatus) return;
    this.exitStatus = status;
    resolve(status);
    onExit(status);
  }

  private append(data: Buffer): void {
    this.chunks.push(data);
    this.bytes += data.length;
    if (this.bytes <= this.limit) return;
    // Keep the tail: join, cut to the limit, and step past any UTF-8 continuation bytes at the cut.
    const all = Buffer.concat(this.chunks);
    let start = all.length - this.limit;
    while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    const kept = all.subarray(start);
    this.chunks = [Buffer.from(kept)];
    this.bytes = kept.length;
    this.truncated = true;
  }

  output(): S.TerminalOutputResponse {
    return {
      output: Buffer.concat(this.chunks).toString('utf8'),
      truncated: this.truncated,
      ...(this.exitStatus ? { exitStatus: this.exitStatus } : {}),
    };
  }

  kill(): void {
    if (this.exitStatus) return;
    killGroup(this.child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), KILL_GRACE_MS);
    void this.exited.then(() => clearTimeout(timer));
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** The shell that runs a command line given without args. */
export function shellFor(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): { file: string; args: (line: string) => string[] } {
  if (platform === 'win32') return { file: env['ComSpec'] || 'cmd.exe', args: (line) => ['/d', '/s', '/c', line] };
  return { file: env['SHELL'] || '/bin/sh', args: (line) => ['-c', line] };
}

export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private next = 1;
  private readonly outputEmitter = new Emitter<TerminalOutputEvent>();
  private readonly exitEmitter = new Emitter<TerminalExitEvent>();
  readonly onDidOutput: Event<TerminalOutputEvent> = this.outputEmitter.event;
  readonly onDidExit: Event<TerminalExitEvent> = this.exitEmitter.event;

  /** Starts the command and returns at once. `cwd` is the session's folder, used when the agent gives none. */
  create(params: S.CreateTerminalRequest, cwd: string): S.CreateTerminalResponse {
    if (typeof params.command !== 'string' || params.command.trim() === '') throw new AcpError(ErrorCodes.InvalidParams, 'command must be a non-empty string');
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const limit = params.outputByteLimit == null ? DEFAULT_OUTPUT_LIMIT : Math.max(0, Math.floor(params.outputByteLimit));
    const hasArgs = params.args !== undefined && params.args !== null;
    const shell = shellFor(process.platform, env);
    const [file, args] = hasArgs ? [params.command, [...(params.args ?? [])]] : [shell.file, shell.args(params.command)];
    const child = spawn(file, args, {
      cwd: params.cwd ?? cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const terminalId = `term-${this.next++}`;
    const sessionId = params.sessionId;
    const terminal = new Terminal(
      terminalId,
      sessionId,
      child,
      limit,
      (text) => this.outputEmitter.fire({ terminalId, sessionId, text }),
      (exitStatus) => this.exitEmitter.fire({ terminalId, sessionId, exitStatus }),
    );
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  output(params: S.TerminalOutputRequest): S.TerminalOutputResponse {
    return this.get(params).output();
  }

  async waitForExit(params: S.WaitForTerminalExitRequest, signal?: AbortSignal): Promise<S.WaitForTerminalExitResponse> {
    const terminal = this.get(params);
    const status = await new Promise<S.TerminalExitStatus>((resolve, reject) => {
      const onAbort = () => reject(new AcpError(ErrorCodes.RequestCancelled, 'cancelled'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      void terminal.exited.then((s) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(s);
      });
    });
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  kill(params: S.KillTerminalRequest): S.KillTerminalResponse {
    this.get(params).kill();
    return {};
  }

  release(params: S.ReleaseTerminalRequest): S.ReleaseTerminalResponse {
    const terminal = this.get(params);
    terminal.kill();
    this.terminals.delete(terminal.id);
    return {};
  }

  /** Releases every terminal of a session (it closed) or of all sessions (the agent is gone). */
  releaseAll(sessionId?: string): void {
    for (const terminal of [...this.terminals.values()]) {
      if (sessionId === undefined || terminal.sessionId === sessionId) {
        terminal.kill();
        this.terminals.delete(terminal.id);
      }
    }
  }

  private get(params: { sessionId: string; terminalId: string }): Terminal {
    const terminal = this.terminals.get(params.terminalId);
    if (!terminal || terminal.sessionId !== params.sessionId) {
      throw new AcpError(ErrorCodes.InvalidParams, `unknown terminal: ${String(params.terminalId)} (it was never created in this session, or it was released)`);
    }
    return terminal;
  }

  dispose(): void {
    this.releaseAll();
    this.outputEmitter.dispose();
    this.exitEmitter.dispose();
  }
}
