// The chat view in the secondary side bar, as VS Code's own chat has it: one chat at a time, with the same page,
// state and restore as a chat in an editor tab. The view is VS Code's (it resolves it when it is first shown, and
// again after it was closed); this hands it to one chat as its surface, and shows a short page when no chat is there.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { sideBarSurface, type ChatSurface } from '../chat/surface';
import { CHAT_SIDE_BAR_VIEW_ID } from '../ids';

/** How long the view may take to appear after it was asked to show. */
const RESOLVE_TIMEOUT_MS = 10_000;

export class SideBarChatView implements vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** The surface a chat holds now, if one is there. */
  private held: ChatSurface | undefined;
  private readonly resolvedEmitter = new vscode.EventEmitter<vscode.WebviewView>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
  ) {}

  /** Whether a chat is in the side bar now. */
  get occupied(): boolean {
    return this.held !== undefined;
  }

  /** VS Code resolved the view: shown for the first time in this window, or again after it was closed. */
  resolved(view: vscode.WebviewView): void {
    this.view = view;
    this.held = undefined;
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
    this.showEmpty(view);
    this.resolvedEmitter.fire(view);
  }

  /**
   * The side bar's view as a chat's surface, shown. Whoever holds it now must have let go (see `occupied`). Rejects
   * when the view does not appear.
   */
  async take(): Promise<ChatSurface> {
    const view = this.view ?? (await this.reveal());
    const surface = sideBarSurface(
      view,
      (preserveFocus) => view.show(preserveFocus),
      () => {
        if (this.held === surface) this.held = undefined;
        // The view stays (VS Code's), now empty, unless it was the view that went away.
        if (this.view === view) this.showEmpty(view);
      },
    );
    this.held = surface;
    view.show(false);
    return surface;
  }

  /** Shows the view, and waits for VS Code to resolve it. */
  private async reveal(): Promise<vscode.WebviewView> {
    const resolved = new Promise<vscode.WebviewView>((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.dispose();
        reject(new Error(vscode.l10n.t('The chat view in the side bar did not open.')));
      }, RESOLVE_TIMEOUT_MS);
      const subscription = this.resolvedEmitter.event((view) => {
        clearTimeout(timer);
        subscription.dispose();
        resolve(view);
      });
    });
    try {
      await vscode.commands.executeCommand(`${CHAT_SIDE_BAR_VIEW_ID}.focus`);
    } catch (error) {
      this.log.warn(`[chats] could not show the chat view in the side bar: ${errorMessage(error)}`);
    }
    return this.view ?? resolved;
  }

  /**
   * The page of an empty view: a stylesheet of the extension's own, one link that starts a chat here, and one line
   * of script that forgets the state a chat's page kept in this view (so a reload does not bring back a chat that
   * moved to a tab).
   */
  private showEmpty(view: vscode.WebviewView): void {
    view.description = undefined;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, enableCommandUris: ['acp.newChatInSideBar'], localResourceRoots: [media] };
    const css = view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'empty-chat.css')).toString();
    const nonce = randomBytes(16).toString('base64');
    const words = vscode.l10n.t('No chat here yet.');
    const start = vscode.l10n.t('Start a new chat here');
    const move = vscode.l10n.t('or choose Move Chat to Side Bar in a chat.');
    view.webview.html = `<!DOCTYPE html><html><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${view.webview.cspSource}; script-src 'nonce-${nonce}'"><link rel="stylesheet" href="${css}"></head><body><p>${escapeHtml(words)}</p><p><a href="command:acp.newChatInSideBar">${escapeHtml(start)}</a>, ${escapeHtml(move)}</p><script nonce="${nonce}">acquireVsCodeApi().setState(null);</script></body></html>`;
  }

  dispose(): void {
    this.resolvedEmitter.dispose();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
