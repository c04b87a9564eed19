// One chat: a webview panel and the session it shows. The panel lives until the user closes it; the session it
// is attached to lives as long as its agent connection, so a restart or a restored window attaches a new one (the
// chats' ChatSession owns what lives as long as one session, this panel's subscriptions to it included).
// A chat has one way in, `dispatch` (the table in dispatch.ts), for the webview and the chat's handle alike, and one
// way out, `snapshot` (the table in snapshot.ts). Model changes are batched into at most one post per frame
// (viewSync.ts), and the webview gets the whole state whenever it (re)loads. Its rooms: outbox.ts (sending, the
// queue), attentionState.ts, composerContext.ts, questions.ts, reveal.ts, controls.ts (the permission level).
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import { AgentExitError, errorMessage } from '../acp/errors';
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import type { SessionTarget } from '../common/sessionTarget';
import type { Attention } from './attention';
import { AttentionState } from './attentionState';
import type { ComposerContext } from './composerContext';
import type { ChatActions, ChatRequest, CheckpointRequest, MessageType, Outcome } from './dispatch';
import { chatHtml, translations, webviewOptions } from './html';
import type { Outbox } from './outbox';
import type { NewAttachment } from './prompt';
import {
  NO_CHECKPOINTS,
  type WebviewMessage,
  type AgentErrorView,
  type CheckpointsView,
  type EntryView,
  type ErrorAction,
  type HostMessage,
  type Part,
} from './protocol';
import type { ChatQuestions } from './questions';
import { ChatControls } from './controls';
import { modelOf, openRooms, type ChatDeps, type Rooms } from './rooms';
import { findMatch, type MatchTarget } from './reveal';
import {
  sessionEntries,
  snapshotOf,
  stateOf,
  updateOf,
  liveState,
  PART_OF_CHANGE,
  type ChatSnapshot,
  type ChatState,
  type Divider,
  type Revealed,
} from './snapshot';
import { editorTab, type ChatLocation, type ChatSurface } from './surface';
import { ViewSync } from './viewSync';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';
import { capitalize } from '../acp/text';

export type { ChatActions, ChatDeps, CheckpointRequest };

const STDERR_LINES_SHOWN = 20;

export class ChatPanel implements vscode.Disposable {
  private readonly disposables = new DisposableStore();
  private readonly sync: ViewSync;
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly actionEmitter = new vscode.EventEmitter<ChatRequest>();
  /**
   * The chat needs the agent restarted (the user pressed Restart Agent) or the user signed in (Sign In, or a
   * message the agent refused until the user signs in), or the user asked for a fork from one of their messages.
   */
  readonly onDidRequestAction = this.actionEmitter.event;
  private readonly activeEmitter = new vscode.EventEmitter<void>();
  /** The panel became the active editor. */
  readonly onDidBecomeActive = this.activeEmitter.event;
  /** The tab's title changed (the session's title, the count of waiting permission requests, or the mark). */
  readonly onDidChangeTitle: vscode.Event<void>;
  private readonly attentionState: AttentionState;
  /** What the chat asks of its user changed: working, needs you, done and not yet seen, failed, or nothing. */
  readonly onDidChangeAttention: vscode.Event<{ readonly before: Attention; readonly after: Attention }>;
  /** Acts on a changes card's button or file, Restore Checkpoint, or an answer (whoever tracks the checkpoints). */
  private checkpointHandler: ((request: CheckpointRequest) => Promise<void>) | undefined;
  private current: AgentSession | undefined;
  private agentError: AgentErrorView | null = null;
  private notice: string | undefined;
  /** An earlier session's entries, kept for reading when a restart could not bring the conversation back. */
  private earlier: EntryView[] = [];
  /** The session to bring back once the chat can connect (kept in the view's state meanwhile, so a reload keeps it). */
  restoreLater: Omit<SessionTarget, 'agent'> | undefined;
  /** What the line below the earlier entries says, when it is not a restart. */
  private divider: Divider | undefined;
  private checkpointsView: CheckpointsView = NO_CHECKPOINTS;
  readonly controls = new ChatControls(() => this.changed('permissionLevel'));
  private disposed = false;
  /** Where the chat is shown now: an editor tab or the side bar; `moveTo` changes it. */
  private surface: ChatSurface;
  private readonly surfaceSubscriptions = new DisposableStore();
  /** What the user is writing, as the view last told it: a view that takes over (a move) starts with it. */
  private draft = '';
  /** The entry a search result brought into view, for a page that loads after (a chat just opened). */
  private revealed: Revealed | undefined;
  private readonly outbox: Outbox;
  /** Mentions, drops and prompt files: what the composer gathers besides the text. */
  private readonly context: ComposerContext;
  /** The questions the chat shows: the agent's, and its own (a prompt file's inputs, a resend's). */
  readonly questions: ChatQuestions;
  /** The one way in (see rooms.ts). */
  private readonly door: Rooms['dispatch'];
  /** The chat's state, as the view tables read it (snapshot.ts). */
  private readonly state: ChatState;

