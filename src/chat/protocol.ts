// The messages between the extension host and the chat webview: one typed union each way, shared by both sides
// and validated where they arrive. No `vscode` import: the webview bundle includes this file.
import { z } from 'zod';
import type { ToolKind } from '../acp/schema.gen';
import { SessionTarget } from '../common/sessionTarget';

export { SessionTarget };

const Role = z.enum(['user', 'agent', 'thought']);
const ToolStatus = z.enum(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);

interface ToolKindInfo {
  /** The codicon the chat shows on its card. */
  readonly icon: string;
  /** What a notification and a permission request call it ("{agent} asks permission — Run command: …"). */
  readonly label: string;
  /** What a rule for it covers ("Always allow Gemini: running commands"). */
  readonly activity: string;
}

/**
 * Each kind of tool call, in one table for the chat, the notifications and the permission rules. The English words
 * are message keys: the host and the webview translate them where they are shown (`t(toolKind(k).label)`).
 */
export const TOOL_KINDS: Readonly<Record<ToolKind, ToolKindInfo>> = {
  read: { icon: 'file', label: 'Read', activity: 'reading files' },
  edit: { icon: 'edit', label: 'Edit', activity: 'editing files' },
  delete: { icon: 'trash', label: 'Delete', activity: 'deleting files' },
  move: { icon: 'arrow-swap', label: 'Move', activity: 'moving files' },
  search: { icon: 'search', label: 'Search', activity: 'searching' },
  execute: { icon: 'terminal', label: 'Run command', activity: 'running commands' },
  think: { icon: 'lightbulb', label: 'Think', activity: 'thinking' },
  fetch: { icon: 'globe', label: 'Fetch', activity: 'fetching from the web' },
  switch_mode: { icon: 'settings-gear', label: 'Switch mode', activity: 'switching modes' },
  other: { icon: 'tools', label: 'Tool', activity: 'other tools' },
};

/** A kind's row; a kind this client does not know is shown as `other`. */
export function toolKind(kind: string): ToolKindInfo {
  return Object.hasOwn(TOOL_KINDS, kind) ? TOOL_KINDS[kind as ToolKind] : TOOL_KINDS.other;
}

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

export const DiffView = z.object({ label: z.string(), created: z.boolean(), added: z.number(), removed: z.number() });
export type DiffView = z.infer<typeof DiffView>;

export const EntryView = z.discriminatedUnion('kind', [
  z.object({
    id: z.number(),
    kind: z.literal('message'),
    role: Role,
    /** Markdown, rendered with HTML off. */
    text: z.string(),
    chips: z.array(ChipView),
    /** A message sent into a running turn (steering), and how that went. */
    steer: z.enum(['sending', 'injected', 'startedNewTurn', 'failed']).optional(),
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
  }),
]);
export type EntryView = z.infer<typeof EntryView>;
export type MessageView = Extract<EntryView, { kind: 'message' }>;
export type ToolView = Extract<EntryView, { kind: 'tool' }>;

export const TurnView = z.object({
  phase: z.enum(['idle', 'running', 'awaiting-user', 'cancelling']),
  stopReason: z.string().optional(),
  error: z.string().optional(),
});
export type TurnView = z.infer<typeof TurnView>;

export const PermissionView = z.object({
  id: z.number(),
  toolCallId: z.string(),
  title: z.string(),
  /** What kind of tool call asks (`execute`, `edit`, …); the view names it from TOOL_KINDS. */
  toolKind: z.string(),
  hasDiff: z.boolean(),
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() })),
});
export type PermissionView = z.infer<typeof PermissionView>;

/** The agent stopped: what happened, and the last lines it wrote to stderr. */
/** What the user can do about an agent that stopped or could not start; the host carries it out. */
export const ErrorAction = z.enum(['restart', 'signIn', 'manageTrust', 'openSettings', 'showLog']);
export type ErrorAction = z.infer<typeof ErrorAction>;

