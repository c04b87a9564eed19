// One chat: a webview panel and the session it shows. The panel lives until the user closes it; the session it
// is attached to lives as long as its agent connection, so a restart or a restored window attaches a new one.
// Model changes are batched into at most one post per frame, and the webview gets the whole state whenever it
// (re)loads, so it need not be kept alive while hidden.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import { PromptRefusedError } from '../acp/sessionHandle';
import { AcpError, AgentExitError, errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import { attachmentView, buildPrompt, type Attachment, type NewAttachment } from './prompt';
import { type HostMessage, imageRefusal, WebviewMessage, type AgentErrorView, type AttachmentView, type EntryView, type ErrorAction, type FileMatch } from './protocol';
import { entryView, permissionViews, sessionView, turnView, type PromptAccepts } from './view';

import { CHAT_VIEW_TYPE } from '../ids';

export { CHAT_VIEW_TYPE };

/** What the chat's buttons and links do outside the webview. Each gets the session's own state, never a path from the view. */
export interface ChatActions {
  showLog(): void;
  openAgentSettings(): void;
  /** VS Code's workspace trust editor. */
  manageTrust(): void;
  showDiff(session: AgentSession, toolCallId: string, index: number): void;
  openLocation(session: AgentSession, toolCallId: string, index: number): void;
  showTerminal(session: AgentSession, toolCallId: string, terminalId: string, agentName: string): void;
  /** A link in agent text: workspace files open in the editor, web links through VS Code's opener. */
  openLink(href: string, cwd: string | undefined): void;
  copy(text: string): void;
  insertAtCursor(text: string): void;
}

/** The workspace files a chat can mention. */
export interface ChatFiles {
  search(query: string): Promise<FileMatch[]>;
  /** The absolute path of a path `search` returned, when it is a file inside the workspace. */
  resolve(path: string): string | undefined;
  /** The file's current text (its editor buffer, unsaved edits included), or undefined when it is not text. */
  readText(path: string): Promise<string | undefined>;
}

export interface ChatDeps {
  readonly extensionUri: vscode.Uri;
  readonly log: Logger;
  readonly actions: ChatActions;
  readonly files: ChatFiles;
}

const FRAME_MS = 16;
/** Longest wait for VS Code to hand an update to the webview before the next one is posted anyway. */
const DELIVERY_TIMEOUT_MS = 1000;
const STDERR_LINES_SHOWN = 20;
const NO_ACCEPTS: PromptAccepts = { image: false, embeddedContext: false };

export class ChatPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** The attached session's listeners: a connection lifetime, disposed when another session is attached. */
  private sessionDisposables: vscode.Disposable[] = [];
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly actionEmitter = new vscode.EventEmitter<'restart' | 'signIn'>();
  /**
   * The chat needs the agent restarted (the user pressed Restart Agent) or the user signed in (Sign In, or a
   * message the agent refused until the user signs in).
   */
  readonly onDidRequestAction = this.actionEmitter.event;
  private readonly activeEmitter = new vscode.EventEmitter<void>();
  /** The panel became the active editor. */
  readonly onDidBecomeActive = this.activeEmitter.event;
  private readonly titleEmitter = new vscode.EventEmitter<void>();
  /** The tab's title changed (the session's title, or the count of waiting permission requests). */
  readonly onDidChangeTitle = this.titleEmitter.event;
  private current: AgentSession | undefined;
  private ready = false;
  private dirtyEntries = new Set<number>();
  private dirtyTurn = false;
  private dirtyPermissions = false;
  private dirtyError = false;
  private dirtySession = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** An update was posted and VS Code has not yet handed it to the webview. */
  private inFlight = false;
  private lastPostAt = 0;
  private agentError: AgentErrorView | null = null;
  private notice: string | undefined;
  /** An earlier session's entries, kept for reading when a restart could not bring the conversation back. */
  private earlier: EntryView[] = [];
  /** The session to bring back once the chat can connect (kept in the view's state meanwhile, so a reload keeps it). */
  restoreLater: { readonly sessionId: string; readonly cwd: string } | undefined;
  /** What the line below the earlier entries says, when it is not a restart. */
  private divider: string | undefined;
  private attachments: Attachment[] = [];
  private nextAttachment = 1;
  private disposed = false;

  /** Opens a new panel beside the editor. */
  static open(agentName: string, deps: ChatDeps): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, agentName, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, ChatPanel.webviewOptions(deps.extensionUri));
    return new ChatPanel(panel, agentName, deps);
  }

  static webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
  }

  /** Takes over `panel`: a new one, or one VS Code restored after a reload. */
  constructor(
    private readonly panel: vscode.WebviewPanel,
    readonly agentName: string,
    private readonly deps: ChatDeps,
  ) {
    panel.webview.options = ChatPanel.webviewOptions(deps.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png');
    panel.title = agentName;
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState((event) => {
        if (event.webviewPanel.active) this.activeEmitter.fire();
      }),
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
    );
  }

  /** The session shown, if one is attached. */
  get session(): AgentSession | undefined {
    return this.current;
  }

  /** What the chat shows above its session: an earlier session's entries, or a transcript kept on this computer. */
  get earlierEntries(): readonly EntryView[] {
    return this.earlier;
  }

  /**
   * Shows `session` from now on. `keepEarlier` keeps the previous session's entries above it, for a session that
   * does not bring the conversation back (a fresh one, or one resumed without a replay).
   */
  attach(session: AgentSession, keepEarlier = false): void {
    const previous = this.current;
    for (const d of this.sessionDisposables) d.dispose();
    if (previous && keepEarlier) {
      this.earlier = [...this.earlier, ...this.viewsOf(previous)];
      this.divider = undefined;
    } else if (!keepEarlier) {
      this.earlier = [];
      this.divider = undefined;
    }
    if (previous && previous !== session) void previous.close();
    this.current = session;
    this.agentError = null;
    this.sessionDisposables = [
      session.model.onDidChange((change) => {
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
          case 'terminal':
            return; // the tool entries that show it change too
          case 'info':
            this.updateTitle();
            this.dirtySession = true;
            break;
          default:
            this.dirtySession = true;
        }
        this.schedule();
      }),
      session.onDidEndAgent((end) => this.agentEnded(end)),
    ];
    this.updateTitle();
    if (this.ready) this.postState();
    if (session.ended) this.agentEnded(session.ended);
  }

  /** Starting or reopening the agent failed: the chat shows why, with what the user can do (Restart Agent first). */
  fail(message: string, stderr: readonly string[], actions: readonly ErrorAction[] = ['restart', 'showLog']): void {
    this.agentError = { message: capitalize(message), stderr: stderr.slice(-STDERR_LINES_SHOWN), actions: [...actions] };
    this.dirtyError = true;
    this.schedule();
  }

  /**
   * Shows `entries` above the session's own, with `divider` below them: a conversation kept on this computer that
   * the agent cannot replay. Attach the session with `keepEarlier` to keep them.
   */
  showEarlier(entries: EntryView[], divider: string): void {
    this.earlier = entries;
    this.divider = divider;
    if (this.ready && !this.disposed) this.postState();
  }

  private viewsOf(session: AgentSession): EntryView[] {
    return session.model.entries.map((entry) => entryView(entry, session.cwd, session.model.terminals));
  }

  /** The tab shows the session's title (or the agent's name), and how many permission requests wait. */
  private updateTitle(): void {
    const model = this.current?.model;
    const base = model?.title || this.agentName;
    const waiting = model?.permissions.length ?? 0;
    const title = waiting > 0 ? `(${waiting}) ${base}` : base;
    if (title === this.panel.title) return;
    this.panel.title = title;
    this.titleEmitter.fire();
  }

  get title(): string {
    return this.panel.title;
  }

  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel.viewColumn;
  }

  get active(): boolean {
    return this.panel.active;
  }

  get visible(): boolean {
    return this.panel.visible;
  }

  /** A quiet line in the chat. */
  tell(text: string): void {
    this.notice = text;
    if (this.ready && !this.disposed) this.post({ type: 'notice', text });
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Adds context to the message being written (from the editor's commands), and brings the chat forward. */
  addAttachment(attachment: NewAttachment): void {
    const same = this.attachments.find((a) => a.kind === attachment.kind && a.label === attachment.label);
    if (!same) this.attachments.push({ ...attachment, id: String(this.nextAttachment++) } as Attachment);
    this.panel.reveal(undefined, false);
    this.postAttachments(true);
  }

  private get accepts(): PromptAccepts {
    return this.current?.client.accepts ?? NO_ACCEPTS;
  }

  /** What is attached to the message being written. */
  get pendingAttachments(): readonly AttachmentView[] {
    return this.attachments.map(attachmentView);
  }

  /** Sends a message as the user would from the composer, with everything attached; rejects when it cannot be sent. */
  send(text: string): Promise<S.StopReason> {
    return this.sendWith(text, this.attachments.map((a) => a.id));
  }

  private async sendPrompt(text: string, attachments: readonly Attachment[]): Promise<S.StopReason> {
    const session = this.current;
    if (!session) throw new PromptRefusedError(vscode.l10n.t('{0} is not connected yet', this.agentName));
    const files = new Map<string, string | undefined>();
    if (this.accepts.embeddedContext) {
      for (const a of attachments) if (a.kind === 'file') files.set(a.path, await this.deps.files.readText(a.path));
    }
    const prompt = buildPrompt(text, attachments, files, this.accepts);
    if (prompt.length === 0) throw new PromptRefusedError('the message is empty');
    return session.prompt(prompt);
  }

  private agentEnded(end: AgentEnd): void {
    if (end instanceof AgentExitError && end.expected) return;
    this.fail(end.message, end instanceof AgentExitError ? end.stderrTail : []);
    if (!this.panel.visible) {
      const show = vscode.l10n.t('Show Chat');
      const log = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(vscode.l10n.t('{0}: {1}', this.agentName, end.message), show, log).then((pick) => {
        if (pick === show) this.reveal();
        if (pick === log) this.deps.actions.showLog();
      });
    }
  }

  private receive(raw: unknown): void {
    const parsed = WebviewMessage.safeParse(raw);
    if (!parsed.success) {
      this.deps.log.warn(`[chat] ignored an invalid message from the chat view: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    const message = parsed.data;
    const session = this.current;
    const actions = this.deps.actions;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.postState();
        break;
      case 'send':
        this.sendFromComposer(message.text, message.attachments);
        break;
      case 'cancel':
        void session?.cancel();
        break;
      case 'permission':
        session?.model.resolvePermission(message.id, message.optionId);
        break;
      case 'errorAction':
        if (message.action === 'restart' || message.action === 'signIn') this.actionEmitter.fire(message.action);
        else if (message.action === 'showLog') actions.showLog();
        else if (message.action === 'openSettings') actions.openAgentSettings();
        else actions.manageTrust();
        break;
      case 'showDiff':
        if (session) actions.showDiff(session, message.toolCallId, message.index);
        break;
      case 'openLocation':
        if (session) actions.openLocation(session, message.toolCallId, message.index);
        break;
      case 'showTerminal':
        if (session) actions.showTerminal(session, message.toolCallId, message.terminalId, this.agentName);
        break;
      case 'openLink':
        actions.openLink(message.href, session?.cwd);
        break;
      case 'copy':
        actions.copy(message.text);
        break;
      case 'insert':
        actions.insertAtCursor(message.text);
        break;
      case 'searchFiles':
        void this.deps.files.search(message.query).then(
          (files) => this.post({ type: 'files', requestId: message.requestId, files }),
          (error: unknown) => this.deps.log.warn(`[chat] file search failed: ${errorMessage(error)}`),
        );
        break;
      case 'mention': {
        const path = this.deps.files.resolve(message.path);
        if (path) this.addAttachment({ kind: 'file', path, label: message.path });
        else this.tell(vscode.l10n.t('{0} is not a file in this workspace, so it was not attached.', message.path));
        break;
      }
      case 'attachImage':
        this.attachImage(message.name, message.mimeType, message.data);
        break;
      case 'removeAttachment':
        this.attachments = this.attachments.filter((a) => a.id !== message.id);
        this.postAttachments(false);
        break;
      case 'setMode':
        if (session) void session.setMode(message.modeId).catch((error: unknown) => this.pickerFailed('the mode', error));
        break;
      case 'setConfig':
        if (session) void session.setConfigOption(message.configId, message.value).catch((error: unknown) => this.pickerFailed(message.configId, error));
        break;
    }
  }

  private sendFromComposer(text: string, ids: readonly string[]): void {
    this.notice = undefined; // the composer clears it as it sends
    this.sendWith(text, ids).catch((error: unknown) => {
      // An error answer from the agent already shows in the turn; a refused send gives the draft back, and so does
      // one the agent refused until the user signs in, which starts signing in.
      if (error instanceof PromptRefusedError) this.post({ type: 'sendFailed', text, reason: errorMessage(error) });
      else if (error instanceof AcpError && error.isAuthRequired) {
        this.post({ type: 'sendFailed', text, reason: vscode.l10n.t('{0} needs you to sign in first.', this.agentName) });
        this.actionEmitter.fire('signIn');
      }
    });
  }

  /** Sends with the chosen attachments, which leave the composer; a refused send gives them back. */
  private async sendWith(text: string, ids: readonly string[]): Promise<S.StopReason> {
    const chosen = this.attachments.filter((a) => ids.includes(a.id));
    this.attachments = this.attachments.filter((a) => !ids.includes(a.id));
    this.postAttachments(false);
    try {
      return await this.sendPrompt(text, chosen);
    } catch (error) {
      if (error instanceof PromptRefusedError) {
        this.attachments = [...chosen, ...this.attachments];
        this.postAttachments(false);
      }
      throw error;
    }
  }

  private attachImage(name: string, mimeType: string, data: string): void {
    const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
    const refusal = imageRefusal(vscode.l10n.t, this.agentName, this.accepts, mimeType, bytes) ?? (/^[A-Za-z0-9+/]*={0,2}$/.test(data) ? undefined : vscode.l10n.t('The image could not be read.'));
    if (refusal) {
      this.tell(refusal);
      return;
    }
    this.addAttachment({ kind: 'image', label: name || 'pasted image', mimeType, data });
  }

  private pickerFailed(what: string, error: unknown): void {
    const reason = errorMessage(error);
    this.deps.log.warn(`[chat] ${this.agentName} did not change ${what}: ${reason}`);
    this.tell(vscode.l10n.t('{0} did not change {1}: {2}.', this.agentName, what, reason));
    this.dirtySession = true; // the picker goes back to what the agent has
    this.schedule();
  }

  private postAttachments(focus: boolean): void {
    if (this.ready && !this.disposed) this.post({ type: 'attachments', attachments: this.attachments.map(attachmentView), focus });
  }

  /**
   * Flushes what changed within a frame (16 ms), and never while the last update is still on its way. When the
   * webview's renderer is busy, VS Code hands posts over late: measured in the UI benchmark's flood, posts made every
   * frame reached the webview one every 100–250 ms, the last 1.4 s after it was made, and the webview received and
   * rendered each of them in turn. Waiting for delivery instead makes each post carry everything that changed
   * meanwhile, so no backlog builds up (the flood now takes about ten posts).
   */
  private schedule(delay = FRAME_MS): void {
    if (!this.ready || this.flushTimer || this.inFlight || this.disposed) return;
    this.flushTimer = setTimeout(() => this.flush(), delay);
  }

  private get dirty(): boolean {
    return this.dirtyEntries.size > 0 || this.dirtyTurn || this.dirtyPermissions || this.dirtyError || this.dirtySession;
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.disposed) return;
    const session = this.current;
    const model = session?.model;
    const entries = model
      ? [...this.dirtyEntries]
          .sort((a, b) => a - b)
          .flatMap((index) => {
            const entry = model.entries[index];
            return entry ? [{ index, entry: entryView(entry, session.cwd, model.terminals) }] : [];
          })
      : [];
    this.inFlight = true;
    this.lastPostAt = Date.now();
    let timeout: NodeJS.Timeout | undefined;
    const delivered = () => {
      clearTimeout(timeout);
      if (!this.inFlight) return;
      this.inFlight = false;
      // What changed meanwhile goes at once, though a frame after the last post at the earliest.
      if (this.dirty) this.schedule(Math.max(0, this.lastPostAt + FRAME_MS - Date.now()));
    };
    timeout = setTimeout(delivered, DELIVERY_TIMEOUT_MS);
    this.post({
      type: 'update',
      entries,
      ...(this.dirtyTurn && model ? { turn: turnView(model.turn) } : {}),
      ...(this.dirtyPermissions && model ? { permissions: permissionViews(model) } : {}),
      ...(this.dirtyError ? { agentError: this.agentError } : {}),
      ...(this.dirtySession && model ? { session: sessionView(model, this.accepts) } : {}),
    }).then(delivered, delivered);
    this.dirtyEntries = new Set();
    this.dirtyTurn = this.dirtyPermissions = this.dirtyError = this.dirtySession = false;
  }

  private postState(): void {
    const session = this.current;
    const model = session?.model;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.dirtyEntries = new Set();
    this.dirtyTurn = this.dirtyPermissions = this.dirtyError = this.dirtySession = false;
    this.post({
      type: 'state',
      agent: this.agentName,
      ...(session ? { restore: { agent: this.agentName, sessionId: session.sessionId, cwd: session.cwd } } : this.restoreLater ? { restore: { agent: this.agentName, ...this.restoreLater } } : {}),
      earlier: this.earlier,
      ...(this.divider ? { divider: this.divider } : {}),
      entries: session ? this.viewsOf(session) : [],
      turn: model ? turnView(model.turn) : { phase: 'idle' },
      permissions: model ? permissionViews(model) : [],
      agentError: this.agentError,
      session: model
        ? sessionView(model, this.accepts)
        : { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: false } },
      attachments: this.attachments.map(attachmentView),
      ...(this.notice ? { notice: this.notice } : {}),
      ...translations(),
    });
  }

  private post(message: HostMessage): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = randomBytes(16).toString('base64');
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.deps.extensionUri, 'dist', name)).toString();
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
<link rel="stylesheet" href="${asset('webview.css')}">
<title>${escapeHtml(this.agentName)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.flushTimer);
    for (const d of [...this.sessionDisposables, ...this.disposables]) d.dispose();
    this.panel.dispose();
    void this.current?.close();
    this.disposeEmitter.fire();
    for (const emitter of [this.disposeEmitter, this.actionEmitter, this.activeEmitter, this.titleEmitter]) emitter.dispose();
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The extension's translations for the webview, when VS Code loaded a bundle (not in English): strings only, so the state message stays valid. */
function translations(): { l10n?: Record<string, string> } {
  const bundle: Readonly<Record<string, unknown>> | undefined = vscode.l10n.bundle;
  if (!bundle) return {};
  return { l10n: Object.fromEntries(Object.entries(bundle).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) };
}
