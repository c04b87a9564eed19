// What the registry's list and the record of installs become as agents: installed agents (with the newer version
// the registry has, if any) and the built-in presets pinned to the registry's versions when it lists them. Pure.
//
// A preset takes at most a version from the registry: its command, its other arguments and its environment stay as
// built in, and only a package of exactly the built-in name is pinned. So a registry (a third-party one, or one that
// was tampered with) cannot change what "Claude Code" runs beyond the version of the package the user chose.
import type { AgentConfig } from '../settings/agentConfig';
import { compareVersions, packageName, type Registry, type RegistryAgent } from './format';
import type { InstalledAgent } from './installed';

/** The registry ids that each built-in preset is, in the order they are looked for (ids have changed over time). */
const PRESET_IDS: Readonly<Record<string, readonly string[]>> = {
  'Gemini CLI': ['gemini'],
  'Claude Code': ['claude-acp', 'claude-agent-acp', 'claude-code-acp'],
  Codex: ['codex-acp', 'codex'],
  'GitHub Copilot CLI': ['github-copilot-cli', 'copilot-cli'],
};

/**
 * The presets, each with its package pinned to the registry's version when the registry lists the same package for
 * it (npx or uvx). Anything else stays as built in: a preset the registry has only as a binary (which needs an
 * install, which only the user starts), or under another package name.
 */
export function registryPresets(builtIn: readonly AgentConfig[], registry: Registry | undefined): AgentConfig[] {
  if (!registry) return [...builtIn];
  return builtIn.map((preset) => {
    const entry = (PRESET_IDS[preset.name] ?? []).map((id) => registry.agents.find((a) => a.id === id)).find((a) => a !== undefined);
    return (entry && pinnedPreset(preset, entry)) ?? preset;
  });
}

/** The preset with its package argument pinned to the entry's version, or undefined when the entry is another package. */
function pinnedPreset(preset: AgentConfig, entry: RegistryAgent): AgentConfig | undefined {
  const kind = preset.command === 'npx' ? 'npx' : preset.command === 'uvx' ? 'uvx' : undefined;
  const target = kind && entry.distribution[kind];
  if (!kind || !target) return undefined;
  // The preset's package is its first argument that is not a flag.
  const at = preset.args.findIndex((arg) => !arg.startsWith('-'));
  const builtIn = at >= 0 ? packageName(kind, preset.args[at]!) : undefined;
  if (builtIn === undefined || packageName(kind, target.package) !== builtIn) return undefined;
  const args = [...preset.args];
  args[at] = kind === 'npx' ? `${builtIn}@${entry.version}` : `${builtIn}==${entry.version}`;
  return { ...preset, args };
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