export const AgentErrorView = z.object({ message: z.string(), stderr: z.array(z.string()), actions: z.array(ErrorAction) });
export type AgentErrorView = z.infer<typeof AgentErrorView>;

export const PlanEntryView = z.object({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  priority: z.enum(['high', 'medium', 'low']),
});
export type PlanEntryView = z.infer<typeof PlanEntryView>;

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

export const UsageView = z.object({ used: z.number(), size: z.number(), cost: z.string().optional() });
export type UsageView = z.infer<typeof UsageView>;

export const NoticeView = z.object({ severity: z.string(), title: z.string(), description: z.string().optional() });
export type NoticeView = z.infer<typeof NoticeView>;

/** Everything about the session besides its entries: small, so it is sent whole when any of it changes. */
export const SessionView = z.object({
  title: z.string().optional(),
  plan: z.array(PlanEntryView),
  commands: z.array(CommandView),
  pickers: z.array(PickerView),
  usage: UsageView.optional(),
  notices: z.array(NoticeView),
  /** What the agent accepts in a prompt besides text and links. */
  accepts: z.object({ image: z.boolean(), embeddedContext: z.boolean() }),
  /** The agent forks sessions (unstable `session/fork`): user messages offer Fork. */
  canFork: z.boolean().optional(),
});
export type SessionView = z.infer<typeof SessionView>;

/** A chat without a session yet (or whose agent is gone): nothing to show, and only text and links to send. */
export const EMPTY_SESSION: SessionView = { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: false } };

/** What an `@` mention can name: a file, a folder, a symbol, the problems, the terminal's last command, the uncommitted changes. */
export const MentionKind = z.enum(['file', 'folder', 'symbol', 'problems', 'terminal', 'changes']);
export type MentionKind = z.infer<typeof MentionKind>;

/** Something attached to the message being written; the host keeps its content, the view shows the chip. */
export const AttachmentView = z.object({
  id: z.string(),
  kind: z.enum(['file', 'selection', 'image', 'folder', 'symbol', 'problems', 'terminal', 'changes']),
  label: z.string(),
  detail: z.string().optional(),
  /** How many bytes it adds to the message, when known: shown on the chip. */
  size: z.number().int().nonnegative().optional(),
  /** Larger than a message should carry without the user's word: it is not sent until they say Attach Anyway. */
  confirm: z.boolean().optional(),
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
  permissions: z.array(PermissionView),
  elicitations: z.array(ElicitationView),
});
export type SubagentView = z.infer<typeof SubagentView>;

/** What the user typed, picked or ticked in one field. */
export const FieldInput = z.union([z.string().max(100_000), z.boolean(), z.array(z.string().max(10_000)).max(1000)]);
export type FieldInput = z.infer<typeof FieldInput>;

/**
 * One field's value, typed as its schema says (`3`, not `"3"`), or why it is not valid. Both sides use it: the view
 * shows the messages before Submit, the host checks again before it answers the agent. An empty optional field has
 * no value.
 */
