// One chat on the screen: the surface that shows it (an editor tab or the side bar), its page there, and what it asks
// of its user (attention). What the chat shows is its model (chatModel.ts), which lives as long as the panel; the
// session attached to the model lives as long as its agent connection, so a restart or a restored window attaches a
// new one (the chats' ChatSession owns what lives as long as one session).
// A chat has one way in, `dispatch` (the table in dispatch.ts), for the webview and the chat's handle alike, and one
// way out, `snapshot` (the table in snapshot.ts). The model's changes are batched into at most one post per frame
// (viewSync.ts), and the page gets the whole state whenever it (re)loads. Its rooms (rooms.ts) read and write the
// model; what reaches past the chat goes to its owner (owner.ts).
import * as vscode from 'vscode';
import { AgentExitError, endedByClient, errorMessage } from '../acp/errors';
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import { DisposableStore } from '../common/disposables';
import { failureText, withdrawnText } from '../common/failureText';
import type { Attention } from './attention';
import { AttentionState } from './attentionState';
import { ChatModel, type ChatChange } from './chatModel';
import type { ChatActions, MessageType, Outcome } from './dispatch';
import { chatHtml, translations, webviewOptions } from './html';
import type { ChatOwner } from './owner';
import type { NewAttachment } from '../composer/prompt';
import type { EntryView, WebviewMessage } from './protocol';
import { findMatch, type MatchTarget } from './reveal';
import { openRooms, type ChatDeps, type Rooms } from './rooms';
import { headOf, snapshotOf, stateOf, updateOf, type ChatSnapshot } from './snapshot';
import type { ChatLocation, ChatSurface } from './surface';
import { sessionEntries } from './view';
import { ViewSync } from './viewSync';

export type { ChatActions, ChatDeps };

export class ChatPanel implements vscode.Disposable {
  /** What the chat shows. */
  readonly model: ChatModel;
  private readonly disposables = new DisposableStore();
  private readonly sync: ViewSync;
  private readonly disposeEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposeEmitter.event;
  private readonly activeEmitter = new vscode.EventEmitter<void>();
  /** The panel became the active editor. */
  readonly onDidBecomeActive = this.activeEmitter.event;
  /** The tab's title changed (the session's title, the count of waiting permission requests, or the mark). */
  readonly onDidChangeTitle: vscode.Event<void>;
  private readonly attentionState: AttentionState;
  /** What the chat asks of its user changed: working, needs you, done and not yet seen, failed, or nothing. */
  readonly onDidChangeAttention: vscode.Event<{ readonly before: Attention; readonly after: Attention }>;
  private disposed = false;
  private endAgreed = false;
  /** Where the chat is shown now: an editor tab or the side bar; `moveTo` changes it. */
  private surface: ChatSurface;
  private readonly surfaceSubscriptions = new DisposableStore();
  private readonly rooms: Rooms;

