// "ACP: Add Agent from Registry…", Update and Uninstall, and the once-a-day check for updates (a quiet badge on the
// Sessions view, never a popup). Installing is a user action only: the commands take no install target from their
// arguments except an installed agent's name from the Sessions view, and the registry's URL is the user's setting.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { tagged, type Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { ViewBadge } from '../common/viewBadge';
import type { AgentConfig } from '../settings/agentConfig';
import { compareVersions, howToRun, platformKey, type HowToRun, type RegistryAgent } from './format';
import type { InstalledAgent } from './installed';
import { CANCELLED, InstallError, Installer, type InstallProgress } from './installer';
import { withLock } from './lock';
import { RefusedUrlError } from '../common/http';
import type { LoadedRegistry } from './source';
import { registryItem, type RegistryItem } from './pickItem';
import type { RegistryState } from './state';
import { DisposableStore } from '../common/disposables';

const DAY_MS = 24 * 60 * 60 * 1000;
const LAST_CHECK_KEY = 'acp.registry.lastCheck';

/** What a registry command did: the agent it installed or updated, or the sentence the user saw instead. */
export type RegistryOutcome =
  | {
      readonly done: 'installed' | 'updated';
      readonly agent: string;
      readonly version: string;
      readonly command: string;
      readonly args: readonly string[];
      /** Where the list came from. */
      readonly origin: LoadedRegistry['origin'];
    }
  | { readonly done: 'nothing'; readonly message?: string };

export class RegistryCommands implements vscode.Disposable {
  private readonly installer: Installer;
  private readonly log: Logger;
  private readonly disposables: DisposableStore;
  private checkTimer: NodeJS.Timeout | undefined;
  /** A cleanup runs or waits for the lock; one asked for meanwhile runs once after it. */
  private collecting = false;
  private collectAgain = false;

  constructor(
    private readonly state: RegistryState,
    private readonly agents: AgentManager,
    private readonly memento: vscode.Memento,
    private readonly badge: ViewBadge,
    log: Logger,
    /** Teaches the log's scrubber the values of an installed agent's env. */
    private readonly learnSecrets: (env: Readonly<Record<string, string>>) => void,
  ) {
    this.log = tagged(log, 'registry');
    this.installer = new Installer(state.root, log);
    for (const agent of state.installed.list()) learnSecrets(agent.env);
    this.disposables = new DisposableStore(
      // Files of an uninstalled or replaced version go once no process runs them.
      agents.onDidEndProcess(() => void this.collectGarbage()),
      state.onDidChange(() => this.showBadge()),
    );
    void this.collectGarbage();
    this.scheduleCheck();
  }

