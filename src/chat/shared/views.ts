// What the chat shows, as the host sends it: the views of the session, its entries, the checkpoints, the agent's
// questions, the queue. zod schemas, so the webview validates what arrives; shared by both sides.
import { z } from 'zod';
import { PERMISSION_LEVEL_NAMES } from '../../acp/quirks';

const Role = z.enum(['user', 'agent', 'thought']);
const ToolStatus = z.enum(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);

/** A command's output, as plain text (escapes removed), and how it ended (undefined while it runs): a signal or an exit code (null when unknown). */
export const TerminalView = z.object({
  id: z.string(),
  output: z.string(),
  truncated: z.boolean(),
  exit: z.union([z.object({ signal: z.string() }), z.object({ code: z.number().nullable() })]).optional(),
});
export type TerminalView = z.infer<typeof TerminalView>;

/** What a message carries besides its text, shown as a chip: a file, a selection, an image. */
export const ChipView = z.object({ kind: z.enum(['file', 'selection', 'image', 'link', 'audio']), label: z.string() });
export type ChipView = z.infer<typeof ChipView>;

/**
 * An image of an agent's message that the chat shows: its place among the message's images, and its size; or an image
 * file it links to, by name, whose size is known once the host has read it.
 */
export const ImageView = z.union([
  z.object({ index: z.number().int().nonnegative(), width: z.number().int().positive(), height: z.number().int().positive() }),
  z.object({ index: z.number().int().nonnegative(), file: z.string().max(300) }),
]);
export type ImageView = z.infer<typeof ImageView>;

const DiffView = z.object({ label: z.string(), created: z.boolean(), added: z.number(), removed: z.number() });

export const EntryView = z.discriminatedUnion('kind', [
  z.object({
    id: z.number(),
    kind: z.literal('message'),
    role: Role,
    /** Markdown, rendered with HTML off. */
    text: z.string(),
    chips: z.array(ChipView),
    /** The agent's images shown in the message; the page asks for each one's data once (`loadImage`). */
    images: z.array(ImageView).optional(),
    /** A message sent into a running turn (steering), and how that went. */
    steer: z.enum(['sending', 'injected', 'startedNewTurn', 'failed']).optional(),
    /** A user's message as the agent recorded it (a replayed session), not as sent from this chat: its links are the agent's. */
    byAgent: z.literal(true).optional(),
  }),
  z.object({
    id: z.number(),
    kind: z.literal('tool'),
    toolCallId: z.string(),
    title: z.string(),
    toolKind: z.string(),
    status: ToolStatus,
    /** Where the tool call works, as the user reads it ("src/app.ts:12"); opened by index. */
    locations: z.array(z.string()),
    /** Its text content, as markdown. */
    content: z.array(z.string()),
    /** The files its diffs change; opened by index. */
    diffs: z.array(DiffView),
    terminals: z.array(TerminalView),
    /** Raw input and output as indented JSON (shortened when long). */
    rawInput: z.string().optional(),
    rawOutput: z.string().optional(),
    /** Set when the client answered its permission request by itself: the option, and why (in the user's words). */
    autoAnswer: z.object({ option: z.string(), reason: z.string() }).optional(),
    /** How its command ended, where the agent said so only in its text (Copilot CLI). */
    exitCode: z.number().optional(),
    /** v2: the agent can stop this call alone (`tool_call/cancel`), without stopping the turn. */
    canStop: z.literal(true).optional(),
  }),
  z.object({
    id: z.number(),
    kind: z.literal('compaction'),
    /** `in_progress`, `completed`, `failed`, `cancelled`, or one a later protocol names (shown as in progress). */
    status: z.string(),
    /** The agent's summary of what it compacted, as markdown. */
    summary: z.string(),
    /** The summary was longer than the chat keeps. */
    truncated: z.boolean().optional(),
    error: z.string().optional(),
    tokensBefore: z.number().optional(),
    tokensAfter: z.number().optional(),
  }),
]);
export type EntryView = z.infer<typeof EntryView>;
export type MessageView = Extract<EntryView, { kind: 'message' }>;
export type ToolView = Extract<EntryView, { kind: 'tool' }>;
export type CompactionView = Extract<EntryView, { kind: 'compaction' }>;

