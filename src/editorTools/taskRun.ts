// A task's command run in its own terminal through a pseudoterminal, so that its output is both shown and kept: the
// terminal gets every byte, a bounded tail is kept for the answer. Its process group is ended when the terminal is
// closed or the task stopped; Ctrl+C in the terminal interrupts it, other keys go to its input.
import { hostSpawnPlan, type SpawnPlan } from '../acp/spawnPlan';
import { spawn, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { killGroup, OutputTail } from '../acp/terminals';
import { errorMessage } from '../acp/errors';

/** What to start: a file and its arguments, or a line for `shell`. */
export interface RunCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly shell: string | boolean;
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
}

/** The tail of the output kept for the answer, in bytes (the terminal shows all of it). */
const TAIL_BYTES = 64 * 1024;
/** After its process exits, how long the pipes get to deliver what it printed last. */
const DRAIN_MS = 200;
const KILL_GRACE_MS = 3000;

export class CapturedRun implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  private readonly closer = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writer.event;
  readonly onDidClose = this.closer.event;
  private readonly tail = new OutputTail(TAIL_BYTES);
  private readonly decoder = new TextDecoder('utf-8');
  private child: ChildProcess | undefined;
  private end: ((status: { exitCode: number | null; signal: string | null }) => void) | undefined;
  /** Settles when the process has exited (or could not start). */
  readonly exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => (this.end = resolve));
  private done = false;

  constructor(private readonly command: RunCommand) {}

  open(): void {
    const { file, args, shell, cwd, env } = this.command;
    this.writer.fire(`\x1b[2m> ${shell === false ? [file, ...args].join(' ') : file}\x1b[0m\r\n`);
    // A process task whose program is a batch file (npm.cmd) starts through cmd.exe on Windows, or is refused.
    let plan: SpawnPlan = { file, args };
    if (shell === false) {
      try {
        plan = hostSpawnPlan(file, args, env);
      } catch (error) {
        this.writer.fire(`${errorMessage(error)}\r\n`);
        this.finish({ exitCode: 127, signal: null });
        return;
      }
    }
    const child = spawn(plan.file, [...plan.args], {
      cwd,
      env,
      shell,
      detached: process.platform !== 'win32',
      windowsHide: true,
      ...(plan.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
    });
    this.child = child;
    // The window closing or reloading ends the task's processes, as it ends a terminal's.
    const onHostExit = () => killGroup(child, 'SIGKILL');
    process.once('exit', onHostExit);
    child.once('close', () => process.removeListener('exit', onHostExit));
    // Input to a command that has exited, or reads none, is dropped.
    child.stdin?.on('error', () => undefined);
    const take = (data: Buffer) => {
      this.tail.append(data);
      const text = this.decoder.decode(data, { stream: true });
      // A terminal needs a carriage return to start a line at its left.
      if (text) this.writer.fire(text.replace(/\r?\n/g, '\r\n'));
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('error', (error) => {
      take(Buffer.from(`${error.message}\n`));
      this.finish({ exitCode: 127, signal: null });
    });
    child.once('exit', (code, signal) => {
      const status = { exitCode: code, signal };
      const drained = setTimeout(() => this.finish(status), DRAIN_MS);
      child.once('close', () => {
        clearTimeout(drained);
        this.finish(status);
      });
    });
  }

  /** The terminal was closed, or the task stopped: its processes end. */
  close(): void {
    const child = this.child;
    if (!child) return;
    // After the command exited too: what it started in the background is still in its group.
    killGroup(child, 'SIGTERM');
    // One that ignores SIGTERM is killed after a grace.
    setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS).unref();
  }

  handleInput(data: string): void {
    if (!this.child || this.done) return;
    if (data === '\x03') killGroup(this.child, 'SIGINT');
    else this.child.stdin?.write(data);
  }

  /** The tail of what it printed. */
  output(): string {
    return this.tail.text();
  }

  private finish(status: { exitCode: number | null; signal: string | null }): void {
    if (this.done) return;
    this.done = true;
    this.end?.(status);
    this.writer.fire(`\r\n\x1b[2m${status.signal ? `Ended by ${status.signal}` : `Exit code ${status.exitCode}`}\x1b[0m\r\n`);
    this.closer.fire(status.exitCode ?? 1);
    this.writer.dispose();
    this.closer.dispose();
  }
}
