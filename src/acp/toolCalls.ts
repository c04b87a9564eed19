// What a tool call carries, read from ACP's own types: its diffs, the terminals it shows, the plan it asks to
// approve. The chat's views, the permissions and the export all read tool calls through these.
import type { TerminalState, ToolCallState } from './sessionState';
import { clip } from './text';

export function diffsOf(call: ToolCallState): Extract<ToolCallState['content'][number], { type: 'diff' }>[] {
  return call.content.filter((c) => c.type === 'diff');
}

/** The terminals a tool call shows: its `terminal` content, then any whose output only came through `_meta`. */
export function terminalIds(call: ToolCallState, terminals: ReadonlyMap<string, TerminalState>): string[] {
  const ids = call.content.flatMap((c) => (c.type === 'terminal' ? [c.terminalId] : []));
  // codex-acp names the terminal after the tool call and may send no terminal content at all.
  if (terminals.has(call.toolCallId) && !ids.includes(call.toolCallId)) ids.push(call.toolCallId);
  return ids;
}

/** Characters of a plan shown with its approval. */
const PLAN_VIEW_LIMIT = 64 * 1024;

/**
 * The plan a request asks the user to approve, as markdown: a request that leaves plan mode carries it in its raw
 * input (claude-agent-acp's ExitPlanMode: `rawInput.plan`). Undefined for any other request.
 */
export function planOf(call: Pick<ToolCallState, 'rawInput'>): string | undefined {
  const input = call.rawInput;
  const plan = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['plan'] : undefined;
  if (typeof plan !== 'string' || plan.trim() === '') return undefined;
  return clip(plan, PLAN_VIEW_LIMIT);
}

/**
 * The plan file a request to leave plan mode names instead of its text (claude-agent-acp's `rawInput.planFilePath`,
 * for clients that keep plan files): an absolute path to a Markdown file, else undefined.
 */
export function planFileOf(call: Pick<ToolCallState, 'rawInput'>): string | undefined {
  const input = call.rawInput;
  const file = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['planFilePath'] : undefined;
  return typeof file === 'string' && file.length <= 4096 && /\.(md|markdown)$/i.test(file) ? file : undefined;
}

/**
 * A request that leaves plan mode: the user approves the agent's plan, which only the user may do. claude-agent-acp
 * asks it for its ExitPlanMode tool, with the plan in `rawInput.plan`, codex-acp at the end of a plan turn; any
 * agent's `switch_mode` tool call counts.
 */
export function isPlanApproval(call: Pick<ToolCallState, 'rawInput' | 'kind'>): boolean {
  return call.kind === 'switch_mode' || planOf(call) !== undefined || planFileOf(call) !== undefined;
}
