// A v2 agent's permission request, said in v1's terms for the one permission flow the host has. v2 asks by subject:
// a tool call (as v1 did), a command (the agent runs its own terminals), or nothing but a title. Pure.
import type * as S1 from '../schema.gen';
import { clip } from '../text';
import type * as S from './schema.gen';
import { toolCallUpdate } from './updates';

/** The longest command line shown on a permission's card. */
const COMMAND_LIMIT = 2000;

/** The v1 request the permission flow serves; the answer's shape is the same in both versions. */
export function permissionRequest(request: S.RequestPermissionRequest, fallbackId: () => string): S1.RequestPermissionRequest {
  const subject = request.subject as { type: string } | null | undefined;
  const options = request.options as S1.PermissionOption[];
  const base = { sessionId: request.sessionId, options, ...(request._meta != null && { _meta: request._meta }) };
  if (subject?.type === 'tool_call') {
    const call = toolCallUpdate((subject as unknown as S.ToolCallPermissionSubject).toolCall);
    return { ...base, toolCall: { ...call, title: call.title ?? request.title } };
  }
  if (subject?.type === 'command') {
    const c = subject as unknown as S.CommandPermissionSubject;
    const command = clip(c.command, COMMAND_LIMIT);
    const toolCall: S1.ToolCallUpdate = {
      toolCallId: c.toolCallId ?? (c.terminalId ? `terminal:${c.terminalId}` : fallbackId()),
      title: request.title,
      kind: 'execute',
      rawInput: { command, cwd: c.cwd },
      content: [{ type: 'content', content: { type: 'text', text: `$ ${command}\n(in ${clip(c.cwd, 1000)})` } }],
    };
    return { ...base, toolCall };
  }
  return { ...base, toolCall: { toolCallId: fallbackId(), title: request.title, kind: 'other' } };
}
