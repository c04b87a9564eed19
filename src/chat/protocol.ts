// The messages between the extension host and the chat webview: one typed union each way, shared by both sides
// and validated where they arrive. No `vscode` import: the webview bundle includes this file. What the messages
// carry (the views, the form checks, the tool kinds, the bidi check) lives in ./shared/, and is part of this
// module's surface: the webview keeps one door to the host's code.
import { z } from 'zod';
import { SessionTarget } from '../common/sessionTarget';
import { FieldInput } from './shared/forms';
import { MAX_IMAGE_BYTES } from './shared/text';
import {
  AgentErrorView,
  ASK_ONLY,
  AttachmentView,
  BackgroundView,
  ChangesAction,
  CheckpointAnswer,
  CheckpointsView,
  ElicitationView,
  EMPTY_QUEUE,
  EMPTY_SESSION,
  EntryView,
  ErrorAction,
  FileMatch,
  MentionKind,
  NO_CHECKPOINTS,
  PermissionLevelName,
  PermissionLevelView,
  PermissionView,
  PromptView,
  QueueView,
  SessionView,
  SubagentView,
  TurnAction,
  TurnView,
  WhileBusyMode,
} from './shared/views';

export { SessionTarget };
export * from './shared/bidi';
export * from './shared/forms';
export * from './shared/text';
export * from '../acp/toolKinds';
export * from './shared/views';

/**
 * The parts of the chat's view that change apart from its entries. The whole state carries each of them, an update
 * those that changed; the host builds each from one row of its table (chat/snapshot.ts), and the webview takes them
 * as they come. A new piece of chat state is one field here, one row there, and what the webview shows of it.
 */
export const ViewParts = z.object({
  turn: TurnView,
  permissions: z.array(PermissionView),
  /** The agent's questions waiting for the user. */
  elicitations: z.array(ElicitationView),
  /** The children this session announced. */
  subagents: z.array(SubagentView),
  agentError: AgentErrorView.nullable(),
  session: SessionView,
  /** What each turn changed, and which messages have a checkpoint. */
  checkpoints: CheckpointsView,
  /** The messages waiting for the running turn. */
  queue: QueueView,
  /** How the client answers the agent's permission requests in this chat. */
  permissionLevel: PermissionLevelView,
  /** What runs after the turn that started it ended, oldest first. */
  background: z.array(BackgroundView),
});
export type ViewParts = z.infer<typeof ViewParts>;
export type Part = keyof ViewParts;
export const PARTS: readonly Part[] = ViewParts.keyof().options;

/** What each part is before the host says otherwise: a chat with no session, and what the webview starts with. */
export const INITIAL_PARTS: ViewParts = {
  turn: { phase: 'idle' },
  permissions: [],
  elicitations: [],
  subagents: [],
  agentError: null,
  session: EMPTY_SESSION,
  checkpoints: NO_CHECKPOINTS,
  queue: EMPTY_QUEUE,
  permissionLevel: ASK_ONLY,
  background: [],
};

/**
 * Entries a (re)loading page gets with its state, at most: what it shows (150) and as much again. A long chat's
 * earlier entries follow in a `head` message once the state is delivered, so that the last message is on screen
 * without waiting for the whole conversation to cross to the page (measured in the UI benchmark: 1.1 MB for a
 * chat of 2,000 turns, 0.7 s from posted to delivered).
 */
export const FIRST_ENTRIES = 300;

/** Where a state's entries start, when the entries before them follow in the `head` of the same `seq`. */
const StateFrom = z.object({
  /** Index in the earlier entries of the first one sent. */
  earlier: z.number().int().nonnegative(),
  /** Index in the session's entries of the first one sent: an update's indices count from the session's first. */
  entries: z.number().int().nonnegative(),
  seq: z.number().int().nonnegative(),
});
export type StateFrom = z.infer<typeof StateFrom>;

