// What a permission level answers, in plain Node: Ask answers nothing; Auto-approve edits answers a file edit whose
// files are all inside the session's folders with the agent's allow-once option; Agent decides answers nothing (the
// agent's own mode lets through what it judges safe, and what it still asks about is the user's); Allow all answers
// every request with the agent's allow option. Neither a level nor a rule answers a plan approval or a request about a path
// outside the workspace (`neverAutomatic`). See levels.ts for where a chat's level is kept.
import type * as S from '../acp/schema.gen';
import type { ToolCallState } from '../acp/sessionState';
import { PERMISSION_LEVEL_NAMES } from '../acp/quirks';
import { diffsOf, isPlanApproval } from '../acp/toolCalls';
import { checkPath } from '../common/paths';

export const PERMISSION_LEVELS = PERMISSION_LEVEL_NAMES;
export type PermissionLevel = (typeof PERMISSION_LEVEL_NAMES)[number];

export function isPermissionLevel(value: unknown): value is PermissionLevel {
  return (PERMISSION_LEVELS as readonly unknown[]).includes(value);
}

/** The level's name in the log, which stays in English. */
export const LEVEL_NAMES: Readonly<Record<PermissionLevel, string>> = {
  ask: 'Ask',
  autoApproveEdits: 'Auto-approve edits',
  agentDecides: 'Agent decides',
  allowAll: 'Allow all',
};

/** How much each level lets go without the user, in order: a level allows what every lower one does. */
export const LEVEL_REACH: Readonly<Record<PermissionLevel, number>> = { ask: 0, autoApproveEdits: 1, agentDecides: 2, allowAll: 3 };

/** Every path a tool call names: its locations and the files of its diffs. */
function pathsOf(call: Readonly<ToolCallState>): string[] {
  return [...call.locations.map((l) => l.path), ...diffsOf(call).map((d) => d.path)];
}

/** Why nothing but the user may answer this request, or undefined when a rule or a level may. */
export function neverAutomatic(call: Readonly<ToolCallState>, roots: readonly string[]): 'plan' | 'outside' | undefined {
  if (isPlanApproval(call)) return 'plan';
  return pathsOf(call).some((path) => checkPath(path, roots).kind !== 'inside') ? 'outside' : undefined;
}

/** The option a level answers with, or undefined when the user is asked. */
export function levelAnswer(
  level: PermissionLevel,
  call: Readonly<ToolCallState>,
  options: readonly S.PermissionOption[],
  roots: readonly string[],
): S.PermissionOption | undefined {
  if (level === 'ask' || level === 'agentDecides' || neverAutomatic(call, roots)) return undefined;
  const once = options.find((o) => o.kind === 'allow_once');
  if (level === 'allowAll') return once ?? options.find((o) => o.kind === 'allow_always');
  // Auto-approve edits: a file edit (its kind says so: a command or a delete carrying a diff is not one) that names
  // its files, all of them inside the workspace.
  return call.kind === 'edit' && pathsOf(call).length > 0 ? once : undefined;
}
