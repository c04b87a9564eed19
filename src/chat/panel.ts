// One chat: a webview panel and the session it shows. The panel lives until the user closes it; the session it
// is attached to lives as long as its agent connection, so a restart or a restored window attaches a new one (the
// chats' ChatSession owns what lives as long as one session, this panel's subscriptions to it included).
// Model changes are batched into at most one post per frame (viewSync.ts), and the webview gets the whole state
// whenever it (re)loads, so it need not be kept alive while hidden. Its page is in html.ts.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import { PromptRefusedError, type SteerOutcome } from '../acp/sessionHandle';
import { WhileBusyMessages } from './whileBusy';
import type { WhileBusy } from './queue';
import { AcpError, AgentExitError, errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import { Attachments } from './attachments';
import { buildPrompt, type Attachment, type NewAttachment } from './prompt';
import {
  EMPTY_SESSION,
  NO_CHECKPOINTS,
  imageRefusal,
  sizeLabel,
  WebviewMessage,
  type AgentErrorView,
  type AttachmentView,
  type CheckpointsView,
  type EntryView,
  type ErrorAction,
  type ElicitationView,
  type FieldInput,
  type FileMatch,
  type MentionKind,
  type PromptView,
  type QueueView,
  type SubagentView,
} from './protocol';
import { entryView, permissionViews, sessionView, subagentViews, turnView, type PromptAccepts } from './view';
import type { SessionModel } from '../acp/sessionModel';
import { chatHtml, translations, webviewOptions } from './html';
import { ViewSync, type StateMessage, type UpdateMessage, type ViewChanges } from './viewSync';

import { CHAT_VIEW_TYPE } from '../ids';
import { ACCEPTS_NOTHING } from '../acp/capabilities';
import type { SessionTarget } from '../common/sessionTarget';
import { attentionMark, attentionOf, type Attention } from './attention';
import { ASK_BYTES } from './contextText';
import { ComposerContext, type ChatFiles, type ChatPrompts } from './composerContext';
import { ChatQuestions } from './questions';
import { editorSurface, type ChatLocation, type ChatSurface } from './surface';

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

/** What the user asked of the chat's checkpoints. */
export type CheckpointRequest = Extract<
  WebviewMessage,
  { type: 'changes' | 'openChange' | 'restoreCheckpoint' | 'redoRestore' | 'checkpointAnswer' }
>;

export interface ChatDeps {
  readonly extensionUri: vscode.Uri;
  readonly log: Logger;
  readonly actions: ChatActions;
  readonly files: ChatFiles;
  readonly prompts: ChatPrompts;
}

const STDERR_LINES_SHOWN = 20;

export class ChatPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly sync: ViewSync;
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly actionEmitter = new vscode.EventEmitter<'restart' | 'signIn' | { readonly fork: number }>();
  /**
   * The chat needs the agent restarted (the user pressed Restart Agent) or the user signed in (Sign In, or a
   * message the agent refused until the user signs in), or the user asked for a fork from one of their messages.
   */
  readonly onDidRequestAction = this.actionEmitter.event;
  private readonly activeEmitter = new vscode.EventEmitter<void>();
  /** The panel became the active editor. */
  readonly onDidBecomeActive = this.activeEmitter.event;
  /** Acts on a changes card's button or file, Restore Checkpoint, or an answer (whoever tracks the checkpoints). */
  private checkpointHandler: ((request: CheckpointRequest) => Promise<void>) | undefined;
  private readonly titleEmitter = new vscode.EventEmitter<void>();
  /** The user has seen the chat since its last turn ended (see attention.ts). */
  private seen = true;
  private attentionState: Attention = 'none';
  private readonly attentionEmitter = new vscode.EventEmitter<{ readonly before: Attention; readonly after: Attention }>();
  /** What the chat asks of its user changed: working, needs you, done and not yet seen, failed, or nothing. */
  readonly onDidChangeAttention = this.attentionEmitter.event;
  /** The tab's title changed (the session's title, or the count of waiting permission requests). */
  readonly onDidChangeTitle = this.titleEmitter.event;
  private current: AgentSession | undefined;
  private plainTitle: string;
  private agentError: AgentErrorView | null = null;
  private notice: string | undefined;
  /** An earlier session's entries, kept for reading when a restart could not bring the conversation back. */
  private earlier: EntryView[] = [];
  /** The session to bring back once the chat can connect (kept in the view's state meanwhile, so a reload keeps it). */
  restoreLater: Omit<SessionTarget, 'agent'> | undefined;
  /** What the line below the earlier entries says, when it is not a restart. */
  private divider: string | undefined;
  private readonly attachments = new Attachments();
  /** Messages written while a turn runs: queued, steered into it, or sent once it is stopped. */
  private readonly whileBusy: WhileBusyMessages<Attachment>;
  private checkpointsView: CheckpointsView = NO_CHECKPOINTS;
  private disposed = false;
  /** Where the chat is shown now: an editor tab or the side bar; `moveTo` changes it. */
  private surface: ChatSurface;
  private surfaceSubscriptions: vscode.Disposable[] = [];
  /** The tab's title as last set, with its attention mark. */
  private shownTitle = '';
  /** What the user is writing, as the view last told it: a view that takes over (a move) starts with it. */
  private draft = '';
  /** The entry a search result brought into view, for a page that loads after (a chat just opened). */
  private revealed: { earlier: boolean; entryId: number } | undefined;
  private revealedEntry: EntryView | undefined;
  /** Mentions, drops and prompt files: what the composer gathers besides the text. */
  private readonly context: ComposerContext;
  /** The questions the chat shows: the agent's, and its own (a prompt file's inputs). */
  private readonly questions: ChatQuestions;

  /** An editor tab for a chat, beside the active editor. */
  static editorTab(deps: ChatDeps, title: string): ChatSurface {
    const panel = vscode.window.createWebviewPanel(
      CHAT_VIEW_TYPE,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      webviewOptions(deps.extensionUri),
    );
    return ChatPanel.adopt(panel, deps);
  }

  /** An editor tab VS Code made (a new one, or one it restored after a reload), as a chat's surface. */
  static adopt(panel: vscode.WebviewPanel, deps: ChatDeps): ChatSurface {
    return editorSurface(panel, vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png'));
  }

  /** Opens a new chat in an editor tab beside the editor. */
  static open(agentName: string, deps: ChatDeps): ChatPanel {
    return new ChatPanel(ChatPanel.editorTab(deps, agentName), agentName, deps);
  }

  /** Shows the chat in `surface`: an editor tab or the side bar's view. */
  constructor(
    surface: ChatSurface,
    readonly agentName: string,
    private readonly deps: ChatDeps,
  ) {
    this.surface = surface;
    this.plainTitle = agentName;
    this.sync = new ViewSync(surface.webview, { update: (changes) => this.update(changes), state: () => this.state() });
    this.bind(surface);
    this.whileBusy = new WhileBusyMessages<Attachment>(
      {
        send: (text, attachments) => this.sendTaken(text, attachments),
        steer: (text, attachments) => this.steerTaken(text, attachments),
        canSteer: () => this.current?.client.capabilities.supports('steering') ?? false,
        busy: () => (this.current?.model.turn.phase ?? 'idle') !== 'idle',
        cancel: () => this.current?.cancel() ?? Promise.resolve(),
        giveBack: (text, attachments, reason) => this.giveBack(text, attachments, reason),
        changed: () => {
          if (!this.disposed) this.sync.changed('queue');
        },
        tell: (text) => this.tell(text),
      },
      agentName,
    );
    this.questions = new ChatQuestions(
      (sessionId) => this.modelOf(sessionId)?.elicitations,
      () => {
        if (this.disposed) return;
        this.refreshAttention();
        this.sync.changed('elicitations');
      },
      (text) => this.tell(text),
    );
    this.context = new ComposerContext(
      deps.files,
      deps.prompts,
      {
        cwd: () => this.current?.cwd,
        attach: (attachment) => this.addAttachment(attachment),
        tell: (text) => this.tell(text),
        setDraft: (text) => this.setDraft(text),
        ask: (question) => this.questions.ask(question),
        promptsChanged: (prompts) => {
          if (this.sync.ready) void this.sync.post({ type: 'prompts', prompts: [...prompts] });
        },
        closed: () => this.disposed,
      },
      deps.log,
    );
    this.disposables.push(
      vscode.window.onDidChangeWindowState(() => this.look()),
      this.context,
    );
  }

  /** A prompt file picked under `/` (see ComposerContext.usePrompt). */
  usePrompt(name: string, source: PromptView['source']): Promise<string | undefined> {
    return this.context.usePrompt(name, source);
  }

  /** Shows the chat's page in `surface` and listens to it. */
  private bind(surface: ChatSurface): void {
    surface.webview.options = webviewOptions(this.deps.extensionUri);
    surface.webview.html = chatHtml(surface.webview, this.deps.extensionUri, this.agentName);
    this.shownTitle = attentionMark(this.attentionState) + this.plainTitle;
    surface.setTitle(this.shownTitle);
    this.surfaceSubscriptions = [
      surface.onDidClose(() => this.dispose()),
      surface.onDidChangeViewState(({ active }) => {
        if (active) this.activeEmitter.fire();
        this.look();
      }),
      surface.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
    ];
  }

  /** What the composer holds, as the view last told it. */
  get composerText(): string {
    return this.draft;
  }

  /** Fork from Here on a user message, as its button does (whoever owns the chats opens the fork). */
  forkFrom(entryId: number): void {
    if (!this.disposed) this.actionEmitter.fire({ fork: entryId });
  }

  /**
   * Brings into view the entry a search found: the `roleIndex`-th entry of its role (earlier entries first, as the
   * chat shows them), or the nearest one of that role that holds `text`. Returns the entry, or undefined.
   */
  revealMatch(match: {
    readonly role: 'user' | 'agent' | 'thought' | 'tool';
    readonly roleIndex: number;
    readonly text: string;
  }): EntryView | undefined {
    const session = this.current;
    const rows = [
      ...this.earlier.map((entry) => ({ earlier: true, entry })),
      ...(session ? this.viewsOf(session) : []).map((entry) => ({ earlier: false, entry })),
    ];
    const ofRole = rows.filter(({ entry }) => (entry.kind === 'tool' ? match.role === 'tool' : entry.role === match.role));
    const needle = match.text.toLowerCase();
    const holds = (row: (typeof rows)[number]) =>
      (row.entry.kind === 'tool' ? row.entry.title : row.entry.text).toLowerCase().includes(needle) ||
      (row.entry.kind === 'message' && row.entry.chips.some((c) => c.label.toLowerCase().includes(needle)));
    const exact = ofRole[match.roleIndex];
    const found =
      exact && holds(exact)
        ? exact
        : (ofRole
            .map((row, i) => ({ row, distance: Math.abs(i - match.roleIndex) }))
            .filter(({ row }) => holds(row))
            .sort((a, b) => a.distance - b.distance)[0]?.row ?? exact);
    if (!found) return undefined;
    this.revealed = { earlier: found.earlier, entryId: found.entry.id };
    this.revealedEntry = found.entry;
    if (this.sync.ready && !this.disposed) void this.sync.post({ type: 'reveal', ...this.revealed });
    this.reveal();
    return found.entry;
  }

  /** The entry a search result last brought into view. */
  get revealedMatch(): EntryView | undefined {
    return this.revealedEntry;
  }

  /** Puts `text` in the composer (a fork starts with the message it was forked at). */
  setDraft(text: string): void {
    this.draft = text;
    if (this.sync.ready && !this.disposed) void this.sync.post({ type: 'editQueued', text });
  }

  /** Where the chat is shown: an editor tab or the side bar. */
  get location(): ChatLocation {
    return this.surface.location;
  }

  /**
   * Shows the chat in `surface` from now on (Move Chat to Side Bar / to Editor). The conversation, the draft, the
   * attachments and a running turn stay: they live here, not in the page, which the new surface loads afresh.
   */
  moveTo(surface: ChatSurface): void {
    if (this.disposed) return;
    const previous = this.surface;
    for (const d of this.surfaceSubscriptions) d.dispose();
    this.surface = surface;
    this.sync.rebind(surface.webview);
    this.bind(surface);
    previous.release();
    this.activeEmitter.fire();
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
   * does not bring the conversation back (a fresh one, or one resumed without a replay). Returns the panel's
   * subscriptions to the session, which whoever attached it disposes with the session (and closes the previous one).
   */
  attach(session: AgentSession, keepEarlier = false): vscode.Disposable {
    const previous = this.current;
    if (previous && keepEarlier) {
      this.earlier = [...this.earlier, ...this.viewsOf(previous)];
      this.divider = undefined;
    } else if (!keepEarlier) {
      this.earlier = [];
      this.divider = undefined;
    }
    this.current = session;
    this.agentError = null;
    // A restarted agent or a reloaded chat gets nothing that waited without the user's word.
    if (previous !== session) this.whileBusy.hold();
    const subscriptions = [
      session.model.onDidChange((change) => {
        // A closed panel has no title to change, though its subscriptions end with the session, a moment later.
        if (this.disposed) return;
        switch (change.type) {
          case 'entry':
            this.sync.entryChanged(change.index);
            break;
          case 'turn': {
            const turn = session.model.turn;
            // A turn that ends while the user looks elsewhere is "done, not yet seen" until they look.
            if (turn.phase === 'idle') this.seen = this.inView();
            this.refreshAttention();
            this.sync.changed('turn');
            if (turn.phase === 'idle') this.whileBusy.turnEnded({ stopReason: turn.stopReason, failed: turn.error !== undefined });
            break;
          }
          case 'permission':
            this.refreshAttention();
            this.updateTitle();
            this.sync.changed('permissions');
            break;
          case 'terminal':
            return; // the tool entries that show it change too
          case 'elicitation':
            this.refreshAttention();
            this.sync.changed('elicitations');
            break;
          case 'subagent':
            this.refreshAttention();
            this.sync.changed('subagents');
            break;
          case 'info':
            this.updateTitle();
            this.sync.changed('session');
            break;
          default:
            this.sync.changed('session');
        }
      }),
      session.onDidEndAgent((end) => this.agentEnded(end)),
    ];
    this.refreshAttention();
    this.updateTitle();
    if (this.sync.ready) this.sync.postState();
    if (session.ended) this.agentEnded(session.ended);
    return vscode.Disposable.from(...subscriptions);
  }

  /** Starting or reopening the agent failed: the chat shows why, with what the user can do (Restart Agent first). */
  fail(message: string, stderr: readonly string[], actions: readonly ErrorAction[] = ['restart', 'showLog']): void {
    this.agentError = { message: capitalize(message), stderr: stderr.slice(-STDERR_LINES_SHOWN), actions: [...actions] };
    this.refreshAttention();
    this.sync.changed('error');
  }

  /** What the chat asks of its user now. */
  get attention(): Attention {
    return this.attentionState;
  }

  /** The chat is in front of the user: its tab active in a window that has the focus. */
  private inView(): boolean {
    return this.surface.active && this.surface.visible && vscode.window.state.focused;
  }

  /** The user may have just looked at the chat. */
  private look(): void {
    if (this.disposed || !this.inView() || this.seen) return;
    this.seen = true;
    this.refreshAttention();
  }

  private refreshAttention(): void {
    const model = this.current?.model;
    const turn = model?.turn ?? { phase: 'idle' as const };
    const after = attentionOf({
      phase: turn.phase,
      stopReason: turn.phase === 'idle' ? turn.stopReason : undefined,
      error: turn.phase === 'idle' ? turn.error : undefined,
      waiting: (model?.permissions.length ?? 0) + (model?.elicitations.waiting ?? 0) + (model?.waitingInSubagents ?? 0) + this.questions.waiting,
      agentFailed: this.agentError !== null,
      seen: this.seen,
    });
    const before = this.attentionState;
    if (after === before) return;
    this.attentionState = after;
    this.updateTitle();
    this.attentionEmitter.fire({ before, after });
  }

  /**
   * Shows `entries` above the session's own, with `divider` below them: a conversation kept on this computer that
   * the agent cannot replay. Attach the session with `keepEarlier` to keep them.
   */
  showEarlier(entries: EntryView[], divider: string): void {
    this.earlier = entries;
    this.divider = divider;
    if (this.sync.ready && !this.disposed) this.sync.postState();
  }

  private viewsOf(session: AgentSession): EntryView[] {
    return session.model.entries.map((entry) => entryView(entry, session.cwd, session.model.terminals));
  }

  /**
   * The tab shows the session's title (or the agent's name), how many permission requests wait, and in front the
   * mark of what the chat asks of its user (see attention.ts).
   */
  private updateTitle(): void {
    const model = this.current?.model;
    const base = model?.title || this.agentName;
    const waiting = model?.permissions.length ?? 0;
    const title = waiting > 0 ? `(${waiting}) ${base}` : base;
    const tab = attentionMark(this.attentionState) + title;
    if (title === this.plainTitle && tab === this.shownTitle) return;
    this.plainTitle = title;
    this.shownTitle = tab;
    this.surface.setTitle(tab);
    this.titleEmitter.fire();
  }

  /** The title without the attention mark: what lists and the Sessions view show beside the state in words. */
  get title(): string {
    return this.plainTitle;
  }

  get viewColumn(): vscode.ViewColumn | undefined {
    return this.surface.viewColumn;
  }

  get active(): boolean {
    return this.surface.active;
  }

  /** What the chat's turns changed, and which of its messages have a checkpoint (see src/checkpoints). */
  showCheckpoints(view: CheckpointsView): void {
    this.checkpointsView = view;
    if (!this.disposed) this.sync.changed('checkpoints');
  }

  /** Who acts on what the user asks of the chat's checkpoints, from now on. */
  handleCheckpoints(handler: (request: CheckpointRequest) => Promise<void>): vscode.Disposable {
    this.checkpointHandler = handler;
    return new vscode.Disposable(() => {
      if (this.checkpointHandler === handler) this.checkpointHandler = undefined;
    });
  }

  /** What the user asked of the checkpoints, as a click in the chat asks it; resolves when it is done. */
  async requestCheckpoint(request: CheckpointRequest): Promise<void> {
    await this.checkpointHandler?.(request);
  }

  /** What the chat shows of its checkpoints now. */
  get checkpoints(): CheckpointsView {
    return this.checkpointsView;
  }

  /** A quiet line in the chat. */
  tell(text: string): void {
    this.notice = text;
    if (this.sync.ready && !this.disposed) void this.sync.post({ type: 'notice', text });
  }

  reveal(): void {
    this.surface.reveal(false);
  }

  /** Adds context to the message being written (from the editor's commands), and brings the chat forward. */
  addAttachment(attachment: NewAttachment): void {
    const large = (attachment.size ?? 0) > ASK_BYTES;
    this.attachments.add(large ? { ...attachment, confirm: true } : attachment);
    this.surface.reveal(false);
    this.postAttachments(true);
  }

  /** Whether the agent forks sessions: user messages then offer Fork. */
  private get canFork(): boolean {
    return this.current?.client.capabilities.supports('forkSession') ?? false;
  }

  private get accepts(): PromptAccepts {
    return this.current?.client.capabilities.accepts ?? ACCEPTS_NOTHING;
  }

  /** What is attached to the message being written. */
  get pendingAttachments(): readonly AttachmentView[] {
    return this.attachments.views;
  }

  /** Sends a message with its own context (not the composer's attachments), as a message the user sent. */
  sendContext(text: string, context: readonly NewAttachment[]): Promise<S.StopReason> {
    return this.sendPrompt(
      text,
      context.map((a, i) => ({ ...a, id: `context-${i}` }) as Attachment),
    );
  }

  /** Sends a message as the user would from the composer, with everything attached; rejects when it cannot be sent. */
  send(text: string): Promise<S.StopReason> {
    return this.sendWith(text, this.attachments.ids);
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
    if (!this.surface.visible) {
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
        this.sync.load();
        break;
      case 'draft':
        this.draft = message.text;
        break;
      case 'send':
        this.submitFromComposer(message.text, message.attachments, message.mode);
        break;
      case 'queue':
        this.changeQueued(message.id, message.action);
        break;
      case 'elicitation':
        this.answerElicitation(message.id, message.action, message.values ?? {}, message.sessionId);
        break;
      case 'openElicitationUrl':
        void this.openElicitationUrl(message.id, message.sessionId);
        break;
      case 'cancelSubagent':
        void session?.cancelSubagent(message.sessionId);
        break;
      case 'sendQueued':
        this.whileBusy.sendHeld();
        break;
      case 'cancel':
        void session?.cancel();
        break;
      case 'permission':
        this.modelOf(message.sessionId)?.resolvePermission(message.id, message.optionId);
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
        void this.deps.files
          .search(message.query, (files) => void this.sync.post({ type: 'files', requestId: message.requestId, files }))
          .then(
            (files) => this.sync.post({ type: 'files', requestId: message.requestId, files }),
            (error: unknown) => this.deps.log.warn(`[chat] file search failed: ${errorMessage(error)}`),
          );
        break;
      case 'mention':
        void this.mention(message.kind ?? 'file', message.path);
        break;
      case 'dropUris':
        void this.dropUris(message.uris);
        break;
      case 'listPrompts':
        void this.context.refreshPrompts();
        break;
      case 'usePrompt':
        void this.usePrompt(message.name, message.source);
        break;
      case 'confirmAttachment':
        this.confirmAttachment(message.id);
        break;
      case 'attachImage':
        this.attachImage(message.name, message.mimeType, message.data);
        break;
      case 'removeAttachment':
        this.attachments.remove(message.id);
        this.postAttachments(false);
        break;
      case 'setMode':
        if (session) void session.setMode(message.modeId).catch((error: unknown) => this.pickerFailed('the mode', error));
        break;
      case 'changes':
      case 'openChange':
      case 'restoreCheckpoint':
      case 'redoRestore':
      case 'checkpointAnswer':
        void this.requestCheckpoint(message);
        break;
      case 'fork':
        this.forkFrom(message.entryId);
        break;
      case 'setConfig':
        if (session)
          void session.setConfigOption(message.configId, message.value).catch((error: unknown) => this.pickerFailed(message.configId, error));
        break;
    }
  }

  /** Files and folders dropped on the composer (see ComposerContext.drop). */
  dropUris(uris: readonly string[]): Promise<void> {
    return this.context.drop(uris);
  }

  /** How many questions wait for the user: the agent's, its subagents', and the chat's own. */
  get questionsWaiting(): number {
    const model = this.current?.model;
    const inSubagents = model?.subagents.reduce((n, child) => n + child.model.elicitations.waiting, 0) ?? 0;
    return (model?.elicitations.waiting ?? 0) + inSubagents + this.questions.waiting;
  }

  /** The quiet line the chat shows last (why something was not attached, where the agent went, …). */
  get lastNotice(): string | undefined {
    return this.notice;
  }

  /** What `@query` offers, as the composer's list shows it. */
  completeMention(query: string): Promise<FileMatch[]> {
    return this.context.complete(query);
  }

  /** The prompt files offered under `/`. */
  get promptFiles(): readonly PromptView[] {
    return this.context.promptViews;
  }

  /** The prompt files read again, as the `/` list does when it opens. */
  listPromptFiles(): Promise<readonly PromptView[]> {
    return this.context.refreshPrompts();
  }

  /** What `@` picked, attached with its size (a large one waits for Attach Anyway), or why not. */
  mention(kind: MentionKind, id: string): Promise<void> {
    return this.context.mention(kind, id);
  }

  /** Attach Anyway on a chip past the bound. */
  confirmAttachment(id: string): void {
    this.attachments.confirm(id);
    this.postAttachments(false);
  }

  /** Enter or a send button: sent now, or (while a turn runs) queued, steered or sent after a stop (see whileBusy.ts). */
  private submitFromComposer(text: string, ids: readonly string[], mode: WhileBusy | undefined): void {
    this.notice = undefined; // the composer clears it as it sends
    const waiting = this.attachments.views.find((a) => ids.includes(a.id) && a.confirm);
    if (waiting) {
      const reason = vscode.l10n.t(
        '{0} is {1}: choose Attach Anyway on it, or remove it, before sending.',
        waiting.label,
        sizeLabel(waiting.size ?? 0),
      );
      this.tell(reason);
      void this.sync.post({ type: 'sendFailed', text, reason });
      return;
    }
    const chosen = this.attachments.take(ids);
    this.postAttachments(false);
    this.whileBusy.submit(text, chosen, mode);
  }

  /** Sends the message as a turn, as the user would from the composer and as "submit" does from the queue. */
  submit(text: string, mode?: WhileBusy): void {
    this.submitFromComposer(text, this.attachments.ids, mode);
  }

  /** What waits for the running turn, as the chat shows it. */
  get queued(): QueueView {
    return this.whileBusy.view();
  }

  /** The chat's own model, or one of its subagents' (by session id). */
  private modelOf(sessionId: string | undefined): SessionModel | undefined {
    const model = this.current?.model;
    if (sessionId === undefined || sessionId === model?.sessionId) return model;
    return model?.subagents.find((c) => c.info.sessionId === sessionId)?.model;
  }

  /** The children this chat's session announced (subagents), as their cards show them. */
  get subagents(): readonly SubagentView[] {
    const session = this.current;
    return session ? subagentViews(session.model, session.cwd) : [];
  }

  /** A subagent's permission request answered, as a click on its card does. */
  answerSubagentPermission(sessionId: string, id: number, optionId: string): boolean {
    return this.modelOf(sessionId)?.resolvePermission(id, optionId) ?? false;
  }

  /** Cancel on a subagent's card. */
  cancelSubagent(sessionId: string): Promise<boolean> {
    return this.current?.cancelSubagent(sessionId) ?? Promise.resolve(false);
  }

  /** The questions waiting for the user (the agent's, then the chat's own), as the chat shows them. */
  get elicitations(): readonly ElicitationView[] {
    return this.questions.views();
  }

  /** The user's answer to a question (see ChatQuestions.answer): why a Submit was refused, or undefined. */
  answerElicitation(
    id: number,
    action: 'accept' | 'decline' | 'cancel',
    values: Readonly<Record<string, FieldInput>>,
    sessionId?: string,
  ): string | undefined {
    return this.questions.answer(id, action, values, sessionId);
  }

  /** Open on a url question (see ChatQuestions.openUrl). */
  openElicitationUrl(id: number, sessionId?: string): Promise<boolean> {
    return this.questions.openUrl(id, sessionId);
  }

  /** A queued message's buttons: back into the composer to edit, out of the queue, up or down. */
  changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void {
    if (action === 'edit') this.whileBusy.edit(id);
    else if (action === 'remove') this.whileBusy.remove(id);
    else this.whileBusy.move(id, action === 'up' ? -1 : 1);
  }

  /** Messages that were queued when the window closed: they wait for the user's Send. */
  restoreQueued(texts: readonly string[]): void {
    this.whileBusy.queue.restore(texts.map((text) => ({ text, attachments: [] })));
    this.sync.changed('queue');
  }

  /** Sends a held queue, as its Send button does. */
  sendQueued(): void {
    this.whileBusy.sendHeld();
  }

  /**
   * Sends a message whose attachments already left the composer. A refused send gives the draft and the
   * attachments back; one the agent refused until the user signs in also starts signing in.
   */
  private async sendTaken(text: string, chosen: readonly Attachment[]): Promise<S.StopReason> {
    try {
      return await this.sendPrompt(text, chosen);
    } catch (error) {
      if (error instanceof PromptRefusedError) this.giveBack(text, chosen, errorMessage(error));
      else if (error instanceof AcpError && error.isAuthRequired) {
        this.giveBack(text, chosen, vscode.l10n.t('{0} needs you to sign in first.', this.agentName));
        this.actionEmitter.fire('signIn');
      }
      throw error;
    }
  }

  /** Sends a message into the running turn; a refusal (the turn just ended) queues it instead. */
  private async steerTaken(text: string, chosen: readonly Attachment[]): Promise<SteerOutcome> {
    const session = this.current;
    try {
      if (!session) throw new PromptRefusedError(vscode.l10n.t('{0} is not connected yet', this.agentName));
      const prompt = buildPrompt(text, chosen, new Map(), this.accepts);
      return await session.steer(prompt);
    } catch (error) {
      if (!(error instanceof PromptRefusedError)) throw error;
      this.whileBusy.submit(text, chosen, 'queue');
      return 'failed';
    }
  }

  private giveBack(text: string, attachments: readonly Attachment[], reason: string): void {
    this.attachments.giveBack(attachments);
    this.postAttachments(false);
    if (this.disposed) return;
    void this.sync.post(reason ? { type: 'sendFailed', text, reason } : { type: 'editQueued', text });
  }

  /** Sends with the chosen attachments, which leave the composer; a refused send gives them back. */
  private async sendWith(text: string, ids: readonly string[]): Promise<S.StopReason> {
    const chosen = this.attachments.take(ids);
    this.postAttachments(false);
    try {
      return await this.sendPrompt(text, chosen);
    } catch (error) {
      if (error instanceof PromptRefusedError) {
        this.attachments.giveBack(chosen);
        this.postAttachments(false);
      }
      throw error;
    }
  }

  private attachImage(name: string, mimeType: string, data: string): void {
    const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
    const refusal =
      imageRefusal(vscode.l10n.t, this.agentName, this.accepts, mimeType, bytes) ??
      (/^[A-Za-z0-9+/]*={0,2}$/.test(data) ? undefined : vscode.l10n.t('The image could not be read.'));
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
    this.sync.changed('session'); // the picker goes back to what the agent has
  }

  private postAttachments(focus: boolean): void {
    if (this.sync.ready && !this.disposed) void this.sync.post({ type: 'attachments', attachments: this.attachments.views, focus });
  }

  /** What changed since the last update, as the webview shows it. */
  private update(changes: ViewChanges): UpdateMessage {
    const session = this.current;
    const model = session?.model;
    const entries = model
      ? [...changes.entries]
          .sort((a, b) => a - b)
          .flatMap((index) => {
            const entry = model.entries[index];
            return entry ? [{ index, entry: entryView(entry, session.cwd, model.terminals) }] : [];
          })
      : [];
    return {
      type: 'update',
      entries,
      ...(changes.turn && model ? { turn: turnView(model.turn) } : {}),
      ...(changes.permissions && model ? { permissions: permissionViews(model) } : {}),
      ...(changes.error ? { agentError: this.agentError } : {}),
      ...(changes.session && model ? { session: sessionView(model, this.accepts, this.canFork) } : {}),
      ...(changes.checkpoints ? { checkpoints: this.checkpointsView } : {}),
      ...(changes.queue ? { queue: this.whileBusy.view() } : {}),
      ...(changes.elicitations ? { elicitations: this.questions.views() } : {}),
      ...(changes.subagents && session ? { subagents: subagentViews(session.model, session.cwd) } : {}),
    };
  }

  /** Everything the webview shows, for a webview that (re)loads or a chat that changed wholesale. */
  private state(): StateMessage {
    const session = this.current;
    const model = session?.model;
    return {
      type: 'state',
      agent: this.agentName,
      ...(session
        ? { restore: { agent: this.agentName, sessionId: session.sessionId, cwd: session.cwd } }
        : this.restoreLater
          ? { restore: { agent: this.agentName, ...this.restoreLater } }
          : {}),
      earlier: this.earlier,
      ...(this.divider ? { divider: this.divider } : {}),
      entries: session ? this.viewsOf(session) : [],
      turn: model ? turnView(model.turn) : { phase: 'idle' },
      permissions: model ? permissionViews(model) : [],
      agentError: this.agentError,
      session: model ? sessionView(model, this.accepts, this.canFork) : EMPTY_SESSION,
      attachments: this.attachments.views,
      checkpoints: this.checkpointsView,
      queue: this.whileBusy.view(),
      elicitations: this.questions.views(),
      ...(this.context.promptViews.length > 0 ? { prompts: [...this.context.promptViews] } : {}),
      subagents: session ? subagentViews(session.model, session.cwd) : [],
      ...(this.notice ? { notice: this.notice } : {}),
      ...(this.draft ? { draft: this.draft } : {}),
      ...(this.revealed ? { reveal: this.revealed } : {}),
      ...translations(),
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sync.dispose();
    this.questions.cancelAll();
    for (const d of this.disposables) d.dispose();
    for (const d of this.surfaceSubscriptions) d.dispose();
    this.surface.release();
    // Whoever attached the session closes it with the rest of what lives as long as it (see ChatSession).
    this.disposeEmitter.fire();
    for (const emitter of [this.disposeEmitter, this.actionEmitter, this.activeEmitter, this.titleEmitter, this.attentionEmitter]) emitter.dispose();
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
