// The extension's settings, read and validated in one place. A bad entry is reported by name and skipped; it never
// stops the other agents from working.
import * as vscode from 'vscode';
import { parseAgents, withPresets, type AgentConfig } from './agentConfig';
import type * as S from '../acp/schema.gen';
import { parseMcpServers } from './mcpConfig';
import { protocolToAsk } from '../acp/quirks';
import type { TraceLevel } from '../acp/trace';
import type { OutsideWorkspacePolicy, ReviewPolicy } from '../editor/files';
import type { PermissionLevel } from '../permissions/levelRules';
import type { PermissionSettings } from '../permissions/permissions';

export type { AgentConfig } from './agentConfig';

export { SECTION } from '../ids';
import { SECTION } from '../ids';

export interface AgentSettings {
  /** The configured agents, then the built-in presets that none of them replaces. */
  readonly agents: readonly AgentConfig[];
  /** One sentence per entry that was skipped, naming it and saying what is wrong. */
  readonly problems: readonly string[];
  /** `acp.defaultAgent`, if set (it may name an agent that does not exist). */
  readonly defaultAgent: string | undefined;
}

export type TraceSetting = TraceLevel;

/** Agents that do not come from `acp.agents`: those installed from the registry, and the presets (the registry's pins when it lists them). */
export interface AgentSources {
  readonly installed: readonly AgentConfig[];
  readonly presets: readonly AgentConfig[];
}

export function readAgentSettings(sources?: AgentSources): AgentSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  // Machine scope already keeps workspaces out; reading only the user layer makes that explicit.
  const inspected = config.inspect<unknown>('agents');
  const { agents, problems } = parseAgents(inspected?.globalValue ?? inspected?.defaultValue);
  const defaultAgent = config.get<string>('defaultAgent')?.trim() || undefined;
  return { agents: withPresets(agents, sources?.presets, sources?.installed), problems, defaultAgent };
}

/** `acp.registry.url`: machine scope, and only the user's layer is read, so a workspace can never point it elsewhere. */
export function readRegistryUrl(fallback: string): string {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('registry.url');
  const value = inspected?.globalValue ?? inspected?.defaultValue;
  return typeof value === 'string' && value.trim() ? value.trim() : fallback;
}

/** `acp.mcpServers` (user settings only: a workspace must not choose programs to run). */
export function readMcpServers(): { servers: S.McpServer[]; problems: string[] } {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('mcpServers');
  return parseMcpServers(inspected?.globalValue ?? inspected?.defaultValue);
}

/**
 * The protocol version to ask `agent` for: its own `protocol`, else `acp.protocol` (anything unknown reads `auto`),
 * as quirks.ts `protocolToAsk` says for its command line.
 */
export function askedProtocol(agent: AgentConfig): 1 | 2 {
  const value = vscode.workspace.getConfiguration(SECTION).get<string>('protocol');
  const setting = value === 'v1' || value === 'v2' ? value : 'auto';
  return protocolToAsk(agent.protocol ?? setting, [agent.command, ...agent.args]);
}

export function readTrace(): TraceSetting {
  const value = vscode.workspace.getConfiguration(SECTION).get<string>('trace');
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

export function readOutsideWorkspacePolicy(): OutsideWorkspacePolicy {
  return anyLayerSays('files.outsideWorkspace', 'deny') ? 'deny' : 'ask';
}

/**
 * Whether any layer of setting `key` (the user's, the workspace's, a folder's) has the stricter `value`. A workspace's
 * settings.json, which a cloned repository ships and an agent can write, may make a safety setting stricter, never
 * looser than the user made it.
 */
function anyLayerSays(key: string, value: string): boolean {
  const layers = vscode.workspace.getConfiguration(SECTION).inspect<string>(key);
  return [layers?.defaultValue, layers?.globalValue, layers?.workspaceValue, layers?.workspaceFolderValue].includes(value);
}

export function openAgentSettings(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.agents`);
}

export function readReviewPolicy(): ReviewPolicy {
  return anyLayerSays('edits.review', 'ask') ? 'ask' : 'off';
}

/** Where New Chat opens a chat (`acp.chat.location`): an editor tab, or the secondary side bar. */
export function readChatLocation(): 'editor' | 'sideBar' {
  return vscode.workspace.getConfiguration(SECTION).get<string>('chat.location') === 'sideBar' ? 'sideBar' : 'editor';
}

function readShowDiffOnPermission(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('edits.showDiffOnPermission') !== false;
}

/**
 * `acp.permissions.defaultLevel` (application scope, read from the user's own value, like the rest of `acp.permissions`):
 * a new chat's level, which a workspace cannot lower.
 */
export function readDefaultPermissionLevel(): PermissionLevel {
  const raw = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('permissions')?.globalValue;
  const level = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)['defaultLevel'] : undefined;
  return level === 'autoApproveEdits' || level === 'agentDecides' || level === 'allowAll' ? level : 'ask';
}

/** `acp.permissions` (user settings only: a workspace must not pre-approve anything for itself). */
export function readPermissionSettings(): PermissionSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const raw = config.inspect<unknown>('permissions')?.globalValue;
  const value = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const remember = value['remember'];
  return {
    read: value['read'] === 'allowInWorkspace' ? 'allowInWorkspace' : 'ask',
    remember: remember === 'session' || remember === 'global' ? remember : 'workspace',
    showDiff: readShowDiffOnPermission(),
  };
}
