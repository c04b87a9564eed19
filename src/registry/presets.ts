// What the registry's list and the record of installs become as agents: installed agents (with the newer version
// the registry has, if any) and the built-in presets pinned to the registry's versions when it lists them. Pure.
import type { AgentConfig } from '../settings/agentConfig';
import { compareVersions, packageCommand, type Registry, type RegistryAgent } from './format';
import type { InstalledAgent } from './installed';

/** The registry ids that each built-in preset is, in the order they are looked for (ids have changed over time). */
const PRESET_IDS: Readonly<Record<string, readonly string[]>> = {
  'Gemini CLI': ['gemini'],
  'Claude Code': ['claude-acp', 'claude-agent-acp', 'claude-code-acp'],
  Codex: ['codex-acp', 'codex'],
  'GitHub Copilot CLI': ['github-copilot-cli', 'copilot-cli'],
};

/**
 * The presets, each replaced by the registry's pinned command line when the registry lists it as a package (npx or
 * uvx). A preset the registry has only as a binary stays as built in: a binary needs an install, which only the
 * user starts.
 */
export function registryPresets(builtIn: readonly AgentConfig[], registry: Registry | undefined): AgentConfig[] {
  if (!registry) return [...builtIn];
  return builtIn.map((preset) => {
    const entry = (PRESET_IDS[preset.name] ?? []).map((id) => registry.agents.find((a) => a.id === id)).find((a) => a !== undefined);
    const pinned = entry && pinnedPackageConfig(entry);
    return pinned ? { ...preset, ...pinned, preset: true } : preset;
  });
}

function pinnedPackageConfig(entry: RegistryAgent): Pick<AgentConfig, 'command' | 'args' | 'env'> | undefined {
  const kind = entry.distribution.npx ? 'npx' : entry.distribution.uvx ? 'uvx' : undefined;
  const target = kind && entry.distribution[kind];
  if (!kind || !target) return undefined;
  return { ...packageCommand(kind, target, entry.version), env: { ...target.env } };
}

/** The installed agents as agents to run, with the registry's newer version when it has one. */
export function installedConfigs(installed: readonly InstalledAgent[], registry: Registry | undefined): AgentConfig[] {
  return installed.map((agent) => {
    const latest = registry?.agents.find((a) => a.id === agent.id)?.version;
    const update = latest && compareVersions(latest, agent.version) > 0 ? latest : undefined;
    return {
      name: agent.name,
      command: agent.command,
      args: agent.args,
      env: agent.env,
      installed: { id: agent.id, version: agent.version, ...(update ? { update } : {}) },
    };
  });
}
