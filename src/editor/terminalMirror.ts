// "Show in Terminal": a command's output, mirrored in a VS Code terminal through a Pseudoterminal. The terminal shows
// what was printed so far and follows along, colours included; it is read-only (the agent owns the command).
import * as vscode from 'vscode';
import { disposeAll } from '../common/disposables';
import type { AgentSession } from '../acp/agentClient';

export class TerminalMirrors implements vscode.Disposable {
  private readonly open = new Map<string, vscode.Terminal>();
  /** Each session a number of its own: two agents may give their sessions (and terminals) the same ids. */
  private readonly sessions = new WeakMap<AgentSession, number>();
  private counted = 0;

  show(session: AgentSession, terminalId: string, name: string): void {
    if (!this.sessions.has(session)) this.sessions.set(session, this.counted++);
    const key = `${this.sessions.get(session)}\u0000${terminalId}`;
    const existing = this.open.get(key);
    if (existing) {
      existing.show();
      return;
    }
    const model = session.model;
    const write = new vscode.EventEmitter<string>();
    let subscription: vscode.Disposable | undefined;
    const exitLine = () => {
      const status = model.terminals.get(terminalId)?.exitStatus;
      if (!status) return;
      const line = status.signal
        ? vscode.l10n.t('[The command ended by {0}.]', status.signal)
        : status.exitCode != null
          ? vscode.l10n.t('[The command exited with code {0}.]', status.exitCode)
          : vscode.l10n.t('[The command exited with code unknown.]');
      write.fire(`\r\n\u001b[2m${line}\u001b[0m\r\n`);
    };
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => {
        const state = model.terminals.get(terminalId);
        const header = state?.truncated ? `${vscode.l10n.t('[Earlier output was not kept.]')}\r\n` : '';
        write.fire(`\u001b[2m${header}${vscode.l10n.t("[Output of the agent's command; read-only.]")}\u001b[0m\r\n${crlf(state?.text ?? '')}`);
        exitLine();
        subscription = model.onDidChange((change) => {
          if (change.type !== 'terminal' || change.terminalId !== terminalId) return;
          // A v2 agent's terminal_update sends all of its output again: the mirror starts over.
          if (change.replaced) write.fire(`\u001bc${crlf(change.appended)}`);
          else if (change.appended) write.fire(crlf(change.appended));
          else exitLine();
        });
      },
      close: () => {
        subscription?.dispose();
        write.dispose();
        this.open.delete(key);
      },
      handleInput: () => {
        // Read-only: keystrokes do not reach the agent's command.
      },
    };
    const terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('terminal') });
    this.open.set(key, terminal);
    terminal.show();
  }

  dispose(): void {
    disposeAll(this.open.values());
    this.open.clear();
  }
}

/** A terminal needs CRLF; output from pipes has bare LF. */
function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
