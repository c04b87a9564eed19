// What the extension hands out for a chat: through `exports` (AcpApi), and as the result of the commands that open
// one (New Chat, Open Previous Session). A handle reads what the chat shows, in the chat view's own plain shapes, and
// acts only as the user can (send, stop, answer a permission request, choose a mode or a config option, close). The
// panel, its session and the agent's client stay inside: another extension, or a test, cannot reach past them.
import type { WhileBusy } from '../chat/queue';
import type { ElicitationView, FieldInput, FileMatch, MentionKind, PromptView, QueueView, SubagentView } from '../chat/protocol';
import type { Attention } from '../chat/attention';
import type * as S from '../acp/schema.gen';
import type { LeftOutServer } from '../acp/sessionHandle';
import type { ChatPanel } from '../chat/panel';
import type {
  AttachmentView,
  ChangesAction,
  CheckpointAnswer,
  CheckpointsView,
  EntryView,
  PermissionView,
  CommandView,
  PermissionLevelName,
  PermissionLevelView,
  PickerView,
  PlanByIdView,
  PlanEntryView,
  SessionView,
  TurnView,
} from '../chat/protocol';
import type { AgentEndView, ChatSnapshot } from '../chat/snapshot';

/** One open chat. Every property is read when asked: it says what the chat shows now, and is not updated after. */
export interface ChatHandle {
  /** The configured agent the chat talks to. */
  readonly agentName: string;
  /** The quiet line the chat shows last (why something was not attached, …). */
  readonly lastNotice: string | undefined;
  /** What `@query` offers in the composer: problems, terminal, changes, files, folders, symbols. */
  completeMention(query: string): Promise<FileMatch[]>;
  /** Picks one of those, as Enter in the list does: it is attached (with its size), or the chat says why not. */
  mention(kind: MentionKind, id: string): Promise<void>;
  /** Attach Anyway on a chip past the size bound. */
  confirmAttachment(id: string): void;
  /** The prompt files the composer offers under `/`. */
  readonly promptFiles: readonly PromptView[];
  /** The prompt files read again, as typing `/` does. */
  listPromptFiles(): Promise<readonly PromptView[]>;
  /** Picks a prompt file under `/`: its inputs are asked in the chat, then its text goes into the composer (resolves with it). */
  usePrompt(name: string, source: PromptView['source']): Promise<string | undefined>;
  /** The entry a search result last brought into view (Search Chats opens a chat at its match). */
  readonly revealedMatch: EntryView | undefined;
  /** What the composer holds (as the chat view last told the host, a moment after the last key). */
  readonly composerText: string;
  /** Fork from Here on a user message (by entry id), as its button does: a new chat opens when the agent forks sessions. */
  forkFrom(entryId: number): void;
  /**
   * Edit on a user message, then Enter with `text`: the files restored to before it, and the message resent (see
   * chats/branches.ts). Resolves with the resent turn's stop reason, or undefined when nothing was sent.
   */
  editAndResend(entryId: number, text: string): Promise<S.StopReason | undefined>;
  /** Open the Earlier Branch, below a conversation that was edited and resent, as its button does. */
  openEarlierBranch(): Promise<void>;
  /** Copy on a message (its Markdown source) or a tool card (its output), as its button does; false when there was nothing. */
  copyEntry(entryId: number, earlier?: boolean): Promise<boolean>;
  /** Where the chat is shown: an editor tab or the secondary side bar. */
  readonly location: 'editor' | 'sideBar';
  /** The tab's title: the session's title (or the agent's name), with the count of waiting permission requests. */
  readonly title: string;
  /** What the chat asks of its user: working, needs you, done and not yet seen, failed, or nothing (see chat/attention.ts). */
  readonly attention: Attention;
  /** The session shown, while one is attached (a chat waiting for workspace trust, or that failed to start, has none). */
  readonly sessionId: string | undefined;
  /** The agent's process (shared by every chat with that agent), while it runs. */
  readonly agentPid: number | undefined;
  /**
   * The conversation, oldest first, as the chat shows it: an earlier conversation kept on this computer (when the
   * agent could not bring it back), then the session's own messages and tool calls.
   */
  readonly entries: readonly EntryView[];
  /** The turn: idle (with how the last one ended), running, waiting for the user, or being cancelled. */
  readonly turn: TurnView;
  /** The agent's permission requests that wait for an answer, oldest first. */
  readonly permissions: readonly PermissionView[];
  /** The mode and the agent's config options, with their current values. */
  readonly pickers: readonly PickerView[];
  /** The worktree the chat works in (New Chat in Worktree), as its header shows it: the branch, and the folder. */
  readonly worktree: SessionView['worktree'];
  /** Who the agent runs as, where it says, as the header's tooltip shows it. */
  readonly account: SessionView['account'];
  /** The agent's slash commands, as `/` lists them. */
  readonly commands: readonly CommandView[];
  /** The agent's plans above the composer: ACP v1's one plan (`entries`), and the plans it keeps by id. */
  readonly plans: { readonly entries: readonly PlanEntryView[]; readonly byId: readonly PlanByIdView[] };
  /** Opens a plan the agent keeps in a file, as its button does. */
  openPlan(planId: string): Promise<void>;
  /** Opens the `index`th location of a tool call's card, as a click on it does. */
  openLocation(toolCallId: string, index: number): Promise<void>;
  /** How the client answers the agent's permission requests in this chat, and the levels offered. */
  readonly permissionLevel: PermissionLevelView;
  /** What is attached to the message being written ("Add File to Chat", "Add Selection to Chat", …). */
  readonly attachments: readonly AttachmentView[];
  /** The MCP servers the session was opened without, because the agent cannot use their transport. */
  readonly leftOut: readonly LeftOutServer[];
  /** Set once the agent stopped while the session was open. */
  readonly agentEnd: AgentEndView | undefined;
  /** What the chat shows of what its turns changed: the changes cards, Restore Checkpoint, a question waiting. */
  readonly checkpoints: CheckpointsView;
  /** Does what a changes card's button does (Review Changes, Undo, Redo, Keep, Send Feedback); resolves when done. */
  changes(turn: number, action: ChangesAction): Promise<void>;
  /** Opens the diff of a card's file, as a click on it does. */
  openChange(turn: number, index: number): Promise<void>;
  /** Restore Checkpoint on a user message, as its button does; resolves when done (its question answered). */
  restoreCheckpoint(turn: number): Promise<void>;
  /** Redo Changes after a Restore Checkpoint. */
  redoRestore(): Promise<void>;
  /** Answers the question the checkpoints ask in the chat, as its buttons do. */
  answerCheckpoint(id: number, answer: CheckpointAnswer): Promise<void>;
  /**
   * Sends a message as the user would, with everything attached (Enter in the composer): resolves with the stop
   * reason when its turn ends, or with undefined when a turn was running and the message waits in the queue (it is
   * never steered into the turn nor stops it); rejects when it cannot be sent.
   */
  send(text: string): Promise<S.StopReason | undefined>;
  /**
   * Enter in the composer with `text` (and what is attached): sent now when nothing runs, otherwise queued, sent into
   * the running turn or sent after a stop, as `mode` (or the setting acp.chat.whileBusy) says.
   */
  submit(text: string, mode?: WhileBusy): void;
  /** The messages waiting for the running turn, and whether they wait for the user's word. */
  readonly queued: QueueView;
  /** A queued message's buttons, as the chat shows them. */
  changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void;
  /** Send on a held queue. */
  sendQueued(): void;
  /** The agent's questions waiting for the user. */
  readonly elicitations: readonly ElicitationView[];
  /** Submit (with what each field holds), Decline or Cancel on a question; returns why a Submit was refused. */
  answerElicitation(id: number, action: 'accept' | 'decline' | 'cancel', values?: Readonly<Record<string, FieldInput>>): Promise<string | undefined>;
  /** Open on a url question (opens the page in the browser). */
  openElicitationUrl(id: number): Promise<boolean>;
  /** The children the session announced (subagents), as their cards show them. */
  readonly subagents: readonly SubagentView[];
  /** Answers a subagent's permission request, as a click on its card does. */
  answerSubagentPermission(sessionId: string, id: number, optionId: string): Promise<boolean>;
  /** Cancel on a subagent's card; false when the agent did not allow it. */
  cancelSubagent(sessionId: string): Promise<boolean>;
  /** Stops the running turn, as the Stop button does: waiting permission requests are answered "cancelled". */
  cancel(): Promise<void>;
  /** Answers a waiting permission request with one of its options, as a click in the chat does; false when it no longer waits. */
  answerPermission(id: number, optionId: string): Promise<boolean>;
  /** Asks the agent for another mode; rejects with the agent's reason when it refuses. */
  setMode(modeId: string): Promise<void>;
  /** Asks the agent to change a config option; rejects with the agent's reason when it refuses. */
  setConfigOption(configId: string, value: string | boolean): Promise<void>;
  /** Picks the chat's permission level, as its header's picker does (only a level offered here is set). */
  setPermissionLevel(level: PermissionLevelName): Promise<void>;
  /** Closes the chat, as closing its tab does. */
  close(): void;
}