  /** "ACP: Add Agent from Registry…": the registry's agents, then an install of the one picked. */
  async addFromRegistry(startOn?: string): Promise<RegistryOutcome> {
    // The pick opens at once and is busy while the list is read; closing it stops the read.
    const quickPick = vscode.window.createQuickPick<RegistryItem>();
    quickPick.title = vscode.l10n.t('Add Agent from Registry');
    quickPick.ignoreFocusOut = true;
    quickPick.placeholder = vscode.l10n.t('Reading the ACP Registry…');
    quickPick.matchOnDescription = true;
    quickPick.matchOnDetail = true;
    quickPick.busy = true;
    const controller = new AbortController();
    const picked = new Promise<RegistryItem | undefined>((resolve) => {
      quickPick.onDidAccept(() => {
        const item = quickPick.selectedItems[0];
        if (item?.agent) resolve(item); // Enter while the list is still being read does nothing
      });
      quickPick.onDidHide(() => {
        controller.abort();
        resolve(undefined);
      });
      // The agent's website opens in the browser, only on the user's click.
      quickPick.onDidTriggerItemButton(({ item }) => item.website && void vscode.env.openExternal(item.website));
    });
    quickPick.show();
    let list: LoadedRegistry;
    try {
      list = await this.state.refresh(controller.signal);
    } catch (error) {
      quickPick.dispose();
      return { done: 'nothing', message: this.sayLoadFailed(error) };
    }
    if (controller.signal.aborted) {
      quickPick.dispose();
      return { done: 'nothing' };
    }
    const platform = platformKey(process.platform, process.arch);
    const installed = new Map(this.state.installed.list().map((a) => [a.id, a]));
    // Agents that can run here first, each group by name.
    const items: RegistryItem[] = list.registry.agents
      .map((agent) => ({ agent, how: howToRun(agent, platform) }))
      .sort((a, b) => Number(a.how.kind === 'unsupported') - Number(b.how.kind === 'unsupported') || a.agent.name.localeCompare(b.agent.name))
      .map(({ agent, how }) => registryItem(agent, how, installed.get(agent.id)));
    const skipped = list.problems.length;
    quickPick.placeholder = originSentence(list) + (skipped > 0 ? ' ' + vscode.l10n.t('{0} entries were skipped (see the log).', skipped) : '');
    quickPick.items = items;
    quickPick.busy = false;
    const start = items.find((item) => item.agent?.id === startOn);
    if (start) quickPick.activeItems = [start];
    else if (startOn !== undefined) {
      quickPick.dispose();
      const message = vscode.l10n.t(
        'The registry does not list an agent "{0}" (an entry it could not read is skipped; see the log).',
        startOn.slice(0, 100),
      );
      void vscode.window.showWarningMessage(message);
      return { done: 'nothing', message };
    }
    const chosen = await picked;
    quickPick.dispose();
    if (!chosen?.agent || !chosen.how) return { done: 'nothing' };
    const agent = chosen.agent;
    const how = chosen.how;
    if (how.kind === 'unsupported') {
      const message = vscode.l10n.t('{0} cannot run here: {1}.', agent.name, how.why);
      void vscode.window.showWarningMessage(message);
      return { done: 'nothing', message };
    }
    const current = installed.get(agent.id);
    if (current && compareVersions(agent.version, current.version) <= 0) {
      const message = vscode.l10n.t('{0} {1} is installed.', current.name, current.version);
      const newChat = vscode.l10n.t('New Chat');
      const uninstall = vscode.l10n.t('Uninstall');
      void vscode.window.showInformationMessage(message, newChat, uninstall).then((choice) => {
        if (choice === newChat) void vscode.commands.executeCommand('acp.newChat', current.name);
        if (choice === uninstall) void this.uninstall(current.name);
      });
      return { done: 'nothing', message };
    }
    return this.install(agent, how, current, list.origin);
  }

  /** Installs (or updates to) `agent`, with a cancellable progress notification. */
  private async install(
    agent: RegistryAgent,
    how: HowToRun,
    previous: InstalledAgent | undefined,
    origin: LoadedRegistry['origin'],
  ): Promise<RegistryOutcome> {
    const title = previous
      ? vscode.l10n.t('Updating {0} to {1}', agent.name, agent.version)
      : vscode.l10n.t('Installing {0} {1}', agent.name, agent.version);
    let record: InstalledAgent;
    try {
      record = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        async (progress, token) => {
          const controller = new AbortController();
          const cancel = token.onCancellationRequested(() => controller.abort());
          let last = 0;
          const report: InstallProgress = {
            report: (message, fraction) => {
              const increment = fraction === undefined ? undefined : Math.max(0, fraction * 100 - last);
              if (fraction !== undefined) last = fraction * 100;
              progress.report({ message, ...(increment ? { increment } : {}) });
            },
          };
          try {
            // From the temporary folder to the record, under the lock: another window's cleanup never sees an
            // install that is not recorded yet, and never takes its temporary folder for a crashed one's.
            return await this.locked(async () => {
              const installed = await this.installer.install(agent, how, { signal: controller.signal, progress: report, registry: this.state.url() });
              await this.state.installed.put(installed);
              return installed;
            }, controller.signal);
          } catch (error) {
            throw controller.signal.aborted ? new InstallError(CANCELLED) : error;
          } finally {
            cancel.dispose();
          }
        },
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn(`${agent.id} ${agent.version} was not installed: ${message}`);
      if (error instanceof InstallError && message === CANCELLED) return { done: 'nothing', message };
      const showLog = vscode.l10n.t('Show Log');
      void vscode.window.showErrorMessage(message, showLog).then((choice) => {
        if (choice === showLog) void vscode.commands.executeCommand('acp.showLog');
      });
      return { done: 'nothing', message };
    }
    this.learnSecrets(record.env);
    this.state.changed();
    void this.collectGarbage();
    this.showBadge();
    const shadowed = this.shadowedBy(record.name);
    const newChat = vscode.l10n.t('New Chat');
    const done = previous
      ? vscode.l10n.t('{0} is updated to {1}. Chats already open keep {2} until they restart.', record.name, record.version, previous.version)
      : vscode.l10n.t('{0} {1} is installed.', record.name, record.version);
    const note = shadowed ? ' ' + vscode.l10n.t('Your "acp.agents" entry named "{0}" is used instead; rename it to use this one.', record.name) : '';
    void vscode.window.showInformationMessage(done + note, newChat).then((choice) => {
      if (choice === newChat) void vscode.commands.executeCommand('acp.newChat', record.name);
    });
    return {
      done: previous ? 'updated' : 'installed',
      agent: record.name,
      version: record.version,
      command: record.command,
      args: record.args,
      origin,
    };
  }

