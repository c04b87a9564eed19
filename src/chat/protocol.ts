// The messages between the extension host and the chat webview: one typed union each way, shared by both sides
// and validated where they arrive. No `vscode` import: the webview bundle includes this file.
import { z } from 'zod';

const Role = z.enum(['user', 'agent', 'thought']);
const ToolStatus = z.enum(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);

/** A command's output, as plain text (escapes removed), and how it ended (undefined while it runs). */
export const TerminalView = z.object({
  id: z.string(),
  output: z.string(),
  truncated: z.boolean(),
  exit: z.string().optional(),
});
export type TerminalView = z.infer<typeof TerminalView>;

export const EntryView = z.discriminatedUnion('kind', [
  z.object({ id: z.number(), kind: z.literal('message'), role: Role, text: z.string() }),
  z.object({
    id: z.number(),
    kind: z.literal('tool'),
    toolCallId: z.string(),
    title: z.string(),
    toolKind: z.string(),
    status: ToolStatus,
    /** Where the tool call works, as the user reads it ("src/app.ts:12"); opened by index. */
    locations: z.array(z.string()),
    /** The files its diffs change; opened by index. */
    diffs: z.array(z.object({ label: z.string(), created: z.boolean() })),
    terminals: z.array(TerminalView),
    /** Set when the client answered its permission request by itself. */
    autoAnswer: z.string().optional(),
  }),
]);
export type EntryView = z.infer<typeof EntryView>;

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
  /** "Run command", "Edit", …: what kind of tool call asks. */
  kindLabel: z.string(),
  hasDiff: z.boolean(),
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() })),
});
export type PermissionView = z.infer<typeof PermissionView>;

/** The agent stopped: what happened, and the last lines it wrote to stderr. */
export const AgentErrorView = z.object({ message: z.string(), stderr: z.array(z.string()) });
export type AgentErrorView = z.infer<typeof AgentErrorView>;

export const HostMessage = z.discriminatedUnion('type', [
  /** Everything, when the webview (re)loads. */
  z.object({
    type: z.literal('state'),
    agent: z.string(),
    entries: z.array(EntryView),
    turn: TurnView,
    permissions: z.array(PermissionView),
    agentError: AgentErrorView.nullable(),
    /** The last quiet line, so a chat that was hidden still shows it. */
    notice: z.string().optional(),
  }),
  /** What changed since the last post: entries by index, and whichever other parts changed. */
  z.object({
    type: z.literal('update'),
    entries: z.array(z.object({ index: z.number(), entry: EntryView })),
    turn: TurnView.optional(),
    permissions: z.array(PermissionView).optional(),
    agentError: AgentErrorView.nullable().optional(),
  }),
  /** A message could not be sent: the draft goes back into the composer, with the reason. */
  z.object({ type: z.literal('sendFailed'), text: z.string(), reason: z.string() }),
  /** A quiet line for the user (where the agent went while they were typing). */
  z.object({ type: z.literal('notice'), text: z.string() }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), text: z.string() }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('permission'), id: z.number(), optionId: z.string() }),
  z.object({ type: z.literal('showLog') }),
  /** The user's clicks on a tool card: which card, and which of its diffs, locations or terminals. */
  z.object({ type: z.literal('showDiff'), toolCallId: z.string(), index: z.number().int().nonnegative() }),
  z.object({ type: z.literal('openLocation'), toolCallId: z.string(), index: z.number().int().nonnegative() }),
  z.object({ type: z.literal('showTerminal'), toolCallId: z.string(), terminalId: z.string() }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;
