// `acp.agentDefaults`: per agent name, what its new chats start with: a model, a mode, config option values (such as
// an effort) and a permission level. User settings only (machine scope, read from the user's own value), like
// `acp.permissions`: a workspace must not choose a level for itself. An entry that does not validate is left out
// whole, and said once.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { Choices } from '../acp/choices';
import { SECTION } from '../ids';
import { readDefaultPermissionLevel } from './config';
import type { PermissionLevel } from '../permissions/levelRules';

const KEY = 'agentDefaults';

const Entry = z.strictObject({
  model: z.string().min(1).max(500).optional(),
  mode: z.string().min(1).max(500).optional(),
  configOptions: z.record(z.string().max(500), z.union([z.string().max(500), z.boolean()])).optional(),
  permissionLevel: z.enum(['ask', 'autoApproveEdits', 'agentDecides', 'allowAll'] satisfies PermissionLevel[]).optional(),
});

export interface AgentDefaults extends Choices {
  readonly permissionLevel?: PermissionLevel;
}

/** The defaults for `agent`, if the user set valid ones; `problem` says why an entry was left out. */
export function readAgentDefaults(agent: string): { readonly defaults?: AgentDefaults; readonly problem?: string } {
  const all = userValue();
  const raw = all[agent];
  if (raw === undefined) return {};
  const parsed = Entry.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      problem: vscode.l10n.t(
        'The setting acp.agentDefaults has an entry for "{0}" that is not valid ({1}), so its new chats start as the agent says.',
        agent,
        `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`,
      ),
    };
  }
  const { model, mode, configOptions, permissionLevel } = parsed.data;
  return {
    defaults: {
      ...(model ? { model } : {}),
      ...(mode ? { mode } : {}),
      ...(configOptions && Object.keys(configOptions).length > 0 ? { options: configOptions } : {}),
      ...(permissionLevel ? { permissionLevel } : {}),
    },
  };
}

/** Writes `defaults` as the user's defaults for `agent` (the other agents' entries stay as they are). */
export async function saveAgentDefaults(agent: string, defaults: AgentDefaults): Promise<void> {
  const entry = {
    ...(defaults.model ? { model: defaults.model } : {}),
    ...(defaults.mode ? { mode: defaults.mode } : {}),
    ...(defaults.options && Object.keys(defaults.options).length > 0 ? { configOptions: defaults.options } : {}),
    ...(defaults.permissionLevel ? { permissionLevel: defaults.permissionLevel } : {}),
  };
  await vscode.workspace.getConfiguration(SECTION).update(KEY, { ...userValue(), [agent]: entry }, vscode.ConfigurationTarget.Global);
}

function userValue(): Record<string, unknown> {
  const raw = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(KEY)?.globalValue;
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** A new chat's level with `agent`: its acp.agentDefaults entry's, else acp.permissions.defaultLevel; and which said it. */
export function readDefaultLevel(agent: string): { readonly level: PermissionLevel; readonly setting: string } {
  const own = readAgentDefaults(agent).defaults?.permissionLevel;
  return own
    ? { level: own, setting: `acp.agentDefaults["${agent}"]` }
    : { level: readDefaultPermissionLevel(), setting: 'acp.permissions.defaultLevel' };
}