  /** True when an entry of `acp.agents` has the same name, which takes precedence. */
  private shadowedBy(name: string): boolean {
    return this.agents.catalog.read().agents.some((a) => a.name === name && !a.installed && !a.preset);
  }

  /** Updates an installed agent to the registry's version, beside the old one; switches only when the install succeeded. */
  async update(name: string | undefined): Promise<RegistryOutcome> {
    const installed = await this.pickInstalled(name, vscode.l10n.t('Update Agent'));
    if (!installed) return { done: 'nothing' };
    const loaded = await this.load();
    if (!loaded.ok) return { done: 'nothing', message: loaded.message };
    const agent = loaded.list.registry.agents.find((a) => a.id === installed.id);
    const say = (message: string) => {
      void vscode.window.showInformationMessage(message);
      return { done: 'nothing' as const, message };
    };
    if (!agent) return say(vscode.l10n.t('The registry no longer lists {0}; {1} stays installed.', installed.name, installed.version));
    if (compareVersions(agent.version, installed.version) <= 0) {
      return say(vscode.l10n.t('{0} {1} is the newest version.', installed.name, installed.version));
    }
    const how = howToRun(agent, platformKey(process.platform, process.arch));
    if (how.kind === 'unsupported') return say(vscode.l10n.t('{0} {1} cannot run here: {2}.', agent.name, agent.version, how.why));
    return this.install(agent, how, installed, loaded.list.origin);
  }

  /**
   * Forgets an installed agent at once (it leaves the lists), and removes its files when no chat runs it any more.
   * Nothing of the user's is lost (chats and their history stay), so it asks no question; Reinstall undoes it.
   */
  async uninstall(name: string | undefined): Promise<RegistryOutcome> {
    const installed = await this.pickInstalled(name, vscode.l10n.t('Uninstall Agent'));
    if (!installed) return { done: 'nothing' };
    await this.state.installed.remove(installed.id);
    this.state.changed();
    this.log.info(`uninstalled ${installed.id} ${installed.version}`);
    const running = installed.dir !== undefined && this.agents.liveCommands().some((c) => isInside(installed.dir!, c));
    await this.collectGarbage();
    const message = running
      ? vscode.l10n.t('{0} is uninstalled. Its open chats keep running; its files are removed when the last one closes.', installed.name)
      : vscode.l10n.t('{0} is uninstalled.', installed.name);
    const reinstall = vscode.l10n.t('Reinstall');
    void vscode.window.showInformationMessage(message, reinstall).then((choice) => {
      if (choice === reinstall) void this.addFromRegistry(installed.id);
    });
    return { done: 'nothing', message };
  }