  /** Opens a new chat in an editor tab beside the editor. */
  static open(agentName: string, deps: ChatDeps): ChatPanel {
    return new ChatPanel(editorTab(deps.extensionUri, agentName), agentName, deps);
  }

  /** Shows the chat in `surface`: an editor tab or the side bar's view. */
  constructor(
    surface: ChatSurface,
    readonly agentName: string,
    private readonly deps: ChatDeps,
  ) {
    this.surface = surface;
    this.state = this.stateReader();
    this.sync = new ViewSync(surface.webview, {
      update: (entries, parts) => updateOf(this.state, entries, parts),
      state: () => stateOf(this.state),
    });
    this.attentionState = new AttentionState({
      agentName,
      model: () => this.current?.model,
      othersWaiting: () => {
        const model = this.current?.model;
        return (model?.elicitations.waiting ?? 0) + (model?.waitingInSubagents ?? 0) + this.questions.waiting;
      },
      agentFailed: () => this.agentError !== null,
      inView: () => this.surface.active && this.surface.visible && vscode.window.state.focused,
      show: (tab) => this.surface.setTitle(tab),
    });
    this.onDidChangeAttention = this.attentionState.onDidChange;
    this.onDidChangeTitle = this.attentionState.onDidChangeTitle;
    this.disposables.push(this.attentionState);
    this.bind(surface);
    const rooms = openRooms({
      agentName,
      deps,
      session: () => this.current,
      earlier: () => this.earlier,
      branch: () => this.divider?.branch,
      modelOf: (sessionId) => modelOf(this.current?.model, sessionId),
      controls: this.controls,
      post: (message) => this.post(message),
      changed: (part) => this.changed(part),
      tell: (text) => this.tell(text),
      reveal: () => this.reveal(),
      request: (request) => this.request(request),
      setDraft: (text) => this.setDraft(text),
      closed: () => this.disposed,
      questionsChanged: () => {
        // Closing the chat cancels its own questions: the tab is gone by then, and so is what it would show.
        if (this.disposed) return;
        this.attentionState.refresh();
        this.changed('elicitations');
      },
      loaded: () => this.sync.load(),
      draftChanged: (text) => void (this.draft = text),
      clearNotice: () => void (this.notice = undefined),
      checkpoint: async (request) => void (await this.checkpointHandler?.(request)),
      pickerFailed: (what, error) => this.pickerFailed(what, error),
    });
    ({ outbox: this.outbox, questions: this.questions, context: this.context, dispatch: this.door } = rooms);
    this.disposables.push(
      vscode.window.onDidChangeWindowState(() => this.attentionState.look()),
      this.context,
    );
  }

  /**
   * The one way into the chat: what the chat view posts, and what the chat's handle sends in its place. Checked
   * against the protocol first; an invalid message is refused (and logged). Resolves with the message's outcome
   * (dispatch.ts's Outcomes) once it is done; rejects when it could not be done, after the chat has said why.
   */
  dispatch<T extends MessageType>(message: Extract<WebviewMessage, { type: T }>): Promise<Outcome<T>>;
  dispatch(raw: unknown): Promise<unknown>;
  dispatch(raw: unknown): Promise<unknown> {
    return this.door(raw);
  }

  /** The one way out: everything the chat shows now (what its handle reads). */
  snapshot(): ChatSnapshot {
    return snapshotOf(this.state);
  }

