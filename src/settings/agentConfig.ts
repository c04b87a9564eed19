// The shape of one configured agent and the parser of `acp.agents`. No `vscode` import: unit-tested in plain Node.
import { z } from 'zod';
import type { AgentCommand } from '../acp/process';
import type { ProtocolChoice } from '../acp/quirks';
import { eachEntry } from './keyedSetting';

export interface AgentConfig extends AgentCommand {
  /** The display name: the key in `acp.agents`. */
  readonly name: string;
  /**
   * An agent on another machine, at this URL (WebSocket or Streamable HTTP: src/acp/openAgent.ts), instead of a command; `command` then holds
   * the URL without its query (what the pickers and the log show). Its token is in SecretStorage (agents/tokens.ts).
   */
  readonly url?: string;
  /** For an agent at a URL: it may run commands on this machine (`terminal/*`). Off unless the entry says so. */
  readonly terminals?: boolean;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * Answer reads of missing files with empty content: an override of the agent's quirk (src/acp/quirks.ts), which
   * otherwise follows what the agent says it is in `initialize`. Absent unless the entry sets it.
   */
  readonly readMissingAsEmpty?: boolean;
  /** The protocol version to ask this agent for, over `acp.protocol`: `auto`, `v1` or `v2`. Absent unless set. */
  readonly protocol?: ProtocolChoice;
  /** A built-in preset rather than an entry of `acp.agents` (pinned to the registry's version when it lists it). */
  readonly preset?: true;
  /** Installed from the ACP Registry: its id and version, and the registry's newer version when there is one. */
  readonly installed?: { readonly id: string; readonly version: string; readonly update?: string };
}

/**
 * The agents offered before any configuration. An entry of `acp.agents` with the same name replaces a preset, so
 * copying a preset into the settings and editing it changes what runs. Claude Code and Codex run the adapters the
 * ACP project maintains (docs/agents.md); the `@zed-industries` packages they replace get no releases any more.
 */
export const PRESETS: readonly AgentConfig[] = [
  { name: 'Gemini CLI', command: 'npx', args: ['-y', '@google/gemini-cli', '--acp'], env: {}, preset: true },
  { name: 'Claude Code', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'], env: {}, preset: true },
  { name: 'Codex', command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp'], env: {}, preset: true },
  { name: 'GitHub Copilot CLI', command: 'copilot', args: ['--acp'], env: {}, preset: true },
];

/**
 * What a preset ran before its built-in command line changed, newest first: a user who ran it is shown the old and
 * the new command line once before the new one runs (agents/presetConsent.ts).
 */
export const FORMER_PRESETS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'Claude Code': [['npx', '-y', '@zed-industries/claude-agent-acp']],
  Codex: [['npx', '-y', '@zed-industries/codex-acp']],
};

/**
 * The agents offered: the configured ones, then those installed from the registry, then the presets, each layer
 * without the names an earlier one has (so an entry of `acp.agents` replaces an installed agent or a preset).
 */
export function withPresets(
  configured: readonly AgentConfig[],
  presets: readonly AgentConfig[] = PRESETS,
  installed: readonly AgentConfig[] = [],
): AgentConfig[] {
  const names = new Set(configured.map((a) => a.name));
  const fromRegistry = installed.filter((a) => !names.has(a.name));
  for (const a of fromRegistry) names.add(a.name);
  return [...configured, ...fromRegistry, ...presets.filter((p) => !names.has(p.name))];
}

/** A preset or an installed agent as an `acp.agents` entry, to copy into the user's settings for editing. */
export function presetEntry(preset: AgentConfig): Record<string, unknown> {
  if (preset.url !== undefined) return { url: preset.url, ...(preset.terminals !== undefined ? { terminals: preset.terminals } : {}) };
  return {
    command: preset.command,
    args: [...preset.args],
    ...(Object.keys(preset.env).length > 0 ? { env: { ...preset.env } } : {}),
    ...(preset.readMissingAsEmpty !== undefined ? { readMissingAsEmpty: preset.readMissingAsEmpty } : {}),
    ...(preset.protocol !== undefined ? { protocol: preset.protocol } : {}),
  };
}

const ARGS = 'its "args" must be a list of strings';
const ENV = 'its "env" must map names to string values';

const AgentEntry = z.object({
  command: z.string().trim().min(1, 'its "command" is empty').optional(),
  url: z.string().trim().min(1, 'its "url" is empty').max(2000, 'its "url" is too long').optional(),
  terminals: z.boolean('its "terminals" must be true or false').optional(),
  args: z.array(z.string(ARGS), ARGS).optional(),
  env: z.record(z.string(), z.string(ENV), ENV).optional(),
  readMissingAsEmpty: z.boolean('its "readMissingAsEmpty" must be true or false').optional(),
  protocol: z.enum(['auto', 'v1', 'v2'], 'its "protocol" must be "auto", "v1" or "v2"').optional(),
});

/** A URL as the pickers, the log and the reports show it: its origin and path, never a user, query or fragment. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin === 'null' ? `${parsed.protocol}//${parsed.host}` : parsed.origin}${parsed.pathname}`;
  } catch {
    return url.slice(0, 200);
  }
}

/** Parses the value of `acp.agents`: pure, so it is unit-tested without VS Code. */
export function parseAgents(value: unknown): { agents: AgentConfig[]; problems: string[] } {
  const agents: AgentConfig[] = [];
  const names = { setting: 'acp.agents', keys: 'agent names', anEntry: 'An agent', theEntry: 'The agent', shape: 'an object with a "command"' };
  const problems = eachEntry(value, names, (name, entry) => {
    const parsed = AgentEntry.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `The agent "${name}" in "acp.agents" was skipped: ${issue?.message ?? 'it is invalid'}.`;
    }
    const { command, url, terminals, args, env, readMissingAsEmpty, protocol } = parsed.data;
    if (command === undefined && url === undefined) return `The agent "${name}" in "acp.agents" was skipped: it has no "command" or "url".`;
    if (command !== undefined && url !== undefined) return `The agent "${name}" in "acp.agents" was skipped: it has both a "command" and a "url".`;
    if (url !== undefined && (args !== undefined || env !== undefined)) {
      return `The agent "${name}" in "acp.agents" was skipped: an agent at a "url" takes no "args" or "env".`;
    }
    agents.push({
      name,
      command: command ?? shownUrl(url!),
      ...(url !== undefined ? { url } : {}),
      ...(url !== undefined && terminals !== undefined ? { terminals } : {}),
      args: args ?? [],
      env: env ?? {},
      ...(readMissingAsEmpty !== undefined ? { readMissingAsEmpty } : {}),
      ...(protocol !== undefined ? { protocol } : {}),
    });
    return undefined;
  });
  return { agents, problems };
}
