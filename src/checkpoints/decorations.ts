// Files an agent changed and the user has not kept yet carry a mark in the Explorer and on their editor tabs,
// with a tooltip that names the chat. Keep, Undo and a closed chat clear it.
import * as vscode from 'vscode';
import type { Checkpoints } from './checkpoints';
import { uriOf } from './io';

const LETTERS: Record<string, string> = { A: 'A', M: 'M', R: 'R' };

export class AgentChangeDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changeEmitter.event;
  private marked = new Map<string, vscode.FileDecoration>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly checkpoints: Checkpoints) {
    this.subscription = checkpoints.onDidChange(() => this.refresh());
  }

  private refresh(): void {
    const next = new Map<string, vscode.FileDecoration>();
    for (const chat of this.checkpoints.tracked) {
      for (const { file, status } of chat.tracker.unreviewed()) {
        const uri = uriOf(file).toString();
        const decoration = new vscode.FileDecoration(
          `✦${LETTERS[status] ?? ''}`.slice(0, 2),
          vscode.l10n.t('Changed by {0}, not kept yet', chat.title()),
          new vscode.ThemeColor('acp.agentChangedForeground'),
        );
        next.set(uri, decoration);
      }
    }
    const changed = new Set([...this.marked.keys(), ...next.keys()]);
    this.marked = next;
    if (changed.size > 0) this.changeEmitter.fire([...changed].map((u) => vscode.Uri.parse(u)));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    return this.marked.get(uri.toString());
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
}
