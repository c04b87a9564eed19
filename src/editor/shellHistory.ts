// The last command each terminal ran, through VS Code's shell integration: its command line, its output (the end
// of it, bounded) and its exit code, for `@terminal` in the chat. VS Code gives a command's output only while it
// runs, so this watches from activation on and keeps one command per terminal; the raw output keeps its escapes
// (whoever shows it makes it plain).
import * as vscode from 'vscode';
import { DisposableStore } from '../common/disposables';

/** Output kept per command: its end. */
const MAX_OUTPUT_CHARS = 64 * 1024;

export interface ShellCommand {
  readonly commandLine: string;
  /** The end of what it printed, raw (escape sequences included). */
  readonly output: string;
  /** Whether the start of the output was left out. */
  readonly truncated: boolean;
  /** Undefined when the shell did not say (or it still runs). */
  readonly exitCode: number | undefined;
  readonly cwd: string | undefined;
}

interface Running {
  readonly execution: vscode.TerminalShellExecution;
  output: string;
  truncated: boolean;
  exitCode: number | undefined;
}

export class ShellHistory implements vscode.Disposable {
  /** Each terminal's last command, as it runs and once it has ended. */
  private readonly last = new WeakMap<vscode.Terminal, Running>();
  private readonly disposables: DisposableStore;

  constructor() {
    this.disposables = new DisposableStore(
      vscode.window.onDidStartTerminalShellExecution((event) => void this.record(event.terminal, event.execution)),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        const running = this.last.get(event.terminal);
        if (running?.execution === event.execution) running.exitCode = event.exitCode;
      }),
    );
  }

  /** The last command that finished (or runs) in `terminal`, if one was seen. */
  lastCommand(terminal: vscode.Terminal): ShellCommand | undefined {
    const running = this.last.get(terminal);
    if (!running) return undefined;
    const long = running.output.length > MAX_OUTPUT_CHARS;
    return {
      commandLine: running.execution.commandLine.value,
      output: long ? running.output.slice(-MAX_OUTPUT_CHARS) : running.output,
      truncated: running.truncated || long,
      exitCode: running.exitCode,
      cwd: running.execution.cwd?.fsPath,
    };
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const running: Running = { execution, output: '', truncated: false, exitCode: undefined };
    this.last.set(terminal, running);
    try {
      for await (const chunk of execution.read()) {
        running.output += chunk;
        // Trimmed now and then, not per chunk: a flood costs each chunk once.
        if (running.output.length > MAX_OUTPUT_CHARS * 2) {
          running.output = running.output.slice(-MAX_OUTPUT_CHARS);
          running.truncated = true;
        }
      }
    } catch {
      // The terminal went away while it was read: what was read is kept.
    }
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