  /** Shows the chat in `surface`: an editor tab or the side bar's view. `owner` acts on what reaches past the chat. */
  constructor(
    surface: ChatSurface,
    readonly agentName: string,
    private readonly deps: ChatDeps,
    private readonly owner: ChatOwner,
  ) {
    this.surface = surface;
    const model = (this.model = new ChatModel(agentName, (cwd) => deps.folders.worktreeOf(cwd)));
    this.sync = new ViewSync(surface.webview, {
      update: (entries, parts) => updateOf(model, entries, parts),
      state: (seq) => stateOf(model, translations().l10n, seq),
      head: (from) => headOf(model, from),
    });
    this.attentionState = new AttentionState({
      agentName,
      model: () => model.session?.model,
      othersWaiting: () => {
        const session = model.session?.model;
        return (session?.elicitations.waiting ?? 0) + (session?.waitingInSubagents ?? 0) + model.questions.waiting;
      },
      agentFailed: () => model.agentError !== null,
      inView: () => this.surface.active && this.surface.visible && vscode.window.state.focused,
      show: (tab) => this.surface.setTitle(tab),
    });
    this.onDidChangeAttention = this.attentionState.onDidChange;
    this.onDidChangeTitle = this.attentionState.onDidChangeTitle;
    this.disposables.push(this.attentionState);
    this.bind(surface);
    // The panel hears each change first: a turn that ended is "done" before the queue sends the next message.
    model.onDidChange((change) => this.show(change));
    this.rooms = openRooms(model, deps, owner, { loaded: () => this.sync.load(), reveal: () => this.reveal() });
    this.disposables.push(
      vscode.window.onDidChangeWindowState(() => this.attentionState.look()),
      this.rooms.context,
      this.rooms.outbox,
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
    return this.rooms.dispatch(raw);
  }

  /** The one way out: everything the chat shows now (what its handle reads). */
  snapshot(): ChatSnapshot {
    return snapshotOf(this.model, this);
  }

  /** What the page shows of a change of the model, and what the tab says. */
  private show(change: ChatChange): void {
    switch (change.kind) {
      case 'entry':
        return this.sync.entryChanged(change.index);
      case 'part':
        // A turn that ends while the user looks elsewhere is "done, not yet seen" until they look.
        if (change.ended) this.attentionState.turnEnded();
        this.attentionState.refresh();
        return this.sync.changed(change.part, change.ended !== undefined);
      case 'whole':
        this.attentionState.refresh();
        if (this.sync.ready) this.sync.postState();
        return;
      case 'agentEnded':
        return this.agentEnded(change.end);
      case 'say':
        if (this.sync.ready) void this.sync.post(change.message);
        return;
    }
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
    const found = findMatch(this.model.earlier, sessionEntries(this.model.session), match);
    if (!found) return undefined;
    this.model.reveal(found);
    this.reveal();
    return found.entry;
  }

  /** Where the chat is shown: an editor tab or the side bar. */
  get location(): ChatLocation {
    return this.surface.location;
  }

  /**
   * Shows the chat in `surface` from now on (Move Chat to Side Bar / to Editor). The conversation, the draft, the
   * attachments and a running turn stay: they live in the model, not in the page, which the new surface loads afresh.
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

  /** What the chat asks of its user now. */
  get attention(): Attention {
    return this.attentionState.current;
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

  reveal(): void {
    this.surface.reveal(false);
  }

  /** Adds context to the message being written (from the editor's commands), and brings the chat forward. */
  addAttachment(attachment: NewAttachment): void {
    this.rooms.outbox.add(attachment);
  }

  /** Sends a message with its own context (not the composer's attachments), as a message the user sent. */
  sendContext(text: string, context: readonly NewAttachment[]): Promise<S.StopReason> {
    return this.rooms.outbox.sendContext(text, context);
  }

  /** Messages that were queued when the window closed: they wait for the user's Send. */
  restoreQueued(texts: readonly string[]): void {
    this.rooms.outbox.restoreQueued(texts);
  }

  /** The agent stopped: the chat says why, and a notification does too when the chat is out of sight. */
  private agentEnded(end: AgentEnd): void {
    if (endedByClient(end) || this.owner.reconnectAfter(end)) return;
    const withdrawn = withdrawnText(this.model.session?.withdrawn ?? 0);
    this.model.fail(withdrawn ? `${failureText(end)}. ${withdrawn}` : failureText(end), end instanceof AgentExitError ? end.stderrTail : []);
    if (!this.surface.visible) {
      const show = vscode.l10n.t('Show Chat');
      const log = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(vscode.l10n.t('{0}: {1}', this.agentName, failureText(end)), show, log).then((pick) => {
        if (pick === show) this.reveal();
        if (pick === log) this.deps.actions.showLog();
      });
    }
  }

  /** Closes the chat; the user agreed that what it still runs in the background ends with it (nothing is asked again). */
  closeAgreed(): void {
    this.endAgreed = true;
    this.dispose();
  }

  /** The chat was closed by `closeAgreed`. */
  get closedAgreed(): boolean {
    return this.endAgreed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sync.dispose();
    this.model.close();
    this.disposables.dispose();
    this.surfaceSubscriptions.dispose();
    this.surface.release();
    // Whoever attached the session closes it with the rest of what lives as long as it (see ChatSession).
    this.disposeEmitter.fire();
    new DisposableStore(this.disposeEmitter, this.activeEmitter).dispose();
  }
}
