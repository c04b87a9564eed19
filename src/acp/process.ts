// An agent subprocess wired to an ACP connection. Spawned without a shell, in its own process group so that
// disposing it leaves no orphans; its stderr becomes log lines and a bounded tail for the errors users see.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { commandToSpawn } from './commandPath';
import { hostSpawnPlan, taskkillTree } from './spawnPlan';
import { AcpClientConnection, type ConnectionOptions } from './connection';
import { type ClientHandler } from './inbound';
import { AgentExitError, AgentStartError, CommandNotFoundError, errorMessage, type AgentDisconnectedError } from './errors';
import { silentLogger, tagged, type Logger } from './log';
import { ClientNotifications, ENDING_METHODS, ExtensionNotifications, UnstableNotifications, WAITING_METHODS } from './methods';
import type { LineTracer } from './ndjsonWriter';
import { ndjsonTransport } from './transport';
import type { Readable, Writable } from 'node:stream';

/** Why an agent process ended, or never started; for an agent at a URL, why its connection ended (socket.ts). */
export type AgentEnd = AgentExitError | CommandNotFoundError | AgentStartError | AgentDisconnectedError;

/** What the client holds of a running agent: a subprocess (AgentProcess) or a connection to a URL (AgentSocket). */
export interface AgentLink {
  readonly connection: AcpClientConnection;
  /** Settles once, when the agent has ended: with why it ended, or why it never started. */
  readonly exited: Promise<AgentEnd>;
  readonly hasExited: boolean;
  /** The subprocess's id; undefined for an agent at a URL. */
  readonly pid: number | undefined;
  /** The host of an agent at a URL (its questions name it); undefined for a subprocess. */
  readonly host?: string;
  /** The last lines the agent wrote to stderr (none for an agent at a URL). */
  stderrTail(): string[];
  /** Ends the agent (or the connection); resolves once it has ended. */
  dispose(): Promise<void>;
}

/** The NDJSON pipeline of an agent's connection, over its stdio or over frames said as lines (socket.ts). */
export function agentTransport(input: Readable, output: Writable, log: Logger, trace: LineTracer | undefined) {
  return ndjsonTransport(input, output, {
    log,
    coalesce: [
      ClientNotifications.sessionUpdate.method,
      ClientNotifications.completeElicitation.method,
      UnstableNotifications.authStatusUpdate.method,
      ExtensionNotifications.authStatusUpdate.method,
    ],
    onlyCoalesced: true,
    waiting: WAITING_METHODS,
    ending: ENDING_METHODS,
    trace,
  });
}

export interface AgentCommand {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the extension host's environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface AgentProcessOptions {
  readonly log?: Logger;
  /** How many stderr lines to keep for error messages. */
  readonly stderrTailLines?: number;
  /** How long SIGTERM gets before SIGKILL. */
  readonly killGraceMs?: number;
  /** How long to wait for the pipes to close after the process exited. */
  readonly closeGraceMs?: number;
  /** Sees every NDJSON line in both directions. */
  readonly trace?: LineTracer;
}

const MAX_STDERR_LINE = 2000;

export class AgentProcess implements AgentLink {
  readonly connection: AcpClientConnection;
  /** Settles once, when the process has ended: with why it ended, or why it never started. */
  readonly exited: Promise<AgentEnd>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly log: Logger;
  private readonly tail: string[] = [];
  private readonly tailLines: number;
  private stderrPartial = '';
  private disposing = false;
  private ended = false;

