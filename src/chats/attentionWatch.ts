// Never miss a chat that needs you: the view container's badge counts the chats that wait for the user, and a
// window without the focus gets one notification when a turn ends or starts waiting (`acp.notify`).
import * as vscode from 'vscode';
import { notificationFor, type NotifySetting } from '../chat/attention';
import type { ChatPanel } from '../chat/panel';
import type { ViewBadge } from '../common/viewBadge';
import { SECTION } from '../ids';
import type { Chats } from './chats';
import { DisposableStore } from '../common/disposables';

export class AttentionWatch implements vscode.Disposable {
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    private readonly badge: ViewBadge,
  ) {
    this.disposables = new DisposableStore(
      chats.onDidChange(() => this.count()),
      chats.onDidChangeAttention((change) => this.notify(change.panel, change.before, change.after)),
    );
  }

  private count(): void {
    const waiting = this.chats.all.filter((panel) => panel.attention === 'needsYou').length;
    this.badge.set(
      'chats',
      waiting,
      waiting === 1 ? vscode.l10n.t('A chat needs your answer') : vscode.l10n.t('{0} chats need your answer', waiting),
    );
  }

  private notify(panel: ChatPanel, before: ChatPanel['attention'], after: ChatPanel['attention']): void {
    const setting =
      vscode.workspace.getConfiguration(SECTION).get<string>('notify') === 'never' ? 'never' : ('whenUnfocused' satisfies NotifySetting);
    const what = notificationFor(before, after, vscode.window.state.focused, setting);
    if (!what) return;
    // A permission request has a notification of its own (and a reminder when the window comes back): one is enough.
    if (what === 'needsYou' && panel.model.questionsWaiting === 0) return;
    const show = vscode.l10n.t('Show Chat');
    const message = what === 'needsYou' ? vscode.l10n.t('{0} needs your answer', panel.agentName) : vscode.l10n.t('{0} finished', panel.agentName);
    void vscode.window.showInformationMessage(`${message}: ${panel.title}`, show).then((choice) => {
      if (choice === show) panel.reveal();
    });
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
