// One chat: a webview panel bound to one session. The panel owns what it creates; closing it closes the session.
// Model changes are batched into at most one post per frame, and the webview gets the whole state whenever it
// (re)loads, so it need not be kept alive while hidden.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { PromptRefusedError, type Session } from '../acp/client';
import { AgentExitError, errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import { HostMessage, WebviewMessage, type AgentErrorView } from './protocol';
import { entryView, permissionViews, turnView } from './view';

export const CHAT_VIEW_TYPE = 'acp.chat';

/** What the chat's buttons do outside the webview. Each gets the session's own state, never a path from the view. */
export interface ChatActions {
  showLog(): void;
  showDiff(session: Session, toolCallId: string, index: number): void;
  openLocation(session: Session, toolCallId: string, index: number): void;
  showTerminal(session: Session, toolCallId: string, terminalId: string, agentName: string): void;
}
const FRAME_MS = 16;
const STDERR_LINES_SHOWN = 20;

export class ChatPanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private ready = false;
  private dirtyEntries = new Set<number>();
  private dirtyTurn = false;
  private dirtyPermissions = false;
  private dirtyError = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private agentError: AgentErrorView | null = null;
  private notice: string | undefined;
  private disposed = false;

  constructor(
    readonly session: Session,
    readonly agentName: string,
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
    private readonly actions: ChatActions,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      CHAT_VIEW_TYPE,
      agentName,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
      },
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    this.panel.webview.html = this.html();
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      this.session.model.onDidChange((change) => {
        switch (change.type) {
          case 'entry':
            this.dirtyEntries.add(change.index);
            break;
          case 'turn':
            this.dirtyTurn = true;
            break;
          case 'permission':
            this.dirtyPermissions = true;
            this.updateTitle();
            break;
          default:
            return; // shown by later versions of the chat
        }
        this.schedule();
      }),
      this.session.onDidEndAgent((end) => this.agentEnded(end)),
    );
    if (this.session.ended) this.agentEnded(this.session.ended);
  }

  /** The tab shows how many permission requests wait, so a chat in the background still gets attention. */
  private updateTitle(): void {
    const waiting = this.session.model.permissions.length;
    this.panel.title = waiting > 0 ? `(${waiting}) ${this.agentName}` : this.agentName;
  }

  /** The tab's title: the agent's name, with the number of waiting permission requests in front. */
  get title(): string {
    return this.panel.title;
  }

  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel.viewColumn;
  }

  /** A quiet line in the chat. */
  tell(text: string): void {
    this.notice = text;
    if (this.ready && !this.disposed) this.post({ type: 'notice', text });
  }

  get visible(): boolean {
    return this.panel.visible;
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Sends a message as the user would from the composer; rejects when it cannot be sent. */
  send(text: string): Promise<S.StopReason> {
    if (text.trim() === '') return Promise.reject(new PromptRefusedError('the message is empty'));
    return this.session.prompt([{ type: 'text', text }]);
  }

  private agentEnded(end: AgentEnd): void {
    if (end instanceof AgentExitError && end.expected) return;
    this.agentError = { message: capitalize(end.message), stderr: (end instanceof AgentExitError ? end.stderrTail : []).slice(-STDERR_LINES_SHOWN) };
    this.dirtyError = true;
    this.schedule();
    if (!this.panel.visible) {
      void vscode.window.showErrorMessage(`${this.agentName}: ${end.message}`, 'Show Chat', 'Show Log').then((pick) => {
        if (pick === 'Show Chat') this.reveal();
        if (pick === 'Show Log') this.actions.showLog();
      });
    }
  }

  private receive(raw: unknown): void {
    const parsed = WebviewMessage.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`ignored an invalid message from the chat view: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.postState();
        break;
      case 'send':
        this.notice = undefined; // the composer clears it as it sends
        this.send(message.text).catch((error: unknown) => {
          // An error answer from the agent already shows in the turn; a refused send gives the draft back.
          if (error instanceof PromptRefusedError) this.post({ type: 'sendFailed', text: message.text, reason: errorMessage(error) });
        });
        break;
      case 'cancel':
        void this.session.cancel();
        break;
      case 'permission':
        this.session.model.resolvePermission(message.id, message.optionId);
        break;
      case 'showLog':
        this.actions.showLog();
        break;
      case 'showDiff':
        this.actions.showDiff(this.session, message.toolCallId, message.index);
        break;
      case 'openLocation':
        this.actions.openLocation(this.session, message.toolCallId, message.index);
        break;
      case 'showTerminal':
        this.actions.showTerminal(this.session, message.toolCallId, message.terminalId, this.agentName);
        break;
    }
  }

  private schedule(): void {
    if (!this.ready || this.flushTimer || this.disposed) return;
    this.flushTimer = setTimeout(() => this.flush(), FRAME_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.disposed) return;
    const model = this.session.model;
    const entries = [...this.dirtyEntries]
      .sort((a, b) => a - b)
      .flatMap((index) => {
        const entry = model.entries[index];
        return entry ? [{ index, entry: entryView(entry, this.session.cwd, model.terminals) }] : [];
      });
    this.post({
      type: 'update',
      entries,
      ...(this.dirtyTurn ? { turn: turnView(model.turn) } : {}),
      ...(this.dirtyPermissions ? { permissions: permissionViews(model) } : {}),
      ...(this.dirtyError ? { agentError: this.agentError } : {}),
    });
    this.dirtyEntries = new Set();
    this.dirtyTurn = this.dirtyPermissions = this.dirtyError = false;
  }

  private postState(): void {
    const model = this.session.model;
    this.dirtyEntries = new Set();
    this.dirtyTurn = this.dirtyPermissions = this.dirtyError = false;
    this.post({
      type: 'state',
      agent: this.agentName,
      entries: model.entries.map((entry) => entryView(entry, this.session.cwd, model.terminals)),
      turn: turnView(model.turn),
      permissions: permissionViews(model),
      agentError: this.agentError,
      ...(this.notice ? { notice: this.notice } : {}),
    });
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>${escapeHtml(this.agentName)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.flushTimer);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
    void this.session.close();
    this.disposeEmitter.fire();
    this.disposeEmitter.dispose();
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
