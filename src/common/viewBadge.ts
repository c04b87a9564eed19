// The badge on the ACP view container (the Sessions view's), shared: the chats that need the user and the agents
// with an update each set their part, and the badge shows the sum, its tooltip each part's sentence.
import type * as vscode from 'vscode';

export class ViewBadge {
  private readonly parts = new Map<string, { readonly value: number; readonly tooltip: string }>();

  constructor(private readonly view: vscode.TreeView<unknown>) {}

  /** Sets one part of the badge (a count and what it counts); 0 removes it. */
  set(part: string, value: number, tooltip: string): void {
    if (value > 0) this.parts.set(part, { value, tooltip });
    else this.parts.delete(part);
    const total = [...this.parts.values()].reduce((sum, p) => sum + p.value, 0);
    this.view.badge = total > 0 ? { value: total, tooltip: [...this.parts.values()].map((p) => p.tooltip).join('; ') } : undefined;
  }
}
