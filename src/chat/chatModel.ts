// What one chat shows, owned in one place (as Zed's AcpThread owns a thread): the session it is attached to, the
// conversation kept above it, why the agent failed, the quiet line, the draft, what a search brought into view, the
// chat's own questions, and the views its rooms and its owner write into it (the queue, the attachments, the prompt
// files, the changes card, the permission level). Every change is one event, `onDidChange`: the panel turns it into
// posts to its page (viewSync.ts), the rooms hear a turn end, and snapshot.ts's table reads the model for the view
// and for the chat's handle. No `vscode`: unit-tested in Node.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import type { AgentSession } from '../acp/agentClient';
import { Elicitations } from '../acp/elicitations';
import type { AgentEnd } from '../acp/process';
import type { SessionChange } from '../acp/sessionState';
import type { SessionModel } from '../acp/sessionModel';
import type * as S from '../acp/schema.gen';
import { capitalize } from '../acp/text';
import { DisposableStore, type Disposable } from '../common/disposables';
import type { SessionTarget } from '../common/sessionTarget';
import {
  INITIAL_PARTS,
  type AttachmentView,
  type EntryView,
  type ErrorAction,
  type HostMessage,
  type Part,
  type PromptView,
  type ViewParts,
} from './protocol';
import { sessionEntries } from './view';

/** An entry a search result brought into view: where it is (above the session's own, or among them) and what. */
export interface Revealed {
  readonly earlier: boolean;
  readonly entry: EntryView;
}

/** The line below the earlier entries, and the session they came from when the chat offers to open it. */
export interface Divider {
  readonly text: string;
  readonly branch?: SessionTarget;
}

/** How a turn of the chat's session ended. */
interface TurnEnd {
  readonly stopReason?: S.StopReason;
  readonly failed: boolean;
}

/** One change of what the chat shows. */
export type ChatChange =
  /** A view part changed; `ended` when it is the turn, and the turn just ended. */
  | { readonly kind: 'part'; readonly part: Part; readonly ended?: TurnEnd }
  /** One of the session's entries changed (by index). */
  | { readonly kind: 'entry'; readonly index: number }
  /** The chat changed wholesale: the page gets the whole state. `attached` when that was a new session. */
  | { readonly kind: 'whole'; readonly attached?: AgentSession }
  /** The agent of the attached session stopped. */
  | { readonly kind: 'agentEnded'; readonly end: AgentEnd }
  /** Something the page is told once, not state it keeps: a notice, a draft given back, the attachments' chips. */
  | { readonly kind: 'say'; readonly message: HostMessage };

/**
 * The view part each change of the session's model touches. Entries go by index; a terminal's output shows in the
 * tool entries that hold it, which change too.
 */
export const PART_OF_CHANGE: { readonly [T in SessionChange['type']]: Part | undefined } = {
  entry: undefined,
  terminal: undefined,
  turn: 'turn',
  permission: 'permissions',
  elicitation: 'elicitations',
  subagent: 'subagents',
  info: 'session',
  plan: 'session',
  commands: 'session',
  mode: 'session',
  config: 'session',
  usage: 'session',
  notice: 'session',
  background: 'background',
};

/** The chat's own questions have ids of their own, apart from the agent's. */
const LOCAL_QUESTION_IDS = 1_000_000;
const STDERR_LINES_SHOWN = 20;

export class ChatModel {
  private readonly emitter = new Emitter<ChatChange>();
  /** Every change of what the chat shows. */
  readonly onDidChange: Event<ChatChange> = this.emitter.event;
  private current: AgentSession | undefined;
  private earlierEntries: EntryView[] = [];
  private dividerLine: Divider | undefined;
  private noticeText: string | undefined;
  private draftText = '';
  private revealedEntry: Revealed | undefined;
  private attachmentViews: readonly AttachmentView[] = [];
  private promptViews: readonly PromptView[] = [];
  /** The parts the chat's rooms and its owner write (the queue, the changes card, the permission level, a failure). */
  private written: Partial<ViewParts> = {};
  private isClosed = false;
  /** The session to bring back once the chat can connect (kept in the page's state meanwhile, so a reload keeps it). */
  restoreLater: Omit<SessionTarget, 'agent'> | undefined;
  /** The chat's own questions (a prompt file's inputs, a resend's), shown beside the agent's. */
  readonly questions = new Elicitations(() => this.changed('elicitations'), LOCAL_QUESTION_IDS);

  constructor(
    readonly agentName: string,
    /** The worktree a folder is in, if it is one (New Chat in Worktree): the header shows its branch. */
    private readonly worktreeOf: (cwd: string) => { readonly path: string; readonly branch: string } | undefined = () => undefined,
  ) {}

  /** The session shown, if one is attached. */
  get session(): AgentSession | undefined {
    return this.current;
  }

  /** An earlier session's entries, or a transcript kept on this computer, shown above the session's own. */
  get earlier(): readonly EntryView[] {
    return this.earlierEntries;
  }

  /** What the line below the earlier entries says, when it is not a restart, and the branch they came from. */
  get divider(): Divider | undefined {
    return this.dividerLine;
  }

  /** Why the agent failed, while the chat shows it. */
  get agentError(): ViewParts['agentError'] {
    return this.shown('agentError');
  }

  get notice(): string | undefined {
    return this.noticeText;
  }

  /** What the user is writing, as the page last told it: a page that takes over (a move) starts with it. */
  get draft(): string {
    return this.draftText;
  }

  /** The entry a search result brought into view, for a page that loads after (a chat just opened). */
  get revealed(): Revealed | undefined {
    return this.revealedEntry;
  }

  get attachments(): readonly AttachmentView[] {
    return this.attachmentViews;
  }