/** The request id of a file search whose answer goes to the caller: no `@` list in the chat view waits for it. */
const FOR_THE_CALLER = -1;

/** A chat as its handle sees it: the one way in and the one way out (see chat/dispatch.ts and chat/snapshot.ts). */
export type HandledChat = Pick<ChatPanel, 'dispatch' | 'snapshot' | 'dispose'>;

const handles = new WeakMap<HandledChat, ChatHandle>();

/** The handle of `panel`: one per panel, so that handles compare equal when they are the same chat. */
export function handleOf(panel: HandledChat): ChatHandle {
  let handle = handles.get(panel);
  if (!handle) {
    handle = new PanelHandle(panel);
    handles.set(panel, handle);
  }
  return handle;
}

/** What a command that opens a chat answers: the chat's handle (never the panel), or undefined when none opened. */
export function handleOrNone(panel: HandledChat | undefined): ChatHandle | undefined {
  return panel && handleOf(panel);
}

/** Reads come from the chat's snapshot; acts are the messages the chat view sends, through the same door. */
class PanelHandle implements ChatHandle {
  constructor(private readonly chat: HandledChat) {}

  private get now(): ChatSnapshot {
    return this.chat.snapshot();
  }

  get agentName(): string {
    return this.now.agentName;
  }
  get location(): 'editor' | 'sideBar' {
    return this.now.location;
  }
  get lastNotice(): string | undefined {
    return this.now.notice;
  }
  get promptFiles(): readonly PromptView[] {
    return this.now.prompts;
  }
  get revealedMatch(): EntryView | undefined {
    return this.now.revealed;
  }
  get composerText(): string {
    return this.now.draft;
  }
  get title(): string {
    return this.now.title;
  }
  get attention(): Attention {
    return this.now.attention;
  }
  get queued(): QueueView {
    return this.now.queue;
  }
  get elicitations(): readonly ElicitationView[] {
    return this.now.elicitations;
  }
  get subagents(): readonly SubagentView[] {
    return this.now.subagents;
  }
  get sessionId(): string | undefined {
    return this.now.sessionId;
  }
  get agentPid(): number | undefined {
    return this.now.agentPid;
  }
  get entries(): readonly EntryView[] {
    return this.now.entries;
  }
  get turn(): TurnView {
    return this.now.turn;
  }
  get permissions(): readonly PermissionView[] {
    return this.now.permissions;
  }
  get permissionLevel(): PermissionLevelView {
    return this.now.permissionLevel;
  }
  get commands(): readonly CommandView[] {
    return this.now.session.commands;
  }
  get pickers(): readonly PickerView[] {
    return this.now.session.pickers;
  }
  get account(): SessionView['account'] {
    return this.now.session.account;
  }
  get worktree(): SessionView['worktree'] {
    return this.now.session.worktree;
  }
  get plans(): { readonly entries: readonly PlanEntryView[]; readonly byId: readonly PlanByIdView[] } {
    const session = this.now.session;
    return { entries: session.plan, byId: session.plans ?? [] };
  }
  openPlan(planId: string): Promise<void> {
    return this.chat.dispatch({ type: 'openPlan', planId });
  }
  openLocation(toolCallId: string, index: number): Promise<void> {
    return this.chat.dispatch({ type: 'openLocation', toolCallId, index });
  }
  get attachments(): readonly AttachmentView[] {
    return this.now.attachments;
  }
  get leftOut(): readonly LeftOutServer[] {
    return this.now.leftOut;
  }
  get agentEnd(): AgentEndView | undefined {
    return this.now.agentEnd;
  }
  get checkpoints(): CheckpointsView {
    return this.now.checkpoints;
  }