  private async pickInstalled(name: string | undefined, title: string): Promise<InstalledAgent | undefined> {
    const all = this.state.installed.list();
    if (name !== undefined) {
      const found = all.find((a) => a.name === name);
      if (!found) void vscode.window.showErrorMessage(vscode.l10n.t('"{0}" was not installed from the registry.', name));
      return found;
    }
    if (all.length === 0) {
      const add = vscode.l10n.t('Add Agent from Registry…');
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('No agents are installed from the registry.'), add);
      if (choice === add) await this.addFromRegistry();
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      all.map((a) => ({ label: a.name, description: `${a.version} · ${a.kind}`, agent: a })),
      { title, ignoreFocusOut: true },
    );
    return pick?.agent;
  }

  /** Reads the registry with a progress notification; a refused URL is said, with the setting to change. */
  private async load(): Promise<{ ok: true; list: LoadedRegistry } | { ok: false; message: string }> {
    try {
      const list = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reading the ACP Registry…') },
        () => this.state.refresh(),
      );
      return { ok: true, list };
    } catch (error) {
      return { ok: false, message: this.sayLoadFailed(error) };
    }
  }

  /** Says why the registry could not be read (a refused URL, with the setting to change), and returns the sentence. */
  private sayLoadFailed(error: unknown): string {
    const reason = error instanceof Error ? error.message : String(error);
    const message = error instanceof RefusedUrlError ? reason : vscode.l10n.t('The ACP Registry could not be read: {0}', reason);
    const open = vscode.l10n.t('Open Settings');
    void vscode.window.showErrorMessage(message, open).then((choice) => {
      if (choice === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'acp.registry.url');
    });
    return message;
  }

  /** Removes install folders that no record names and no running process uses; leftovers of failed installs too. */
  async collectGarbage(): Promise<void> {
    if (this.collecting) {
      this.collectAgain = true;
      return;
    }
    this.collecting = true;
    try {
      do {
        this.collectAgain = false;
        await this.locked(() => this.collect());
      } while (this.collectAgain);
    } catch (error) {
      this.log.warn(`unused agent files were not removed: ${String(error)}`);
    } finally {
      this.collecting = false;
    }
  }

  /** Runs `work` under the lock on the folder of installs, shared by every window. */
  private async locked<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await fs.mkdir(this.state.root, { recursive: true });
    return withLock(path.join(this.state.root, '.lock'), work, { signal });
  }

  private async collect(): Promise<void> {
    const root = this.state.root;
    const keep = new Set(this.state.installed.list().flatMap((a) => (a.dir ? [path.resolve(a.dir)] : [])));
    // A running process's files stay, and so do those an entry of `acp.agents` runs (an installed agent copied there).
    const live = [...this.agents.liveCommands(), ...this.agents.catalog.read().agents.map((a) => a.command)];
    let ids: string[];
    try {
      ids = await fs.readdir(root);
    } catch {
      return;
    }
    for (const id of ids) {
      // Under the lock no install is under way in any window: a temporary folder or download is a crashed one's.
      if (id.startsWith('.install-')) {
        this.log.info(`removing ${id}, left by an install that did not finish`);
        await fs
          .rm(path.join(root, id), { recursive: true, force: true })
          .catch((error: unknown) => this.log.warn(`${id} could not be removed: ${String(error)}`));
        continue;
      }
      if (!/^[a-z][a-z0-9-]*$/.test(id)) continue; // installed.json, the lock
      const folder = path.join(root, id);
      let versions: string[];
      try {
        versions = await fs.readdir(folder);
      } catch {
        continue;
      }
      for (const version of versions) {
        const dir = path.resolve(folder, version);
        if (keep.has(dir) || live.some((command) => isInside(dir, command))) continue;
        this.log.info(`removing ${id} ${version}: no longer installed, and nothing runs it`);
        await fs.rm(dir, { recursive: true, force: true }).catch((error: unknown) => this.log.warn(`${dir} could not be removed: ${String(error)}`));
      }
      await fs.rmdir(folder).catch(() => undefined); // only when empty
    }
  }

  /** Once a day, quietly: read the registry, and badge the Sessions view with how many installed agents have updates. */
  private scheduleCheck(): void {
    const check = async () => {
      const last = this.memento.get<number>(LAST_CHECK_KEY) ?? 0;
      if (Date.now() - last < DAY_MS) return;
      await this.memento.update(LAST_CHECK_KEY, Date.now());
      await this.state.refresh().catch((error: unknown) => this.log.info(`the daily check could not read the registry: ${String(error)}`));
    };
    void check();
    this.checkTimer = setInterval(() => void check(), 60 * 60 * 1000);
    this.showBadge();
  }

  private showBadge(): void {
    const updates = this.agents.catalog.read().agents.filter((a: AgentConfig) => a.installed?.update);
    this.badge.set(
      'updates',
      updates.length,
      updates.length === 1
        ? vscode.l10n.t('An update of {0} is available', updates[0]!.name)
        : vscode.l10n.t('{0} agent updates are available', updates.length),
    );
  }

  dispose(): void {
    clearInterval(this.checkTimer);
    this.disposables.dispose();
  }
}

function originSentence(loaded: LoadedRegistry): string {
  const date = loaded.date ? new Date(loaded.date).toLocaleDateString(vscode.env.language) : '';
  if (loaded.origin === 'network') return vscode.l10n.t('Pick an agent to install.');
  if (loaded.origin === 'cache') return vscode.l10n.t('Offline: the list fetched on {0}.', date);
  return vscode.l10n.t('Offline: the list shipped with this extension, from {0}.', date);
}

/** An agent's name from a command argument: a Sessions view node (`{kind: 'agent', name}`) or a string. */
export function nameOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'name' in value && typeof value.name === 'string') return value.name;
  return undefined;
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