  /** The chat's state as the view tables read it: live, each field read when asked. */
  private stateReader(): ChatState {
    return liveState({
      agentName: () => this.agentName,
      session: () => this.current,
      restoreLater: () => this.restoreLater,
      earlier: () => this.earlier,
      divider: () => this.divider,
      agentError: () => this.agentError,
      checkpoints: () => this.checkpointsView,
      queue: () => this.outbox.queueView,
      permissionLevel: () => this.controls.permissionLevel,
      elicitations: () => this.questions.views(),
      attachments: () => this.outbox.attachmentViews,
      prompts: () => this.context.promptViews,
      notice: () => this.notice,
      draft: () => this.draft,
      revealed: () => this.revealed,
      title: () => this.attentionState.title,
      attention: () => this.attentionState.current,
      location: () => this.surface.location,
      worktree: () => this.current && this.deps.folders.worktreeOf(this.current.cwd),
      l10n: () => translations().l10n,
    });
  }

  /** Shows the chat's page in `surface` and listens to it. */
  private bind(surface: ChatSurface): void {
    surface.webview.options = webviewOptions(this.deps.extensionUri);
    surface.webview.html = chatHtml(surface.webview, this.deps.extensionUri, this.agentName);
    this.attentionState.showTitle();
    this.surfaceSubscriptions.push(
      surface.onDidClose(() => this.dispose()),
      surface.onDidChangeViewState(({ active }) => {
        if (active) this.activeEmitter.fire();
        this.attentionState.look();
      }),
      surface.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
    );
  }

  /** A message from the chat view. What fails has been told in the chat already; the log keeps the detail. */
  private receive(raw: unknown): void {
    this.dispatch(raw).catch((error: unknown) => this.deps.log.debug(`[chat] ${this.agentName}: ${errorMessage(error)}`));
  }

  /**
   * Brings into view the entry a search found (see reveal.ts), in the chat and in a page that loads after.
   * Returns the entry, or undefined when the chat has none of that role there.
   */
  revealMatch(match: MatchTarget): EntryView | undefined {
    const found = findMatch(this.earlier, sessionEntries(this.current), match);
    if (!found) return undefined;
    this.revealed = found;
    this.post({ type: 'reveal', earlier: found.earlier, entryId: found.entry.id });
    this.reveal();
    return found.entry;
  }