export function fieldValue(
  t: Translate,
  field: ElicitationFieldView,
  input: FieldInput | undefined,
): { value?: string | number | boolean | string[]; error?: string } {
  const empty = input === undefined || input === '' || (Array.isArray(input) && input.length === 0 && field.kind !== 'multiselect');
  if (field.kind === 'boolean') return { value: input === true };
  if (field.kind === 'multiselect') {
    const picked = Array.isArray(input) ? input : [];
    const allowed = new Set((field.options ?? []).map((o) => o.value));
    if (picked.some((v) => !allowed.has(v))) return { error: t('Pick from the list.') };
    if (field.required && picked.length === 0) return { error: t('Pick at least one.') };
    if (field.minItems !== undefined && picked.length < field.minItems) return { error: t('Pick at least {0}.', field.minItems) };
    if (field.maxItems !== undefined && picked.length > field.maxItems) return { error: t('Pick at most {0}.', field.maxItems) };
    return picked.length > 0 || field.required ? { value: picked } : {};
  }
  if (empty) return field.required ? { error: t('This is required.') } : {};
  const text = String(input).trim();
  if (field.kind === 'select') {
    return (field.options ?? []).some((o) => o.value === text) ? { value: text } : { error: t('Pick from the list.') };
  }
  if (field.kind === 'number' || field.kind === 'integer') {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) return { error: t('Enter a number.') };
    if (field.kind === 'integer' && !Number.isInteger(n)) return { error: t('Enter a whole number.') };
    if (field.minimum !== undefined && n < field.minimum) return { error: t('Enter {0} or more.', field.minimum) };
    if (field.maximum !== undefined && n > field.maximum) return { error: t('Enter {0} or less.', field.maximum) };
    return { value: n };
  }
  const value = String(input);
  if (field.minLength !== undefined && value.length < field.minLength) return { error: t('Enter at least {0} characters.', field.minLength) };
  if (field.maxLength !== undefined && value.length > field.maxLength) return { error: t('Enter at most {0} characters.', field.maxLength) };
  if (field.format === 'email' && !isEmail(text)) return { error: t('Enter an email address.') };
  if (field.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(text)) return { error: t('Enter an address such as https://example.com.') };
  if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { error: t('Enter a date as YYYY-MM-DD.') };
  if (field.format === 'date-time' && Number.isNaN(Date.parse(text))) return { error: t('Enter a date and time.') };
  return { value };
}

/**
 * `local@domain.tld`: one `@`, no whitespace, a dot inside the domain. Checked in one pass: the regular expression
 * it replaces backtracked quadratically on a long address without a dot.
 */
