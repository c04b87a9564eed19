// What the extension hands out for a chat: through `exports` (AcpApi), and as the result of the commands that open
// one (New Chat, Open Previous Session). A handle reads what the chat shows, in the chat view's own plain shapes, and
// acts only as the user can (send, stop, answer a permission request, choose a mode or a config option, close). The
// panel, its session and the agent's client stay inside: another extension, or a test, cannot reach past them.
import type * as S from '../acp/schema.gen';
import type { ChatPanel } from '../chat/panel';
import type {
  ChangesAction,
  CheckpointAnswer,
  ErrorAction,
  TurnAction,
  FieldInput,
  FileMatch,
  MentionKind,
  PermissionLevelName,
  PromptView,
} from '../chat/protocol';
import type { WhileBusy } from '../chat/queue';
import type { ChatSnapshot } from '../chat/snapshot';

/** What a chat's handle does: each act is what the user's click or key does, through the chat's one door. */
interface ChatActs {
  /** What `@query` offers in the composer: problems, terminal, changes, files, folders, symbols. */
  completeMention(query: string): Promise<FileMatch[]>;
  /** Picks one of those, as Enter in the list does: it is attached (with its size), or the chat says why not. */
  mention(kind: MentionKind, id: string): Promise<void>;
  /** Attach Anyway on a chip past the size bound. */
  confirmAttachment(id: string): void;
  /** The prompt files read again, as typing `/` does. */
  listPromptFiles(): Promise<readonly PromptView[]>;
  /** Picks a prompt file under `/`: its inputs are asked in the chat, then its text goes into the composer (resolves with it). */
  usePrompt(name: string, source: PromptView['source']): Promise<string | undefined>;
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
  copyEntry(entryId: number, earlier?: boolean, sessionId?: string): Promise<boolean>;
  /** Opens a plan the agent keeps in a file, as its button does. */
  openPlan(planId: string): Promise<void>;
  /** A button of a failed turn: Retry (the same message again), Sign In or Switch Model. */
  runTurnAction(action: TurnAction): Promise<void>;
  /** Open Plan in Editor on a plan approval (a subagent's when `sessionId` names it). */
  openPlanReview(id: number, sessionId?: string): Promise<void>;
  /** Opens the `index`th location of a tool call's card, as a click on it does. */
  openLocation(toolCallId: string, index: number): Promise<void>;
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
  /** A queued message's buttons, as the chat shows them. */
  changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void;
  /** Send on a held queue. */
  sendQueued(): void;
  /** Submit (with what each field holds), Decline or Cancel on a question; returns why a Submit was refused. */
  answerElicitation(id: number, action: 'accept' | 'decline' | 'cancel', values?: Readonly<Record<string, FieldInput>>): Promise<string | undefined>;
  /** Open on a url question (opens the page in the browser). */
  openElicitationUrl(id: number): Promise<boolean>;
  /** Answers a subagent's permission request, as a click on its card does. */
  answerSubagentPermission(sessionId: string, id: number, optionId: string): Promise<boolean>;
  /** Cancel on a subagent's card; false when the agent did not allow it. */
  cancelSubagent(sessionId: string): Promise<boolean>;
  /** Stop on a tool card (v2): the agent stops that call alone; the turn goes on. */
  cancelToolCall(toolCallId: string): Promise<boolean>;
  /** Stop or Dismiss on an item of the background work (`background`, by its key); false when it is not there or cannot. */
  stopBackground(key: string, action: 'stop' | 'dismiss'): Promise<boolean>;
  /** Stops the running turn, as the Stop button does: waiting permission requests are answered "cancelled". */
  cancel(): Promise<void>;
  /** A button on the chat's error (Restart Agent, Stop Reconnecting, Set Agent Token…, …), as a click does. */
  runErrorAction(action: ErrorAction): Promise<void>;
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

/**
 * One open chat: what it shows (its snapshot, chat/snapshot.ts: every property read when asked, saying what the chat
 * shows now and not updated after) and what the user can do in it.
 */
export type ChatHandle = ChatSnapshot & ChatActs;

/** The request id of a file search whose answer goes to the caller: no `@` list in the chat view waits for it. */
const FOR_THE_CALLER = -1;

/** A chat as its handle sees it: the one way in and the one way out (see chat/dispatch.ts and chat/snapshot.ts). */
export type HandledChat = Pick<ChatPanel, 'dispatch' | 'snapshot' | 'dispose'>;

const handles = new WeakMap<HandledChat, ChatHandle>();

/** The handle of `panel`: one per panel, so that handles compare equal when they are the same chat. */
export function handleOf(panel: HandledChat): ChatHandle {
  let handle = handles.get(panel);
  if (!handle) {
    const acts = new PanelActs(panel);
    // Each of the snapshot's properties, read from a new snapshot when asked.
    for (const key of Object.keys(panel.snapshot()) as (keyof ChatSnapshot)[]) {
      Object.defineProperty(acts, key, { get: () => panel.snapshot()[key], enumerable: true });
    }
    handle = acts as PanelActs & ChatSnapshot;
    handles.set(panel, handle);
  }
  return handle;
}

/** What a command that opens a chat answers: the chat's handle (never the panel), or undefined when none opened. */
export function handleOrNone(panel: HandledChat | undefined): ChatHandle | undefined {
  return panel && handleOf(panel);
}

/** The acts of a chat's handle: the messages the chat view sends, through the same door. */
class PanelActs implements ChatActs {
  constructor(private readonly chat: HandledChat) {}

  private get attached(): string[] {
    return this.chat.snapshot().attachments.map((a) => a.id);
  }
  openPlan(planId: string): Promise<void> {
    return this.chat.dispatch({ type: 'openPlan', planId });
  }
  runTurnAction(action: TurnAction): Promise<void> {
    return this.chat.dispatch({ type: 'turnAction', action });
  }
  openPlanReview(id: number, sessionId?: string): Promise<void> {
    return this.chat.dispatch({ type: 'openPlanReview', id, ...(sessionId ? { sessionId } : {}) });
  }
  openLocation(toolCallId: string, index: number): Promise<void> {
    return this.chat.dispatch({ type: 'openLocation', toolCallId, index });
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
  copyEntry(entryId: number, earlier?: boolean, sessionId?: string): Promise<boolean> {
    return this.chat.dispatch({ type: 'copyEntry', entryId, ...(earlier ? { earlier } : {}), ...(sessionId !== undefined ? { sessionId } : {}) });
  }
  forkFrom(entryId: number): void {
    this.unanswered(this.chat.dispatch({ type: 'fork', entryId }));
  }
  submit(text: string, mode?: WhileBusy): void {
    this.unanswered(this.chat.dispatch({ type: 'send', text, attachments: this.attached, ...(mode ? { mode } : {}) }));
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
  cancelToolCall(toolCallId: string): Promise<boolean> {
    return this.chat.dispatch({ type: 'cancelToolCall', toolCallId });
  }
  stopBackground(key: string, action: 'stop' | 'dismiss'): Promise<boolean> {
    return this.chat.dispatch({ type: 'background', key, action });
  }
  runErrorAction(action: ErrorAction): Promise<void> {
    return this.chat.dispatch({ type: 'errorAction', action });
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
    return this.chat.dispatch({ type: 'send', text, attachments: this.attached, mode: 'queue' });
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
