// What the extension knows of the registry while it runs: the record of installs and the last list it read (the
// cached copy or the shipped snapshot at first, the network's after a fetch). The agent catalog reads installed
// agents and pinned presets from here. Owned by the core for the extension's lifetime.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import { PRESETS } from '../settings/agentConfig';
import { readRegistryUrl, type AgentSources } from '../settings/config';
import { InstalledAgents } from './installed';
import { installedConfigs, registryPresets } from './presets';
import { DEFAULT_REGISTRY_URL, RegistrySource, type LoadedRegistry } from './source';
import { DisposableStore } from '../common/disposables';

export class RegistryState implements vscode.Disposable {
  readonly installed: InstalledAgents;
  readonly source: RegistrySource;
  /** `<globalStorage>/agents`: the installs and their record. */
  readonly root: string;
  private latest: LoadedRegistry | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires when the installs or the registry's list changed. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposables = new DisposableStore(this.changeEmitter);

  constructor(globalStorage: vscode.Uri, extensionUri: vscode.Uri, log: Logger) {
    this.root = path.join(globalStorage.fsPath, 'agents');
    this.installed = new InstalledAgents(this.root, log);
    this.source = new RegistrySource(globalStorage.fsPath, path.join(extensionUri.fsPath, 'media', 'registry-snapshot.json'), log);
    // Another window's install or update changes the record: this window lists it too.
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(this.root), 'installed.json'));
    const changed = () => this.changeEmitter.fire();
    this.disposables.push(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
    void this.source.cachedOrSnapshot(this.url()).then((loaded) => {
      if (loaded && !this.latest) {
        this.latest = loaded;
        changed();
      }
    });
  }

  /** `acp.registry.url` (the user's setting only). */
  url(): string {
    return readRegistryUrl(DEFAULT_REGISTRY_URL);
  }

  /** The list read last, if any. */
  get list(): LoadedRegistry | undefined {
    return this.latest;
  }

  /** Reads the registry (the network, else the cache, else the snapshot) and keeps it as the list. */
  async refresh(signal?: AbortSignal): Promise<LoadedRegistry> {
    const loaded = await this.source.load(this.url(), { signal });
    this.latest = loaded;
    this.changeEmitter.fire();
    return loaded;
  }

  /** Tells everyone who lists agents that the record changed (this window wrote it). */
  changed(): void {
    this.changeEmitter.fire();
  }

  /**
   * The agents for the catalog. Presets are pinned only to a list that was fetched (now or before); with only the
   * shipped snapshot, the built-in presets stay, as they are the offline fallback.
   */
  sources(): AgentSources {
    const fetched = this.latest && this.latest.origin !== 'snapshot' ? this.latest.registry : undefined;
    return {
      installed: installedConfigs(this.installed.list(), this.latest?.registry),
      presets: registryPresets(PRESETS, fetched),
    };
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