  /** Puts `text` in the composer (a fork starts with the message it was forked at). */
  setDraft(text: string): void {
    this.draft = text;
    this.post({ type: 'editQueued', text });
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
    this.surfaceSubscriptions.clear();
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
      this.earlier = [...this.earlier, ...sessionEntries(previous)];
      this.divider = undefined;
    } else if (!keepEarlier) {
      this.earlier = [];
      this.divider = undefined;
    }
    this.current = session;
    this.agentError = null;
    // A restarted agent or a reloaded chat gets nothing that waited without the user's word.
    if (previous !== session) this.outbox.hold();
    const subscriptions = [
      session.model.onDidChange((change) => {
        if (this.disposed) return; // a closed panel's subscriptions end with the session, a moment later
        if (change.type === 'entry') return this.sync.entryChanged(change.index);
        const part = PART_OF_CHANGE[change.type];
        if (!part) return;
        const ended = change.type === 'turn' && session.model.turn.phase === 'idle' ? session.model.turn : undefined;
        // A turn that ends while the user looks elsewhere is "done, not yet seen" until they look.
        if (ended) this.attentionState.turnEnded();
        this.attentionState.refresh();
        this.changed(part);
        if (ended) this.outbox.turnEnded({ stopReason: ended.stopReason, failed: ended.error !== undefined });
      }),
      session.onDidEndAgent((end) => this.agentEnded(end)),
      session.client.auth.onDidChange(() => this.changed('session')), // the header's tooltip says who the agent runs as
    ];
    this.attentionState.refresh();
    if (this.sync.ready) this.sync.postState();
    if (session.ended) this.agentEnded(session.ended);
    return vscode.Disposable.from(...subscriptions);
  }

  /** Starting or reopening the agent failed: the chat shows why, with what the user can do (Restart Agent first). */
  fail(message: string, stderr: readonly string[], actions: readonly ErrorAction[] = ['restart', 'showLog']): void {
    this.agentError = { message: capitalize(message), stderr: stderr.slice(-STDERR_LINES_SHOWN), actions: [...actions] };
    this.attentionState.refresh();
    this.changed('agentError');
  }

  /** What the chat asks of its user now. */
  get attention(): Attention {
    return this.attentionState.current;
  }

  /** How many questions wait for the user: the agent's, its subagents', and the chat's own (not permission requests). */
  get questionsWaiting(): number {
    const model = this.current?.model;
    const inSubagents = model?.subagents.reduce((n, child) => n + child.model.elicitations.waiting, 0) ?? 0;
    return (model?.elicitations.waiting ?? 0) + inSubagents + this.questions.waiting;
  }

  /**
   * Shows `entries` above the session's own, with `divider` below them (and `branch`, the session they came from, to
   * open). Attach the session with `keepEarlier` to keep them.
   */
  showEarlier(entries: EntryView[], divider: string, branch?: SessionTarget): void {
    this.earlier = entries;
    this.divider = { text: divider, ...(branch ? { branch } : {}) };
    if (this.sync.ready && !this.disposed) this.sync.postState();
  }

  /** The title without the attention mark: what lists and the Sessions view show beside the state in words. */
  get title(): string {
    return this.attentionState.title;
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
    this.changed('checkpoints');
  }

  /** Who acts on what the user asks of the chat's checkpoints, from now on. */
  handleCheckpoints(handler: (request: CheckpointRequest) => Promise<void>): vscode.Disposable {
    this.checkpointHandler = handler;
    return new vscode.Disposable(() => {
      if (this.checkpointHandler === handler) this.checkpointHandler = undefined;
    });
  }

  /** A quiet line in the chat. */
  tell(text: string): void {
    this.notice = text;
    this.post({ type: 'notice', text });
  }

  reveal(): void {
    this.surface.reveal(false);
  }

  /** Adds context to the message being written (from the editor's commands), and brings the chat forward. */
  addAttachment(attachment: NewAttachment): void {
    this.outbox.add(attachment);
  }

  /** Sends a message with its own context (not the composer's attachments), as a message the user sent. */
  sendContext(text: string, context: readonly NewAttachment[]): Promise<S.StopReason> {
    return this.outbox.sendContext(text, context);
  }

  /** Messages that were queued when the window closed: they wait for the user's Send. */
  restoreQueued(texts: readonly string[]): void {
    this.outbox.restoreQueued(texts);
  }

  private request(request: ChatRequest): void {
    if (!this.disposed) this.actionEmitter.fire(request);
  }

  private changed(part: Part): void {
    if (!this.disposed) this.sync.changed(part);
  }

  /** Posts to the chat view, once it has loaded; nothing goes after the chat closed. */
  private post(message: HostMessage): void {
    if (this.sync.ready && !this.disposed) void this.sync.post(message);
  }

  private pickerFailed(what: string, error: unknown): void {
    const reason = failureText(error);
    this.deps.log.warn(`[chat] ${this.agentName} did not change ${what}: ${reason}`);
    this.tell(vscode.l10n.t('{0} did not change {1}: {2}.', this.agentName, what, reason));
    this.changed('session'); // the picker goes back to what the agent has
  }

  private agentEnded(end: AgentEnd): void {
    if (end instanceof AgentExitError && end.expected) return;
    this.fail(failureText(end), end instanceof AgentExitError ? end.stderrTail : []);
    if (!this.surface.visible) {
      const show = vscode.l10n.t('Show Chat');
      const log = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(vscode.l10n.t('{0}: {1}', this.agentName, failureText(end)), show, log).then((pick) => {
        if (pick === show) this.reveal();
        if (pick === log) this.deps.actions.showLog();
      });
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sync.dispose();
    this.questions.cancelAll();
    this.disposables.dispose();
    this.surfaceSubscriptions.dispose();
    this.surface.release();
    // Whoever attached the session closes it with the rest of what lives as long as it (see ChatSession).
    this.disposeEmitter.fire();
    new DisposableStore(this.disposeEmitter, this.actionEmitter, this.activeEmitter).dispose();
  }
}
