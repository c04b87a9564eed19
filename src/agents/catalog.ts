// Which agents there are: the user's `acp.agents`, the agents installed from the registry and the presets, read in
// one place. Everything that lists or finds an agent asks the catalog, so an install shows up everywhere at once.
import * as vscode from 'vscode';
import { readAgentSettings, type AgentConfig, type AgentSettings, type AgentSources } from '../settings/config';
import type { PresetConsent } from './presetConsent';
import { DisposableStore } from '../common/disposables';

export class AgentCatalog implements vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires when the list of agents may have changed: `acp.agents` or `acp.defaultAgent` changed, or an install did. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposables: DisposableStore;

  constructor(
    /** The agents from beyond the settings, read at each use. */
    private readonly sources: () => AgentSources,
    sourcesChanged: vscode.Event<void>,
    /** What the user agreed a preset runs: every start of a preset asks it first. */
    readonly consent: PresetConsent,
  ) {
    this.disposables = new DisposableStore(
      this.changeEmitter,
      sourcesChanged(() => this.changeEmitter.fire()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('acp.agents') || event.affectsConfiguration('acp.defaultAgent')) this.changeEmitter.fire();
      }),
    );
  }

  read(): AgentSettings {
    return readAgentSettings(this.sources());
  }

  /** The agent named `name` (configured, installed or a preset), as the settings read now. */
  find(name: string): AgentConfig | undefined {
    return this.read().agents.find((a) => a.name === name);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