export const HostMessage = z.discriminatedUnion('type', [
  /** Everything, when the webview (re)loads. */
  z.object({
    type: z.literal('state'),
    agent: z.string(),
    /** What the webview keeps in its state for the serializer: the chat to restore after a reload. */
    restore: SessionTarget.optional(),
    /** Entries of an earlier session in this panel, kept for reading after the agent was restarted. */
    earlier: z.array(EntryView),
    /** The line below the earlier entries when they are not from a restart (a transcript kept on this computer). */
    divider: z.string().max(500).optional(),
    /** The line offers Open the Earlier Branch: the session the entries above came from (an edit and resend). */
    branch: z.literal(true).optional(),
    entries: z.array(EntryView),
    ...ViewParts.shape,
    attachments: z.array(AttachmentView),
    /** The last quiet line, so a chat that was hidden still shows it. */
    notice: z.string().optional(),
    /** What the user was writing, for a page that takes over a chat that moved (it keeps its own draft otherwise). */
    draft: z.string().optional(),
    /** The prompt files offered under `/` (absent: none). */
    prompts: z.array(PromptView).optional(),
    /** The entry to bring into view (a search result opened at its match). */
    reveal: z.object({ earlier: z.boolean(), entryId: z.number() }).optional(),
    /** The host's translations (English message → translation), absent in English; the webview's `t` uses them. */
    l10n: z.record(z.string(), z.string()).optional(),
    /** Set when only the last entries came (a long chat): the rest follow in a `head`. */
    from: StateFrom.optional(),
  }),
  /** The entries before those of the state of the same `seq` (a long chat's, sent after its last ones). */
  z.object({ type: z.literal('head'), seq: z.number().int().nonnegative(), earlier: z.array(EntryView), entries: z.array(EntryView) }),
  /** What changed since the last post: entries by index, and whichever other parts changed. */
  z.object({
    type: z.literal('update'),
    entries: z.array(z.object({ index: z.number().int().nonnegative(), entry: EntryView })),
    ...ViewParts.partial().shape,
  }),
  /**
   * Text for the composer: a queued message the user took back to edit (its attachments come separately), the
   * message a fork was made at, a prompt file's body.
   */
  z.object({ type: z.literal('editQueued'), text: z.string() }),
  /** A message could not be sent: the draft goes back into the composer, with the reason. */
  z.object({ type: z.literal('sendFailed'), text: z.string(), reason: z.string() }),
  /** The prompt files offered under `/`, after one was added, changed or removed. */
  z.object({ type: z.literal('prompts'), prompts: z.array(PromptView) }),
  /** Brings an entry into view and marks it: a search result opened at its match. */
  z.object({ type: z.literal('reveal'), earlier: z.boolean(), entryId: z.number() }),
  /** A quiet line for the user (where the agent went while they were typing, why an image was not attached). */
  z.object({ type: z.literal('notice'), text: z.string() }),
  /** The attachments of the message being written, after one was added or removed. */
  z.object({ type: z.literal('attachments'), attachments: z.array(AttachmentView), focus: z.boolean() }),
  /** An image of a message, once, as the page asked (`loadImage`): a raster `data:` URL, bounded; or why not. */
  z.object({
    type: z.literal('image'),
    entryId: z.number(),
    index: z.number().int().nonnegative(),
    src: z
      .string()
      .max(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64)
      .regex(/^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/)
      .optional(),
    /** A linked file the chat does not show, and why (its size and type are known only once it is read). */
    refused: z.string().max(300).optional(),
  }),
  /** Workspace files matching what follows an `@`. */
  z.object({ type: z.literal('files'), requestId: z.number(), files: z.array(FileMatch) }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

const index = z.number().int().nonnegative();

export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** What the user is writing, told as it changes (a little after the last key), so a chat that moves keeps it. */
  z.object({ type: z.literal('draft'), text: z.string().max(1_000_000) }),
  /** Enter or a send button: while a turn runs, `mode` says what the message becomes (default: the setting). */
  z.object({
    type: z.literal('send'),
    text: z.string(),
    attachments: z.array(z.string()),
    mode: WhileBusyMode.optional(),
    /** Images the page pasted or dropped whose chips it has not seen yet: the message waits for them and takes them. */
    images: z.array(z.string().max(64)).max(50).optional(),
  }),
  /** A queued message: back into the composer, out of the queue, up or down; or Send for a held queue. */
  z.object({ type: z.literal('queue'), action: z.enum(['edit', 'remove', 'up', 'down']), id: z.number() }),
  z.object({ type: z.literal('sendQueued') }),
  /** The user's answer to one of the agent's questions: Submit (with what each field holds), Decline or Cancel. */
  z.object({
    type: z.literal('elicitation'),
    id: z.number(),
    /** A subagent's question (the chat's own otherwise). */
    sessionId: z.string().max(1000).optional(),
    action: z.enum(['accept', 'decline', 'cancel']),
    values: z.record(z.string().max(200), FieldInput).optional(),
  }),
  /** Open on a url question: the host opens it in the browser, on this click only. */
  z.object({ type: z.literal('openElicitationUrl'), id: z.number(), sessionId: z.string().max(1000).optional() }),
  z.object({ type: z.literal('cancel') }),
  /** A permission request's option; `sessionId` names a subagent's request (the chat's own otherwise). */
  z.object({ type: z.literal('permission'), id: z.number(), optionId: z.string(), sessionId: z.string().max(1000).optional() }),
  /** Cancel on a subagent's card. */
  z.object({ type: z.literal('cancelSubagent'), sessionId: z.string().max(1000) }),
  z.object({ type: z.literal('cancelToolCall'), toolCallId: z.string().max(10_000) }),
  /** A button of the agent error: restart, sign in, manage trust, settings or the log. */
  z.object({ type: z.literal('errorAction'), action: ErrorAction }),
  /** A button of a failed turn: Retry, Sign In or Switch Model. */
  z.object({ type: z.literal('turnAction'), action: TurnAction }),
  /** The user's clicks on a tool card: which card, and which of its diffs, locations or terminals. */
  z.object({ type: z.literal('showDiff'), toolCallId: z.string(), index }),
  z.object({ type: z.literal('openLocation'), toolCallId: z.string(), index }),
  z.object({ type: z.literal('showTerminal'), toolCallId: z.string(), terminalId: z.string() }),
  /** A link in agent text; the host decides what it may open. */
  z.object({ type: z.literal('openLink'), href: z.string().max(8192) }),
  /** Open a plan the agent keeps (unstable `plan_update`): its file, or its Markdown for review. */
  z.object({ type: z.literal('openPlan'), planId: z.string().max(1000) }),
  /** Open Plan in Editor on a plan approval; `sessionId` names a subagent's request (the chat's own otherwise). */
  z.object({ type: z.literal('openPlanReview'), id: z.number(), sessionId: z.string().max(1000).optional() }),
  z.object({ type: z.literal('copy'), text: z.string() }),
  /** The data of an image the chat shows in a message of the session (answered with an `image` message). */
  z.object({ type: z.literal('loadImage'), entryId: index, index }),
  /** A click on an image: it opens full size in an editor. */
  z.object({ type: z.literal('openImage'), entryId: index, index }),
  /**
   * Copy on a message (its Markdown source) or a tool card (its output); `earlier`: an entry kept above the session;
   * `sessionId`: an entry of a subagent's (whose entries are numbered apart from the chat's).
   */
  z.object({ type: z.literal('copyEntry'), entryId: index, earlier: z.boolean().optional(), sessionId: z.string().max(1000).optional() }),
  z.object({ type: z.literal('insert'), text: z.string() }),
  z.object({ type: z.literal('searchFiles'), requestId: z.number(), query: z.string().max(512) }),
  /** Attach what `searchFiles` found: a workspace file or folder (its workspace-relative path), a symbol, the problems, … */
  z.object({ type: z.literal('mention'), path: z.string().max(4096), kind: MentionKind.optional() }),
  /** Files or folders dropped on the composer from the Explorer or an editor tab: the host attaches those in the workspace. */
  z.object({ type: z.literal('dropUris'), uris: z.array(z.string().max(8192)).max(100) }),
  /** The `/` list opened: the host reads the prompt files again and sends them. */
  z.object({ type: z.literal('listPrompts') }),
  /** A prompt file picked under `/`: the host asks its inputs and puts its text in the composer. */
  z.object({ type: z.literal('usePrompt'), name: z.string().max(500), source: z.enum(['workspace', 'user']) }),
  /** Attach Anyway on a chip larger than the bound. */
  z.object({ type: z.literal('confirmAttachment'), id: z.string().max(100) }),
  z.object({
    type: z.literal('attachImage'),
    name: z.string().max(512),
    mimeType: z.string().max(100),
    /** base64 */
    data: z.string().max(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 4),
    /** The page's name for it, given back on its chip (see `send`'s `images`). */
    token: z.string().max(64).optional(),
  }),
  z.object({ type: z.literal('removeAttachment'), id: z.string() }),
  z.object({ type: z.literal('setMode'), modeId: z.string() }),
  /** The chat header's permission level picker. */
  z.object({ type: z.literal('setPermissionLevel'), level: PermissionLevelName }),
  z.object({ type: z.literal('setConfig'), configId: z.string(), value: z.union([z.string(), z.boolean()]) }),
  /** A changes card's button: Review Changes, Undo Changes, Redo Changes, Keep, Send Feedback. */
  z.object({ type: z.literal('changes'), turn: z.number(), action: ChangesAction }),
  /** A file of a changes card: its diff from before the turn to now. */
  z.object({ type: z.literal('openChange'), turn: z.number(), index }),
  /** Restore Checkpoint on a user message: every file back to how it was before that message. */
  z.object({ type: z.literal('restoreCheckpoint'), turn: z.number() }),
  /** Edit and Resend on a user message: the files back to before it, then `text` in its place (see chats/branches.ts). */
  z.object({ type: z.literal('resend'), entryId: z.number().int().nonnegative(), text: z.string().max(1_000_000) }),
  /** Fork on a user message: a new chat from there (the agent must fork sessions). */
  z.object({ type: z.literal('fork'), entryId: z.number().int().nonnegative() }),
  /** Open the Earlier Branch on the line below an edited and resent conversation: its session, in a chat. */
  z.object({ type: z.literal('openBranch') }),
  /** Redo Changes after a Restore Checkpoint: the files back to how they were before the restore. */
  z.object({ type: z.literal('redoRestore') }),
  /** The user's answer to the checkpoint question shown. */
  z.object({ type: z.literal('checkpointAnswer'), id: z.number(), answer: CheckpointAnswer }),
  /** Stop (a command the client runs) or Dismiss (what only the agent can stop) on an item of the background work. */
  z.object({ type: z.literal('background'), key: z.string().max(1000), action: z.enum(['stop', 'dismiss']) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;
