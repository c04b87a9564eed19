// The messages between the extension host and the chat webview: one typed union each way, shared by both sides
// and validated where they arrive. No `vscode` import: the webview bundle includes this file.
import { z } from 'zod';

const Role = z.enum(['user', 'agent', 'thought']);
const ToolStatus = z.enum(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);

export const EntryView = z.discriminatedUnion('kind', [
  z.object({ id: z.number(), kind: z.literal('message'), role: Role, text: z.string() }),
  z.object({ id: z.number(), kind: z.literal('tool'), toolCallId: z.string(), title: z.string(), toolKind: z.string(), status: ToolStatus }),
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
  title: z.string(),
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
]);
export type HostMessage = z.infer<typeof HostMessage>;

export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), text: z.string() }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('permission'), id: z.number(), optionId: z.string() }),
  z.object({ type: z.literal('showLog') }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;
