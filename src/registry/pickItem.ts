// One agent of the registry as a row of Add Agent from Registry: its version, how it runs here, whether it is
// installed, what it would set in the environment, its description, and a button to its website where the registry
// gives one (`website`, else its `repository`), opened only when the user clicks it and only over https.
import * as vscode from 'vscode';
import { compareVersions, type HowToRun, type RegistryAgent } from './format';
import type { InstalledAgent } from './installed';

export type RegistryItem = vscode.QuickPickItem & { agent?: RegistryAgent; how?: HowToRun; website?: vscode.Uri };

/** The agent's web page, when the registry gives an https address for it. */
function websiteOf(agent: RegistryAgent): vscode.Uri | undefined {
  for (const address of [agent.website, agent.repository]) {
    if (!address) continue;
    try {
      const url = new URL(address);
      if (url.protocol === 'https:' && url.username === '' && url.password === '') return vscode.Uri.parse(url.href, true);
    } catch {
      // not an address: the next one, if any
    }
  }
  return undefined;
}

export function registryItem(agent: RegistryAgent, how: HowToRun, installed: InstalledAgent | undefined): RegistryItem {
  const runs =
    how.kind === 'binary' ? vscode.l10n.t('binary for {0}', how.platform) : how.kind === 'unsupported' ? vscode.l10n.t('cannot run here') : how.kind;
  const state = !installed
    ? undefined
    : compareVersions(agent.version, installed.version) > 0
      ? vscode.l10n.t('$(arrow-up) Installed {0}: update to {1} available', installed.version, agent.version)
      : vscode.l10n.t('$(check) Installed');
  const why = how.kind === 'unsupported' ? vscode.l10n.t('$(circle-slash) Cannot run here: {0}.', how.why) : undefined;
  // What the install would set in the agent's environment is part of what the user agrees to by picking it.
  const env = how.kind === 'unsupported' ? [] : Object.entries(how.target.env ?? {});
  const sets = env.length > 0 ? vscode.l10n.t('Sets {0}.', env.map(([name, value]) => `${name}=${value.slice(0, 80)}`).join(' ')) : undefined;
  const website = websiteOf(agent);
  return {
    label: agent.name,
    description: `${agent.version} · ${runs}`,
    detail: [state, why, sets, agent.description.slice(0, 300)].filter(Boolean).join('  '),
    agent,
    how,
    ...(website
      ? { website, buttons: [{ iconPath: new vscode.ThemeIcon('link-external'), tooltip: vscode.l10n.t('Open {0}', website.toString(true)) }] }
      : {}),
  };
}
