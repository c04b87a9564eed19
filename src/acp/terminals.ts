// `terminal/*`: commands the agent asks the client to run. With `args` the command is spawned directly; without
// them the command line runs through the user's shell (agents send "echo hi" that way). Each command runs in its own
// process group, so kill and release end everything it started, background jobs included. Output (stdout and stderr,
// interleaved as they arrive) keeps only its last `outputByteLimit` bytes, cut at a character boundary. The agent is
// not trusted: the limit is clamped to ours, and a session has a bounded number of terminals.
import { commandToSpawn } from './commandPath';
import { hostSpawnPlan, taskkillTree, UnsafeArgumentError, type SpawnPlan } from './spawnPlan';
import { spawn, type ChildProcess } from 'node:child_process';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { AcpError, ErrorCodes } from './errors';
import { silentLogger, type Logger } from './log';
import type * as S from './schema.gen';

/** Output kept when the agent gives no limit: enough for any log a person would read in a chat. */
const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
/** The most output one terminal keeps, whatever the agent asks: its `outputByteLimit` is clamped to this. */
export const MAX_OUTPUT_LIMIT = 16 * 1024 * 1024;
/** Terminals a session may hold at once (created and not released, running or not: each keeps its output). */
export const MAX_TERMINALS_PER_SESSION = 32;
const KILL_GRACE_MS = 2000;
/**
 * After the command exits, how long its exit waits for the pipes to close, so that the last output is read before
 * `wait_for_exit` answers. A background job that keeps the pipes open does not hold the exit longer than this.
 */
const EXIT_DRAIN_MS = 200;
/** Output is copied into blocks of this size: memory follows the bytes kept, not how the pipe delivered them. */
const BLOCK = 64 * 1024;

export interface TerminalOutputEvent {
  readonly terminalId: string;
  readonly sessionId: string;
  /** The new output, decoded. */
  readonly text: string;
}

export interface TerminalStartEvent {
  readonly terminalId: string;
  readonly sessionId: string;
  /** The command line as the agent gave it: the command, then its arguments. */
  readonly command: string;
}

export interface TerminalExitEvent {
  readonly terminalId: string;
  readonly sessionId: string;
  readonly exitStatus: S.TerminalExitStatus;
}

/**
 * The last `limit` bytes of a byte stream, in time linear in the bytes appended: data is copied into fixed blocks,
 * whole blocks drop off the front and only the first block left is cut (then moved past UTF-8 continuation bytes, so
 * the text never starts with half a character). Nothing ever re-copies what is kept.
 */
export class OutputTail {
  /** Full blocks, oldest first; those before `first` are dropped (the array is compacted now and then). */
  private blocks: Buffer[] = [];
  private first = 0;
  /** The block being filled: its bytes from `openStart` to `openEnd` are kept (the start moves when trimmed). */
  private open: Buffer | undefined;
  private openStart = 0;
  private openEnd = 0;
  private kept = 0;
  truncated = false;

  constructor(readonly limit: number) {}

  get byteLength(): number {
    return this.kept;
  }

  append(data: Uint8Array): void {
    for (let offset = 0; offset < data.length;) {
      if (!this.open || this.openEnd === this.open.length) {
        if (this.open) this.blocks.push(this.open.subarray(this.openStart, this.openEnd));
        this.open = Buffer.allocUnsafe(BLOCK);
        this.openStart = this.openEnd = 0;
      }
      const n = Math.min(data.length - offset, this.open.length - this.openEnd);
      this.open.set(data.subarray(offset, offset + n), this.openEnd);
      this.openEnd += n;
      offset += n;
    }
    this.kept += data.length;
    if (this.kept <= this.limit) return;
    this.truncated = true;
    this.drop(this.kept - this.limit);
    // A UTF-8 character has at most three continuation bytes; past that the bytes are not text anyway.
    for (let i = 0; i < 3 && this.kept > 0 && (this.firstByte() & 0xc0) === 0x80; i++) this.drop(1);
  }