/** The tokens one turn used, as its agent reported them, shown under the turn's last entry (`after`, an entry id). */
export const TurnUsageView = z.object({
  after: z.number(),
  total: z.number(),
  input: z.number(),
  output: z.number(),
  thought: z.number().optional(),
  cachedRead: z.number().optional(),
  cachedWrite: z.number().optional(),
});
export type TurnUsageView = z.infer<typeof TurnUsageView>;

/** What the user can do about a failed turn: send it again, sign in, or pick another model. */
export const TurnAction = z.enum(['retry', 'signIn', 'switchModel']);
export type TurnAction = z.infer<typeof TurnAction>;

export const TurnView = z.object({
  phase: z.enum(['idle', 'running', 'awaiting-user', 'cancelling']),
  stopReason: z.string().optional(),
  error: z.string().optional(),
  /** What kind of failure the agent's error code and data say (acp/turnFailure.ts), and what fits it. */
  failure: z
    .object({
      kind: z.enum(['quotaExhausted', 'rateLimited', 'signedOut', 'overloaded', 'network']),
      limit: z.string().max(200).optional(),
      /** When the limit resets, in milliseconds since the epoch. */
      resetsAt: z.number().optional(),
      actions: z.array(TurnAction),
    })
    .optional(),
  /** The usage of the latest turns whose agent reported it. */
  usage: z.array(TurnUsageView).optional(),
});
export type TurnView = z.infer<typeof TurnView>;

/**
 * One piece of work that outlived its turn (acp/background.ts): a command the client runs, or a tool call the agent
 * left in progress. `stop` says who can stop it: the client (`kill`), or only the agent, in which case the user can
 * still hide it (`dismiss`).
 */
export const BackgroundView = z.object({
  key: z.string(),
  title: z.string(),
  /** When it started, in milliseconds since the epoch: the page counts the time since. */
  startedAt: z.number(),
  /** The last lines of its output, as plain text. */
  tail: z.string(),
  stop: z.enum(['kill', 'dismiss']),
});
export type BackgroundView = z.infer<typeof BackgroundView>;

/** What approving or rejecting a plan does (acp/quirks.ts `PlanOptionEffect`). */
export const PlanOptionEffect = z.enum([
  'approve',
  'approveAsk',
  'approveAcceptEdits',
  'approveAuto',
  'approveBypass',
  'approveAcceptEditsClearContext',
  'approveAutoClearContext',
  'approveBypassClearContext',
  'keepPlanning',
]);
export type PlanOptionEffect = z.infer<typeof PlanOptionEffect>;

export const PermissionView = z.object({
  id: z.number(),
  toolCallId: z.string(),
  title: z.string(),
  /** What kind of tool call asks (`execute`, `edit`, …); the view names it from TOOL_KINDS. */
  toolKind: z.string(),
  hasDiff: z.boolean(),
  /** The plan a request that leaves plan mode asks the user to approve, as markdown. */
  plan: z.string().optional(),
  /** A request to leave plan mode: each option says what it does, and Open Plan in Editor where there is a plan. */
  planApproval: z.object({ canOpen: z.boolean() }).optional(),
  /** `effect`: what a known agent's plan approval option does (acp/quirks.ts), which the view says in plain words. */
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string(), effect: PlanOptionEffect.optional() })),
});
export type PermissionView = z.infer<typeof PermissionView>;

/** The agent stopped: what happened, and the last lines it wrote to stderr. */
/** What the user can do about an agent that stopped or could not start; the host carries it out. */
export const ErrorAction = z.enum(['restart', 'signIn', 'setToken', 'stopReconnecting', 'manageTrust', 'openSettings', 'showLog']);
export type ErrorAction = z.infer<typeof ErrorAction>;

export const AgentErrorView = z.object({ message: z.string(), stderr: z.array(z.string()), actions: z.array(ErrorAction) });
export type AgentErrorView = z.infer<typeof AgentErrorView>;