  private constructor(
    readonly command: AgentCommand,
    handler: ClientHandler,
    connectionOptions: ConnectionOptions,
    private readonly options: AgentProcessOptions,
  ) {
    this.log = options.log ?? silentLogger;
    this.tailLines = options.stderrTailLines ?? 200;
    const env = { ...process.env, ...command.env };
    // A bare name is looked up in PATH only, never in the working folder (which Windows would try first); a batch
    // file (npx.cmd) starts through cmd.exe with its words quoted, or is refused (spawnPlan.ts).
    const plan = hostSpawnPlan(commandToSpawn(command.command, env), command.args ?? [], env);
    this.child = spawn(plan.file, [...plan.args], {
      cwd: command.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      ...(plan.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
      detached: process.platform !== 'win32', // its own process group, so the whole tree can be signalled
      windowsHide: true,
    });
    const connectionLog = connectionOptions.log ?? this.log;
    const { reader, writer } = agentTransport(this.child.stdout, this.child.stdin, tagged(connectionLog, 'transport'), options.trace);
    this.connection = new AcpClientConnection(reader, writer, handler, { ...connectionOptions, log: connectionLog, closeWhenInputEnds: false });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => this.stderr(text));
    this.child.stdin.on('error', (error) => this.log.debug(`stdin: ${error.message}`));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        if (this.child.pid !== undefined) {
          this.log.warn(`process error: ${error.message}`);
          return;
        }
        // spawn also says ENOENT when the working folder is missing; only a missing command is "not found".
        const missingCwd = error.code === 'ENOENT' && command.cwd !== undefined && !existsSync(command.cwd);
        const failure =
          error.code === 'ENOENT' && !missingCwd
            ? new CommandNotFoundError(command.command)
            : new AgentStartError(missingCwd ? 'missingFolder' : 'os', missingCwd ? (command.cwd ?? '') : errorMessage(error));
        this.finish(failure, resolve);
      });
      this.child.once('exit', (code, signal) => {
        this.killGroup('SIGKILL'); // whatever the agent left running in its group
        const result = () => new AgentExitError(code, signal, this.stderrTail(), this.disposing);
        const timer = setTimeout(() => {
          // Something outside the group still holds the pipes: stop waiting for them.
          this.child.stdout.destroy();
          this.child.stderr.destroy();
          this.finish(result(), resolve);
        }, options.closeGraceMs ?? 1000);
        this.child.once('close', () => {
          clearTimeout(timer);
          this.finish(result(), resolve);
        });
      });
    });
  }

  /** Spawns the agent. A missing command does not throw: `exited` settles with a CommandNotFoundError. */
  static spawn(command: AgentCommand, handler: ClientHandler, connection: ConnectionOptions, options: AgentProcessOptions = {}): AgentProcess {
    return new AgentProcess(command, handler, connection, options);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.ended;
  }

  /** The last lines the agent wrote to stderr, oldest first. */
  stderrTail(): string[] {
    return this.stderrPartial ? [...this.tail, this.stderrPartial] : [...this.tail];
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. Resolves when the process is gone. */
  async dispose(): Promise<void> {
    if (this.ended) return;
    this.disposing = true;
    this.child.stdin.end();
    this.killGroup('SIGTERM');
    const timer = setTimeout(() => this.killGroup('SIGKILL'), this.options.killGraceMs ?? 2000);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private finish(reason: AgentEnd, resolve: (r: AgentEnd) => void) {
    if (this.ended) return;
    this.ended = true;
    if (this.stderrPartial) this.pushStderr(this.stderrPartial);
    this.stderrPartial = '';
    if (reason instanceof AgentExitError && reason.expected) this.log.info(`stopped (${describeEnd(reason)})`);
    else this.log.warn(reason.message);
    this.connection.close(reason);
    this.connection.dispose(); // handlers aborted by the close must not write to the dead pipe
    resolve(reason);
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') {
        if (!this.ended) taskkillTree(pid);
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private stderr(text: string): void {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = lines.pop() ?? '';
    if (this.stderrPartial.length > MAX_STDERR_LINE) {
      this.pushStderr(this.stderrPartial);
      this.stderrPartial = '';
    }
    for (const line of lines) this.pushStderr(line);
  }

  private pushStderr(raw: string): void {
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).slice(0, MAX_STDERR_LINE);
    if (!line.trim()) return;
    this.log.info(`stderr: ${line}`);
    this.tail.push(line);
    if (this.tail.length > this.tailLines) this.tail.splice(0, this.tail.length - this.tailLines);
  }
}

function describeEnd(e: AgentExitError): string {
  return e.signal ? `signal ${e.signal}` : `code ${e.code}`;
}