  /** The kept bytes as text. */
  text(): string {
    const parts = this.blocks.slice(this.first);
    if (this.open) parts.push(this.open.subarray(this.openStart, this.openEnd));
    return Buffer.concat(parts).toString('utf8');
  }

  private firstByte(): number {
    const block = this.first < this.blocks.length ? this.blocks[this.first] : this.open?.subarray(this.openStart);
    return block?.[0] ?? 0;
  }

  private drop(count: number): void {
    this.kept -= count;
    let rest = count;
    while (rest > 0 && this.first < this.blocks.length) {
      const block = this.blocks[this.first]!;
      if (block.length <= rest) {
        rest -= block.length;
        this.first++;
      } else {
        this.blocks[this.first] = block.subarray(rest);
        rest = 0;
      }
    }
    this.openStart += rest;
    // The open block emptied: fill it again from its start (no view of it was handed out).
    if (this.openStart === this.openEnd) this.openStart = this.openEnd = 0;
    if (this.first > 64 && this.first * 2 > this.blocks.length) {
      this.blocks = this.blocks.slice(this.first);
      this.first = 0;
    }
  }
}

class Terminal {
  private readonly tail: OutputTail;
  exitStatus: S.TerminalExitStatus | undefined;
  readonly exited: Promise<S.TerminalExitStatus>;
  private readonly decoder = new TextDecoder('utf-8');
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly sessionId: string,
    readonly child: ChildProcess,
    limit: number,
    onOutput: (text: string) => void,
    onExit: (status: S.TerminalExitStatus) => void,
  ) {
    this.tail = new OutputTail(limit);
    const take = (data: Buffer) => {
      this.tail.append(data);
      const text = this.decoder.decode(data, { stream: true });
      if (text) onOutput(text);
    };
    // Output is read until the pipes close, which may be after the exit (a background job still writing).
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => {
      const finish = (status: S.TerminalExitStatus) => {
        if (this.exitStatus) return;
        this.exitStatus = status;
        resolve(status);
        onExit(status);
      };
      child.once('error', (error) => {
        // The command could not be started: say so in the output, like a shell would.
        take(Buffer.from(`${error.message}\n`));
        finish({ exitCode: 127, signal: null });
      });
      // The command's own process exited: that is its exit, even when a background child still holds the pipes
      // ('close' would wait for that child). The pipes get a moment to deliver what the command printed last.
      child.once('exit', (code, signal) => {
        const status = { exitCode: code, signal };
        const drained = setTimeout(() => finish(status), EXIT_DRAIN_MS);
        child.once('close', () => {
          clearTimeout(drained);
          finish(status);
        });
      });
    });
  }

  output(): S.TerminalOutputResponse {
    return {
      output: this.tail.text(),
      truncated: this.tail.truncated,
      ...(this.exitStatus ? { exitStatus: this.exitStatus } : {}),
    };
  }

  /**
   * SIGTERM to the whole process group, then SIGKILL after a grace. Also after the command exited: what it started
   * in the background (`cmd &`, nohup, a double fork) is still in its group. Signalling a group that is gone only
   * fails with ESRCH.
   */
  kill(): void {
    killGroup(this.child, 'SIGTERM');
    if (this.killTimer) return;
    this.killTimer = setTimeout(() => killGroup(this.child, 'SIGKILL'), KILL_GRACE_MS);
    // Nothing waits for it: the host may exit meanwhile, and SIGTERM was sent.
    this.killTimer.unref();
  }
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') taskkillTree(child.pid);
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** The shell that runs a command line given without args. */
export function shellFor(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { file: string; args: (line: string) => string[] } {
  if (platform === 'win32') return { file: env['ComSpec'] || 'cmd.exe', args: (line) => ['/d', '/s', '/c', line] };
  return { file: env['SHELL'] || '/bin/sh', args: (line) => ['-c', line] };
}

export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();
  private next = 1;
  private readonly startEmitter = new Emitter<TerminalStartEvent>();
  private readonly outputEmitter = new Emitter<TerminalOutputEvent>();
  private readonly exitEmitter = new Emitter<TerminalExitEvent>();
  readonly onDidStart: Event<TerminalStartEvent> = this.startEmitter.event;
  readonly onDidOutput: Event<TerminalOutputEvent> = this.outputEmitter.event;
  readonly onDidExit: Event<TerminalExitEvent> = this.exitEmitter.event;
  private clampLogged = false;

  constructor(
    private readonly log: Logger = silentLogger,
    /** The session whose bound a terminal counts against (a subagent's root session); by default its own. */
    private readonly accountOf: (sessionId: string) => string = (sessionId) => sessionId,
  ) {}

  /** Starts the command and returns at once. `cwd` is the session's folder, used when the agent gives none. */
  create(params: S.CreateTerminalRequest, cwd: string): S.CreateTerminalResponse {
    if (typeof params.command !== 'string' || params.command.trim() === '')
      throw new AcpError(ErrorCodes.InvalidParams, 'command must be a non-empty string');
    const held = this.countFor(this.accountOf(params.sessionId));
    if (held >= MAX_TERMINALS_PER_SESSION) {
      throw new AcpError(
        ErrorCodes.InvalidRequest,
        `this session already holds ${held} terminals, the most it may; release one (terminal/release) before creating another`,
      );
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const limit = this.outputLimit(params.outputByteLimit);
    const hasArgs = params.args !== undefined && params.args !== null;
    const shell = shellFor(process.platform, env);
    // A command with its arguments is found in PATH only (never the working folder), and a batch file starts through
    // cmd.exe with its words quoted, or is refused with a sentence (spawnPlan.ts).
    let plan: SpawnPlan;
    try {
      plan = hasArgs
        ? hostSpawnPlan(commandToSpawn(params.command, env), params.args ?? [], env)
        : { file: shell.file, args: shell.args(params.command) };
    } catch (error) {
      if (error instanceof UnsafeArgumentError) throw new AcpError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
    const child = spawn(plan.file, [...plan.args], {
      cwd: params.cwd ?? cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(plan.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
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
    this.startEmitter.fire({ terminalId, sessionId, command: [params.command, ...(params.args ?? [])].join(' ') });
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

  /** The agent's `outputByteLimit` within [0, MAX_OUTPUT_LIMIT]; the first clamp is logged (once, not per request). */
  private outputLimit(asked: unknown): number {
    if (asked === undefined || asked === null) return DEFAULT_OUTPUT_LIMIT;
    if (typeof asked !== 'number' || Number.isNaN(asked)) return DEFAULT_OUTPUT_LIMIT;
    if (asked <= MAX_OUTPUT_LIMIT) return Math.max(0, Math.floor(asked));
    if (!this.clampLogged) {
      this.clampLogged = true;
      this.log.warn(`the agent asked to keep ${asked} bytes of terminal output; keeping at most ${MAX_OUTPUT_LIMIT} (said once)`);
    }
    return MAX_OUTPUT_LIMIT;
  }

  private countFor(account: string): number {
    let count = 0;
    for (const terminal of this.terminals.values()) if (this.accountOf(terminal.sessionId) === account) count++;
    return count;
  }

  private get(params: { sessionId: string; terminalId: string }): Terminal {
    const terminal = this.terminals.get(params.terminalId);
    if (!terminal || terminal.sessionId !== params.sessionId) {
      throw new AcpError(
        ErrorCodes.InvalidParams,
        `unknown terminal: ${String(params.terminalId)} (it was never created in this session, or it was released)`,
      );
    }
    return terminal;
  }

  dispose(): void {
    this.releaseAll();
    this.startEmitter.dispose();
    this.outputEmitter.dispose();
    this.exitEmitter.dispose();
  }
}