export function isEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at <= 0 || at !== text.lastIndexOf('@') || /\s/.test(text)) return false;
  const dot = text.indexOf('.', at + 2);
  return dot > 0 && dot < text.length - 1;
}

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
    entries: z.array(EntryView),
    turn: TurnView,
    permissions: z.array(PermissionView),
    /** The agent's questions waiting for the user (absent: none). */
    elicitations: z.array(ElicitationView).optional(),
    /** The children this session announced (absent: none). */
    subagents: z.array(SubagentView).optional(),
    agentError: AgentErrorView.nullable(),
    session: SessionView,
    attachments: z.array(AttachmentView),
    /** What each turn changed, and which messages have a checkpoint. */
    checkpoints: CheckpointsView,
    /** The messages waiting for the running turn (absent: none). */
    queue: QueueView.optional(),
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
  }),
  /** What changed since the last post: entries by index, and whichever other parts changed. */
  z.object({
    type: z.literal('update'),
    entries: z.array(z.object({ index: z.number().int().nonnegative(), entry: EntryView })),
    turn: TurnView.optional(),
    permissions: z.array(PermissionView).optional(),
    elicitations: z.array(ElicitationView).optional(),
    subagents: z.array(SubagentView).optional(),
    agentError: AgentErrorView.nullable().optional(),
    session: SessionView.optional(),
    checkpoints: CheckpointsView.optional(),
    queue: QueueView.optional(),
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
  /** Workspace files matching what follows an `@`. */
  z.object({ type: z.literal('files'), requestId: z.number(), files: z.array(FileMatch) }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

/** "12 B", "3.4 KB", "2.1 MB": a chip's size. */
export function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A prompt's images travel as base64; this bounds one (the host checks it again). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Translates an English message and fills in its `{0}`, `{1}` placeholders: vscode.l10n.t on the host, the webview's own `t`. */
export type Translate = (message: string, ...args: Array<string | number>) => string;

/** Why an image cannot be attached, or undefined when it can: the view checks before it reads the file, the host again. */
export function imageRefusal(
  t: Translate,
  agent: string,
  accepts: SessionView['accepts'],
  mimeType: string,
  bytes: number,
  maxBytes: number = MAX_IMAGE_BYTES,
  types: readonly string[] = IMAGE_TYPES,
): string | undefined {
  if (!accepts.image) return t('{0} does not accept images, so the image was not attached.', agent);
  if (!types.includes(mimeType)) {
    return mimeType
      ? t('Only PNG, JPEG, GIF and WebP images can be attached (this one is {0}).', mimeType)
      : t('Only PNG, JPEG, GIF and WebP images can be attached (this one is of an unknown type).');
  }
  if (bytes > maxBytes)
    return t('The image is {0} MB; images up to {1} MB can be attached.', (bytes / 1024 / 1024).toFixed(1), maxBytes / 1024 / 1024);
  return undefined;
}

const index = z.number().int().nonnegative();

export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** What the user is writing, told as it changes (a little after the last key), so a chat that moves keeps it. */
  z.object({ type: z.literal('draft'), text: z.string().max(1_000_000) }),
  /** Enter or a send button: while a turn runs, `mode` says what the message becomes (default: the setting). */
  z.object({ type: z.literal('send'), text: z.string(), attachments: z.array(z.string()), mode: WhileBusyMode.optional() }),
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
  /** A button of the agent error: restart, sign in, manage trust, settings or the log. */
  z.object({ type: z.literal('errorAction'), action: ErrorAction }),
  /** The user's clicks on a tool card: which card, and which of its diffs, locations or terminals. */
  z.object({ type: z.literal('showDiff'), toolCallId: z.string(), index }),
  z.object({ type: z.literal('openLocation'), toolCallId: z.string(), index }),
  z.object({ type: z.literal('showTerminal'), toolCallId: z.string(), terminalId: z.string() }),
  /** A link in agent text; the host decides what it may open. */
  z.object({ type: z.literal('openLink'), href: z.string().max(8192) }),
  z.object({ type: z.literal('copy'), text: z.string() }),
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
  }),
  z.object({ type: z.literal('removeAttachment'), id: z.string() }),
  z.object({ type: z.literal('setMode'), modeId: z.string() }),
  z.object({ type: z.literal('setConfig'), configId: z.string(), value: z.union([z.string(), z.boolean()]) }),
  /** A changes card's button: Review Changes, Undo Changes, Redo Changes, Keep, Send Feedback. */
  z.object({ type: z.literal('changes'), turn: z.number(), action: ChangesAction }),
  /** A file of a changes card: its diff from before the turn to now. */
  z.object({ type: z.literal('openChange'), turn: z.number(), index }),
  /** Restore Checkpoint on a user message: every file back to how it was before that message. */
  z.object({ type: z.literal('restoreCheckpoint'), turn: z.number() }),
  /** Fork on a user message: a new chat from there (the agent must fork sessions). */
  z.object({ type: z.literal('fork'), entryId: z.number().int().nonnegative() }),
  /** Redo Changes after a Restore Checkpoint: the files back to how they were before the restore. */
  z.object({ type: z.literal('redoRestore') }),
  /** The user's answer to the checkpoint question shown. */
  z.object({ type: z.literal('checkpointAnswer'), id: z.number(), answer: CheckpointAnswer }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;

// Bidirectional-text controls: invisible characters that reorder how the text around them is shown. In a link they
// can disguise where it leads ("gpj.exe" shown as "exe.jpg"), so links refuse them. Here, so that the host (links.ts)
// and the webview (markdown.ts) judge alike.

/** LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI; LRM, RLM; the Arabic letter mark. */
const CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const CONTROLS_ALL = new RegExp(CONTROLS.source, 'g');
/** The same characters percent-encoded as UTF-8, as they are in a link's address once it is normalized. */
const ENCODED = /%E2%80%A[A-E]|%E2%81%A[6-9]|%E2%80%8[EF]|%D8%9C/i;

/** Whether `text` holds a bidirectional-text control, as itself or percent-encoded. */
export function hasBidiControls(text: string): boolean {
  return CONTROLS.test(text) || ENCODED.test(text);
}

/** `text` with each bidirectional-text control replaced by its visible name, like `[U+202E]`. */
export function showBidiControls(text: string): string {
  return text.replace(CONTROLS_ALL, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}
