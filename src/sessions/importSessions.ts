// "ACP: Import Sessions from Agent…": the agent's sessions in the workspace folders (`session/list`) that this
// computer does not keep yet; the ones the user picks are replayed one at a time (`session/load`) into a model of
// their own, written as local transcripts (so Search Chats and the history find them), and closed again. The run and
// its bounds are importRun.ts; this is the command: it asks, shows the progress (a notification that can cancel it;
// what was imported before the cancel stays) and says what came of it.
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import { failureText } from '../common/failureText';
import { workspaceRoots } from '../common/workspace';
import type { TranscriptStore } from '../history/transcripts';
import { importPicked, LOAD_TIMEOUT_MS, MAX_IMPORT, sessionsInWorkspace, systemClock } from './importRun';
import { relativeTime } from './relativeTime';

/** What a run did; undefined when the user left before anything was imported. */
export interface ImportResult {
  readonly imported: number;
  /** Kept on this computer already, or open in a chat. */
  readonly skipped: number;
  readonly failed: number;
  readonly cancelled: boolean;
}

export class SessionImport {
  constructor(
    private readonly chats: Pick<Chats, 'showing'>,
    private readonly agents: AgentManager,
    private readonly store: TranscriptStore,
    private readonly log: Logger,
  ) {}

  async run(agentName?: string): Promise<ImportResult | undefined> {
    const { agents } = this.agents.catalog.read();
    let agent = agentName === undefined ? undefined : this.agents.catalog.find(agentName);
    if (!agent && agents.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No agents are configured. Add one to the "acp.agents" setting.'));
      return undefined;
    }
    if (!agent) {
      const pick = await vscode.window.showQuickPick(
        agents.map((a) => ({ label: a.name, agent: a })),
        { ignoreFocusOut: true, title: vscode.l10n.t('Import Sessions'), placeHolder: vscode.l10n.t('Choose the agent whose sessions to import') },
      );
      agent = pick?.agent;
    }
    if (!agent) return undefined;
    const roots = workspaceRoots();
    if (roots.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a folder first: sessions are imported into its history.'));
      return undefined;
    }
    let client: AgentClient;
    try {
      client = await this.agents.connect(agent, roots[0]!);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} could not start: {1}', agent.name, failureText(error)));
      return undefined;
    }
    // Held for the whole run: closing one imported session must not stop the agent before the next.
    const hold = this.agents.hold(client);
    try {
      return await this.importFrom(client, agent.name, roots);
    } finally {
      hold.dispose();
    }
  }

  private async importFrom(client: AgentClient, agentName: string, roots: readonly string[]): Promise<ImportResult | undefined> {
    if (!client.capabilities.supports('listSessions')) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('{0} does not list its sessions (session/list), so there is nothing to import.', agentName),
      );
      return undefined;
    }
    if (!client.capabilities.supports('loadSession')) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('{0} cannot replay its sessions (session/load), so they cannot be imported.', agentName),
      );
      return undefined;
    }
    let listed: S.SessionInfo[];
    try {
      listed = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing the sessions of {0}', agentName) },
        () => sessionsInWorkspace(client, roots),
      );
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} could not list its sessions: {1}', agentName, failureText(error)));
      return undefined;
    }
    const kept = new Set((await this.store.list()).filter((s) => s.agent === agentName).map((s) => s.sessionId));
    const fresh = listed.filter((info) => !kept.has(info.sessionId) && !this.chats.showing(agentName, info.sessionId));
    const skipped = listed.length - fresh.length;
    this.log.info(`[history] ${agentName} lists ${listed.length} sessions in this workspace; ${fresh.length} are not on this computer`);
    if (fresh.length === 0) {
      void vscode.window.showInformationMessage(
        listed.length === 0
          ? vscode.l10n.t('{0} has no sessions in this workspace.', agentName)
          : vscode.l10n.t('Every session of {0} in this workspace is on this computer already ({1}).', agentName, listed.length),
      );
      return { imported: 0, skipped, failed: 0, cancelled: false };
    }
    const picked = await pickSessions(
      fresh,
      vscode.l10n.t('Import Sessions from {0}', agentName),
      skipped > 0
        ? vscode.l10n.t('{0} on this computer already are not listed. At most {1} at a time.', skipped, MAX_IMPORT)
        : vscode.l10n.t('Choose the sessions to import, at most {0} at a time', MAX_IMPORT),
    );
    if (!picked || picked.length === 0) {
      this.log.info(`[history] no session of ${agentName} was picked to import`);
      return undefined;
    }
    const counts = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing the sessions of {0}', agentName), cancellable: true },
      async (progress, token) => {
        const cancel = new AbortController();
        const listening = token.onCancellationRequested(() => cancel.abort());
        try {
          return await importPicked(picked, {
            client,
            agentName,
            store: this.store,
            log: this.log,
            clock: systemClock,
            cancel: cancel.signal,
            showing: (sessionId) => this.chats.showing(agentName, sessionId) !== undefined,
            progress: (index, of, info) =>
              progress.report({ message: `${index + 1}/${of}: ${info.title?.trim() || info.sessionId}`, increment: 100 / of }),
          });
        } finally {
          listening.dispose();
        }
      },
    );
    const failures = counts.failures.map((f) =>
      f.kind === 'timedOut' ? vscode.l10n.t('{0} (no replay within {1} s)', f.title, LOAD_TIMEOUT_MS / 1000) : `${f.title} (${failureText(f.error)})`,
    );
    const summary = [
      counts.cancelled
        ? vscode.l10n.t('Import from {0} cancelled: {1} imported before the cancel.', agentName, counts.imported)
        : counts.imported === 1
          ? vscode.l10n.t('Imported 1 session from {0}.', agentName)
          : vscode.l10n.t('Imported {0} sessions from {1}.', counts.imported, agentName),
      ...(counts.empty > 0 ? [vscode.l10n.t('{0} had no messages to keep.', counts.empty)] : []),
      ...(failures.length > 0 ? [vscode.l10n.t('{0} could not be imported: {1}', failures.length, failures.slice(0, 3).join('; '))] : []),
      ...(!counts.cancelled && counts.notTried > 0 ? [vscode.l10n.t('{0} were not tried after that.', counts.notTried)] : []),
      ...(counts.left > 0 ? [vscode.l10n.t('{0} more were picked than one run imports; run it again for them.', counts.left)] : []),
    ].join(' ');
    this.log.info(`[history] ${summary}`);
    if (failures.length > 0) void vscode.window.showWarningMessage(summary);
    else void vscode.window.showInformationMessage(summary);
    return { imported: counts.imported, skipped: skipped + counts.skipped, failed: failures.length, cancelled: counts.cancelled };
  }
}

/**
 * The sessions to import, the first MAX_IMPORT checked. The items and their checks are in place before the pick is
 * shown, so an Enter that comes at once accepts what the user sees checked (showQuickPick checks them after showing).
 */
function pickSessions(fresh: readonly S.SessionInfo[], title: string, placeholder: string): Promise<S.SessionInfo[] | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { readonly info: S.SessionInfo }>();
  const items = fresh.map((info) => ({
    label: info.title?.trim() || vscode.l10n.t('Untitled session'),
    description: info.updatedAt ? relativeTime(info.updatedAt, Date.now(), vscode.env.language) : undefined,
    info,
  }));
  pick.title = title;
  pick.placeholder = placeholder;
  pick.canSelectMany = true;
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = true;
  pick.items = items;
  pick.selectedItems = items.slice(0, MAX_IMPORT);
  return new Promise((resolve) => {
    let accepted = false;
    pick.onDidAccept(() => {
      accepted = true;
      resolve(pick.selectedItems.map((item) => item.info));
      pick.hide();
    });
    pick.onDidHide(() => {
      if (!accepted) resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