export const PlanEntryView = z.object({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  priority: z.enum(['high', 'medium', 'low']),
});
export type PlanEntryView = z.infer<typeof PlanEntryView>;

/** A plan by id (unstable `plan_update`): its entries, its Markdown, or the name of the file that holds it. */
export const PlanByIdView = z.discriminatedUnion('kind', [
  z.object({ id: z.string(), kind: z.literal('items'), entries: z.array(PlanEntryView) }),
  z.object({ id: z.string(), kind: z.literal('markdown'), markdown: z.string(), truncated: z.boolean().optional() }),
  z.object({ id: z.string(), kind: z.literal('file'), name: z.string() }),
]);
export type PlanByIdView = z.infer<typeof PlanByIdView>;

export const CommandView = z.object({ name: z.string(), description: z.string(), hint: z.string().optional() });
export type CommandView = z.infer<typeof CommandView>;

/** The mode, or one of the agent's config options (model and others), as a picker. */
export const PickerView = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('select'),
    /** "mode" for the session mode; otherwise a config option id. */
    target: z.enum(['mode', 'config']),
    id: z.string(),
    name: z.string(),
    /** The config option's category (`mode`, `model`, `thought_level`, …): the view names the others beside their value. */
    category: z.string().optional(),
    description: z.string().optional(),
    current: z.string(),
    options: z.array(z.object({ value: z.string(), name: z.string(), description: z.string().optional(), group: z.string().optional() })),
  }),
  z.object({
    type: z.literal('boolean'),
    target: z.literal('config'),
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    current: z.boolean(),
  }),
]);
export type PickerView = z.infer<typeof PickerView>;

/** How the client answers the agent's permission requests in this chat (see src/permissions/levels.ts). */
export const PermissionLevelName = z.enum(PERMISSION_LEVEL_NAMES);
export type PermissionLevelName = z.infer<typeof PermissionLevelName>;
/**
 * The chat's level, the levels the user may pick here (only Ask in Restricted Mode; Agent decides only with an agent
 * that has such a mode), and for each level the agent's own mode it runs in, by the agent's name for it ("Manual").
 */
export const PermissionLevelView = z.object({
  level: PermissionLevelName,
  offered: z.array(PermissionLevelName),
  modes: z.partialRecord(PermissionLevelName, z.string().max(200)).optional(),
});
export type PermissionLevelView = z.infer<typeof PermissionLevelView>;
export const ASK_ONLY: PermissionLevelView = { level: 'ask', offered: ['ask'] };

export const UsageView = z.object({ used: z.number(), size: z.number(), cost: z.string().optional() });
export type UsageView = z.infer<typeof UsageView>;

export const NoticeView = z.object({ severity: z.string(), title: z.string(), description: z.string().optional() });
export type NoticeView = z.infer<typeof NoticeView>;

/** Everything about the session besides its entries: small, so it is sent whole when any of it changes. */
export const SessionView = z.object({
  title: z.string().optional(),
  plan: z.array(PlanEntryView),
  plans: z.array(PlanByIdView).optional(),
  commands: z.array(CommandView),
  pickers: z.array(PickerView),
  usage: UsageView.optional(),
  notices: z.array(NoticeView),
  /** What the agent accepts in a prompt besides text and links. */
  accepts: z.object({ image: z.boolean(), embeddedContext: z.boolean() }),
  /** The agent forks sessions (unstable `session/fork`): user messages offer Fork. */
  canFork: z.boolean().optional(),
  /** The chat works in a worktree of its own (New Chat in Worktree): its branch, and its folder. */
  worktree: z.object({ branch: z.string(), path: z.string() }).optional(),
  /** Who the agent runs as, where it says (`auth/status`, the adapters' `_auth/status_update`): for the header's tooltip. */
  account: z.object({ state: z.enum(['authenticated', 'unauthenticated', 'not_required']), names: z.array(z.string().max(300)).max(10) }).optional(),
});
export type SessionView = z.infer<typeof SessionView>;

/** A chat without a session yet (or whose agent is gone): nothing to show, and only text and links to send. */
export const EMPTY_SESSION: SessionView = { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: false } };