  /** The prompt files offered under `/`, as last listed. */
  get prompts(): readonly PromptView[] {
    return this.promptViews;
  }

  /** A part a room or the owner wrote, as last written (before that, its initial value). */
  shown<P extends Part>(part: P): ViewParts[P] {
    return (this.written[part] as ViewParts[P] | undefined) ?? INITIAL_PARTS[part];
  }

  /** The worktree the session works in, if it does. */
  get worktree(): { readonly path: string; readonly branch: string } | undefined {
    return this.current && this.worktreeOf(this.current.cwd);
  }

  /** The chat's own model, or one of its subagents' (by session id). */
  modelOf(sessionId: string | undefined): SessionModel | undefined {
    const model = this.current?.model;
    if (sessionId === undefined || sessionId === model?.sessionId) return model;
    return model?.subagents.find((c) => c.info.sessionId === sessionId)?.model;
  }

  /** How many questions wait for the user: the agent's, its subagents', and the chat's own (not permission requests). */
  get questionsWaiting(): number {
    const model = this.current?.model;
    const inSubagents = model?.subagents.reduce((n, child) => n + child.model.elicitations.waiting, 0) ?? 0;
    return (model?.elicitations.waiting ?? 0) + inSubagents + this.questions.waiting;
  }

  /**
   * Shows `session` from now on. `keepEarlier` keeps the previous session's entries above it, for a session that
   * does not bring the conversation back (a fresh one, or one resumed without a replay). Returns the subscriptions to
   * the session, which whoever attached it disposes with the session.
   */
  attach(session: AgentSession, keepEarlier = false): Disposable {
    const previous = this.current;
    if (previous && keepEarlier) {
      this.earlierEntries = [...this.earlierEntries, ...sessionEntries(previous)];
      this.dividerLine = undefined;
    } else if (!keepEarlier) {
      this.earlierEntries = [];
      this.dividerLine = undefined;
    }
    this.current = session;
    delete this.written.agentError;
    const subscriptions = new DisposableStore(
      session.model.onDidChange((change) => {
        if (change.type === 'entry') return this.fire({ kind: 'entry', index: change.index });
        const part = PART_OF_CHANGE[change.type];
        if (!part) return;
        const turn = session.model.turn;
        const ended = change.type === 'turn' && turn.phase === 'idle' ? { stopReason: turn.stopReason, failed: turn.error !== undefined } : undefined;
        this.fire({ kind: 'part', part, ...(ended ? { ended } : {}) });
      }),
      session.onDidEndAgent((end) => this.fire({ kind: 'agentEnded', end })),
      session.client.auth.onDidChange(() => this.changed('session')), // the header's tooltip says who the agent runs as
    );
    this.fire({ kind: 'whole', ...(previous !== session ? { attached: session } : {}) });
    if (session.ended) this.fire({ kind: 'agentEnded', end: session.ended });
    return subscriptions;
  }

  /**
   * Shows `entries` above the session's own, with `divider` below them (and `branch`, the session they came from, to
   * open). Attach the session with `keepEarlier` to keep them.
   */
  showEarlier(entries: EntryView[], divider: string, branch?: SessionTarget): void {
    this.earlierEntries = entries;
    this.dividerLine = { text: divider, ...(branch ? { branch } : {}) };
    this.fire({ kind: 'whole' });
  }

  /** Starting or reopening the agent failed: the chat shows why, with what the user can do (Restart Agent first). */
  fail(message: string, stderr: readonly string[], actions: readonly ErrorAction[] = ['restart', 'showLog']): void {
    this.show('agentError', { message: capitalize(message), stderr: stderr.slice(-STDERR_LINES_SHOWN), actions: [...actions] });
  }

  /** A quiet line in the chat. */
  tell(text: string): void {
    this.noticeText = text;
    this.say({ type: 'notice', text });
  }

  /** The quiet line goes as the composer sends. */
  clearNotice(): void {
    this.noticeText = undefined;
  }

  /** Puts `text` in the composer (a fork starts with the message it was forked at). */
  setDraft(text: string): void {
    this.draftText = text;
    this.say({ type: 'editQueued', text });
  }

  /** What the composer holds, as the page tells it. */
  draftChanged(text: string): void {
    this.draftText = text;
  }

  /** Brings `found` into view, in the page and in a page that loads after. */
  reveal(found: Revealed): void {
    this.revealedEntry = found;
    this.say({ type: 'reveal', earlier: found.earlier, entryId: found.entry.id });
  }

  /** The attachments of the message being written; `focus` puts the keyboard back in the composer. */
  showAttachments(attachments: readonly AttachmentView[], focus: boolean): void {
    this.attachmentViews = attachments;
    this.say({ type: 'attachments', attachments: [...attachments], focus });
  }

  showPrompts(prompts: readonly PromptView[]): void {
    this.promptViews = prompts;
    this.say({ type: 'prompts', prompts: [...prompts] });
  }

  /** A room or the owner shows its part anew: the queue, the changes card, the permission level. */
  show<P extends Part>(part: P, view: ViewParts[P]): void {
    this.written[part] = view;
    this.changed(part);
  }

  /** `part` changed where the model does not keep it (the session's own state, as an agent's refusal put it back). */
  changed(part: Part): void {
    this.fire({ kind: 'part', part });
  }

  /** Tells the page something once. */
  say(message: HostMessage): void {
    this.fire({ kind: 'say', message });
  }

  private fire(change: ChatChange): void {
    if (!this.isClosed) this.emitter.fire(change);
  }

  /** Whether the chat closed: what arrives after is dropped. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** The chat closed: nothing changes from now on, and its own questions are cancelled. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.questions.cancelAll();
    this.emitter.dispose();
  }
}