  completeMention(query: string): Promise<FileMatch[]> {
    return this.chat.dispatch({ type: 'searchFiles', requestId: FOR_THE_CALLER, query });
  }
  mention(kind: MentionKind, id: string): Promise<void> {
    return this.chat.dispatch({ type: 'mention', kind, path: id });
  }
  confirmAttachment(id: string): void {
    this.unanswered(this.chat.dispatch({ type: 'confirmAttachment', id }));
  }
  listPromptFiles(): Promise<readonly PromptView[]> {
    return this.chat.dispatch({ type: 'listPrompts' });
  }
  usePrompt(name: string, source: PromptView['source']): Promise<string | undefined> {
    return this.chat.dispatch({ type: 'usePrompt', name, source });
  }
  editAndResend(entryId: number, text: string): Promise<S.StopReason | undefined> {
    return this.chat.dispatch({ type: 'resend', entryId, text });
  }
  openEarlierBranch(): Promise<void> {
    return this.chat.dispatch({ type: 'openBranch' });
  }
  copyEntry(entryId: number, earlier?: boolean): Promise<boolean> {
    return this.chat.dispatch({ type: 'copyEntry', entryId, ...(earlier ? { earlier } : {}) });
  }
  forkFrom(entryId: number): void {
    this.unanswered(this.chat.dispatch({ type: 'fork', entryId }));
  }
  submit(text: string, mode?: WhileBusy): void {
    this.unanswered(this.chat.dispatch({ type: 'send', text, attachments: this.attachments.map((a) => a.id), ...(mode ? { mode } : {}) }));
  }
  changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void {
    this.unanswered(this.chat.dispatch({ type: 'queue', id, action }));
  }
  sendQueued(): void {
    this.unanswered(this.chat.dispatch({ type: 'sendQueued' }));
  }
  answerElicitation(
    id: number,
    action: 'accept' | 'decline' | 'cancel',
    values: Readonly<Record<string, FieldInput>> = {},
  ): Promise<string | undefined> {
    // A field left undefined is a field left empty, as the form sends it.
    const given = Object.fromEntries(Object.entries(values).filter((entry) => entry[1] !== undefined));
    return this.chat.dispatch({ type: 'elicitation', id, action, values: given });
  }
  openElicitationUrl(id: number): Promise<boolean> {
    return this.chat.dispatch({ type: 'openElicitationUrl', id });
  }
  answerSubagentPermission(sessionId: string, id: number, optionId: string): Promise<boolean> {
    return this.chat.dispatch({ type: 'permission', sessionId, id, optionId });
  }
  cancelSubagent(sessionId: string): Promise<boolean> {
    return this.chat.dispatch({ type: 'cancelSubagent', sessionId });
  }
  changes(turn: number, action: ChangesAction): Promise<void> {
    return this.chat.dispatch({ type: 'changes', turn, action });
  }
  openChange(turn: number, index: number): Promise<void> {
    return this.chat.dispatch({ type: 'openChange', turn, index });
  }
  restoreCheckpoint(turn: number): Promise<void> {
    return this.chat.dispatch({ type: 'restoreCheckpoint', turn });
  }
  redoRestore(): Promise<void> {
    return this.chat.dispatch({ type: 'redoRestore' });
  }
  answerCheckpoint(id: number, answer: CheckpointAnswer): Promise<void> {
    return this.chat.dispatch({ type: 'checkpointAnswer', id, answer });
  }
  send(text: string): Promise<S.StopReason | undefined> {
    // Queued behind a running turn, never steered into it or stopping it, whatever the user's setting.
    return this.chat.dispatch({ type: 'send', text, attachments: this.attachments.map((a) => a.id), mode: 'queue' });
  }
  cancel(): Promise<void> {
    return this.chat.dispatch({ type: 'cancel' });
  }
  answerPermission(id: number, optionId: string): Promise<boolean> {
    return this.chat.dispatch({ type: 'permission', id, optionId });
  }
  setMode(modeId: string): Promise<void> {
    return this.chat.dispatch({ type: 'setMode', modeId });
  }
  setPermissionLevel(level: PermissionLevelName): Promise<void> {
    return this.chat.dispatch({ type: 'setPermissionLevel', level });
  }
  setConfigOption(configId: string, value: string | boolean): Promise<void> {
    return this.chat.dispatch({ type: 'setConfig', configId, value });
  }
  close(): void {
    this.chat.dispose();
  }

  /** An act whose caller waits for nothing: what fails has been said in the chat, as for the user's own clicks. */
  private unanswered(act: Promise<unknown>): void {
    act.catch(() => undefined);
  }
}