/**
 * What an `@` mention can name: a file, a folder, a symbol, the problems, the terminal's last command, the uncommitted
 * changes, a commit, an earlier chat, a web page.
 */
export const MentionKind = z.enum(['file', 'folder', 'symbol', 'problems', 'terminal', 'changes', 'commit', 'chat', 'url']);
export type MentionKind = z.infer<typeof MentionKind>;

/** Something attached to the message being written; the host keeps its content, the view shows the chip. */
export const AttachmentView = z.object({
  id: z.string(),
  kind: z.enum(['file', 'selection', 'image', 'folder', 'symbol', 'problems', 'terminal', 'changes', 'commit', 'chat', 'url']),
  label: z.string(),
  detail: z.string().optional(),
  /** How many bytes it adds to the message, when known: shown on the chip. */
  size: z.number().int().nonnegative().optional(),
  /** Larger than a message should carry without the user's word: it is not sent until they say Attach Anyway. */
  confirm: z.boolean().optional(),
  /** The page's name for an image it pasted or dropped (`attachImage`), so a send made before it came back takes it. */
  token: z.string().max(64).optional(),
});
export type AttachmentView = z.infer<typeof AttachmentView>;

/** One file a turn changed, as the changes card lists it. */
export const FileChangeView = z.object({
  /** Where the file is, as the user reads it (workspace-relative; the folder's name first in a multi-root workspace). */
  path: z.string(),
  /** Where a renamed file was. */
  oldPath: z.string().optional(),
  /** Modified, added, deleted, renamed. */
  status: z.enum(['M', 'A', 'D', 'R']),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
});
export type FileChangeView = z.infer<typeof FileChangeView>;

/** What one turn changed in the workspace, however it was changed: the changes card under the turn. */
export const ChangesView = z.object({
  /** The id of the user message that started the turn. */
  turn: z.number(),
  files: z.array(FileChangeView),
  /** `open` to review; `kept` (the card is one line); `undone` (Redo Changes is offered). */
  state: z.enum(['open', 'kept', 'undone']),
  /** What was not tracked, or how the changes were found, in the user's words. */
  note: z.string().optional(),
  /** Comments the user wrote on these changes in the diff editor, not sent yet (Send Feedback). */
  comments: z.number().int().nonnegative(),
});
export type ChangesView = z.infer<typeof ChangesView>;

/**
 * A question before files are moved: `conflicts` lists files the user changed since the agent did (overwrite, skip
 * them, or cancel); `restore` lists what Restore Checkpoint would change (restore or cancel).
 */
export const CheckpointQuestion = z.object({
  id: z.number(),
  /** conflicts: files the user changed since; restore: what a restore would change; delete: files it would delete. */
  kind: z.enum(['conflicts', 'restore', 'delete']),
  /** The turn (user message id) whose card or message asks. */
  turn: z.number(),
  transition: z.enum(['undo', 'redo', 'restore']),
  /** The first files, as the user reads them; `more` counts the rest. */
  files: z.array(z.string()),
  more: z.number().int().nonnegative(),
});
export type CheckpointQuestion = z.infer<typeof CheckpointQuestion>;

export const CheckpointAnswer = z.enum(['overwrite', 'skip', 'cancel', 'restore']);
export type CheckpointAnswer = z.infer<typeof CheckpointAnswer>;

/** The chat's changes cards, and the user messages whose checkpoint can be restored (by entry id). */
export const CheckpointsView = z.object({
  cards: z.array(ChangesView),
  restorable: z.array(z.number()),
  question: CheckpointQuestion.optional(),
  /** The last Restore Checkpoint, under its message: how many files it restored (Redo Changes puts them back). */
  restored: z.object({ turn: z.number(), files: z.number().int().nonnegative() }).optional(),
});
export type CheckpointsView = z.infer<typeof CheckpointsView>;

/** A chat with no checkpoints (yet, or at all). */
export const NO_CHECKPOINTS: CheckpointsView = { cards: [], restorable: [] };

/** What a changes card's buttons ask. */
export const ChangesAction = z.enum(['review', 'undo', 'redo', 'keep', 'feedback']);
export type ChangesAction = z.infer<typeof ChangesAction>;

/** One field of an agent's question (elicitation form), as the chat renders it. */
export const ElicitationFieldView = z.object({
  name: z.string(),
  label: z.string(),
  description: z.string().optional(),
  required: z.boolean(),
  kind: z.enum(['text', 'number', 'integer', 'boolean', 'select', 'multiselect']),
  format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
  minLength: z.number().optional(),
  maxLength: z.number().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  minItems: z.number().optional(),
  maxItems: z.number().optional(),
  options: z.array(z.object({ value: z.string(), title: z.string() })).optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
});
export type ElicitationFieldView = z.infer<typeof ElicitationFieldView>;

/** A question the agent asks the user: a form, or a url to open (never fetched by the chat). */
export const ElicitationView = z.object({
  id: z.number(),
  message: z.string(),
  toolCallId: z.string().optional(),
  form: z
    .object({
      title: z.string().optional(),
      fields: z.array(ElicitationFieldView),
      /** Fields of a kind the chat cannot show: it can only decline or cancel. */
      unsupported: z.array(z.string()),
    })
    .optional(),
  /**
   * The address with bidi controls shown by name; its host as written, at `hostAt` in it (-1: none found); the
   * host's other spelling when it is an international name (punycode or Unicode).
   */
  url: z.object({ url: z.string(), host: z.string(), hostAt: z.number(), otherHost: z.string().optional(), opened: z.boolean() }).optional(),
});
export type ElicitationView = z.infer<typeof ElicitationView>;

/** A child session of this chat's (a subagent): its name and task, its state, and what it has done so far. */
export const SubagentView = z.object({
  sessionId: z.string(),
  title: z.string(),
  description: z.string().optional(),
  /** `running`, `idle`, `requires_action`, `unknown`, or the agent's own; absent while unconfirmed. */
  state: z.string().optional(),
  canCancel: z.boolean(),
  entries: z.array(EntryView),
  /** How many earlier entries are left out (the card shows the latest). */
  earlier: z.number(),
  /** The task the parent sent it, and its reply (streamed), as markdown: inter-session messages. */
  task: z.string().optional(),
  reply: z.string().optional(),
  permissions: z.array(PermissionView),
  elicitations: z.array(ElicitationView),
});
export type SubagentView = z.infer<typeof SubagentView>;

/** What Enter does while a turn runs (`acp.chat.whileBusy`). */
export const WhileBusyMode = z.enum(['queue', 'steer', 'stopAndSend']);
export type WhileBusyMode = z.infer<typeof WhileBusyMode>;

/** The messages waiting for the running turn to end, and whether they wait for the user's word. */
export const QueueView = z.object({
  items: z.array(
    z.object({
      id: z.number(),
      text: z.string(),
      /** How many attachments it carries. */
      attachments: z.number(),
      /** Stop and Send: it goes as soon as the stopped turn has returned. */
      next: z.boolean().optional(),
    }),
  ),
  /** The last turn did not end with end_turn: nothing goes until the user says Send. */
  held: z.boolean(),
  whileBusy: WhileBusyMode,
  /** The agent takes messages into a running turn. */
  canSteer: z.boolean(),
});
export type QueueView = z.infer<typeof QueueView>;
export const EMPTY_QUEUE: QueueView = { items: [], held: false, whileBusy: 'queue', canSteer: false };

/** A VS Code prompt file (`*.prompt.md`) the chat offers under `/`, from the workspace or the user's prompts folder. */
export const PromptView = z.object({
  name: z.string(),
  description: z.string().optional(),
  source: z.enum(['workspace', 'user']),
});
export type PromptView = z.infer<typeof PromptView>;

/** One `@` completion: `path` names it for the host (a workspace path, or what the host listed it as). */
export const FileMatch = z.object({ kind: MentionKind, path: z.string(), name: z.string(), folder: z.string() });
export type FileMatch = z.infer<typeof FileMatch>;
