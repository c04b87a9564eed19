// "ACP: Import Sessions from Agent…": the agent's sessions in the workspace folders (`session/list`) that this
// computer does not keep yet; the ones the user picks are replayed one at a time (`session/load`) into a model of
// their own, written as local transcripts (so Search Chats and the history find them), and closed again. Bounded: at
// most MAX_IMPORT per run, each replay given LOAD_TIMEOUT_MS, each transcript bounded by the store. A notification
// shows it and can cancel it; what was imported before the cancel stays.
import * as vscode from 'vscode';
import type { AgentClient, AgentSession } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import { failureText } from '../common/failureText';
import { checkPath } from '../common/paths';
import { workspaceRoots } from '../common/workspace';
import { storedEntries } from '../history/format';
import { sessionTranscript } from '../history/recorder';
import type { TranscriptStore } from '../history/transcripts';
import { relativeTime } from './relativeTime';

/** Sessions imported at most in one run. */
const MAX_IMPORT = 100;
/** A replay that takes longer is given up (the session is closed when it ends). */
const LOAD_TIMEOUT_MS = 60_000;

/** What a run did; undefined when the user left before anything was imported. */
export interface ImportResult {
  readonly imported: number;
  /** Kept on this computer already, or open in a chat. */
  readonly skipped: number;
  readonly failed: number;
  readonly cancelled: boolean;
}

/** How one session went; a failure with `stop` ends the run (the agent is gone, or too slow to go on). */
type Outcome = 'imported' | 'empty' | 'cancelled' | { readonly failed: string; readonly stop?: boolean };

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
        () => this.list(client, roots),
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
    const picks = await vscode.window.showQuickPick(
      fresh.map((info, index) => ({
        label: info.title?.trim() || vscode.l10n.t('Untitled session'),
        description: info.updatedAt ? relativeTime(info.updatedAt, Date.now(), vscode.env.language) : undefined,
        picked: index < MAX_IMPORT,
        info,
      })),
      {
        ignoreFocusOut: true,
        title: vscode.l10n.t('Import Sessions from {0}', agentName),
        placeHolder:
          skipped > 0
            ? vscode.l10n.t('{0} on this computer already are not listed. At most {1} at a time.', skipped, MAX_IMPORT)
            : vscode.l10n.t('Choose the sessions to import, at most {0} at a time', MAX_IMPORT),
        canPickMany: true,
        matchOnDescription: true,
      },
    );
    if (!picks || picks.length === 0) {
      this.log.info(`[history] no session of ${agentName} was picked to import`);
      return undefined;
    }
    const chosen = picks.slice(0, MAX_IMPORT).map((p) => p.info);
    const counts = { imported: 0, skipped, failed: 0, cancelled: false };
    let empty = 0;
    /** Sessions gone through, whatever came of them: those after a stop or a cancel were not tried. */
    let tried = 0;
    const failures: string[] = [];
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing the sessions of {0}', agentName), cancellable: true },
      async (progress, token) => {
        for (const [index, info] of chosen.entries()) {
          if (token.isCancellationRequested) break;
          tried++;
          progress.report({ message: `${index + 1}/${chosen.length}: ${info.title?.trim() || info.sessionId}`, increment: 100 / chosen.length });
          // Opened in a chat meanwhile: its chat keeps its transcript.
          if (this.chats.showing(agentName, info.sessionId)) {
            counts.skipped++;
            continue;
          }
          const outcome = await this.importOne(client, agentName, info, token);
          if (outcome === 'imported') counts.imported++;
          else if (outcome === 'empty') {
            counts.skipped++;
            empty++;
          } else if (outcome === 'cancelled') break;
          else {
            counts.failed++;
            failures.push(outcome.failed);
            if (outcome.stop) break;
          }
        }
        counts.cancelled = token.isCancellationRequested;
      },
    );
    const left = picks.length - chosen.length;
    const summary = [
      counts.cancelled
        ? vscode.l10n.t('Import from {0} cancelled: {1} imported before the cancel.', agentName, counts.imported)
        : counts.imported === 1
          ? vscode.l10n.t('Imported 1 session from {0}.', agentName)
          : vscode.l10n.t('Imported {0} sessions from {1}.', counts.imported, agentName),
      ...(empty > 0 ? [vscode.l10n.t('{0} had no messages to keep.', empty)] : []),
      ...(counts.failed > 0 ? [vscode.l10n.t('{0} could not be imported: {1}', counts.failed, failures.slice(0, 3).join('; '))] : []),
      ...(!counts.cancelled && tried < chosen.length ? [vscode.l10n.t('{0} were not tried after that.', chosen.length - tried)] : []),
      ...(left > 0 ? [vscode.l10n.t('{0} more were picked than one run imports; run it again for them.', left)] : []),
    ].join(' ');
    this.log.info(`[history] ${summary}`);
    if (counts.failed > 0) void vscode.window.showWarningMessage(summary);
    else void vscode.window.showInformationMessage(summary);
    return counts;
  }

  /**
   * Every session in the workspace folders, once each, the most recently updated first. One the agent lists in
   * another folder (it may ignore the filter) is left out: its folder would become the replay's and the transcript's.
   */
  private async list(client: AgentClient, roots: readonly string[]): Promise<S.SessionInfo[]> {
    const seen = new Map<string, S.SessionInfo>();
    for (const root of roots) {
      for (const info of await client.listSessions(root)) {
        if (!seen.has(info.sessionId) && checkPath(info.cwd, roots).kind === 'inside') seen.set(info.sessionId, info);
      }
    }
    return [...seen.values()].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  }

  /**
   * Replays one session into its own model, keeps its transcript and closes it. A cancel or the deadline gives the
   * load up (`$/cancel_request`): the session is dropped at once and nothing of it is kept.
   */
  private async importOne(client: AgentClient, agentName: string, info: S.SessionInfo, token: vscode.CancellationToken): Promise<Outcome> {
    const giveUp = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      giveUp.abort();
    }, LOAD_TIMEOUT_MS);
    const onCancel = token.onCancellationRequested(() => giveUp.abort());
    const givenUp = new Promise<'givenUp'>((resolve) => giveUp.signal.addEventListener('abort', () => resolve('givenUp'), { once: true }));
    const loaded = await Promise.race([
      client.reopenSession(info.sessionId, info.cwd, 'load', { signal: giveUp.signal }).then(
        (session) => ({ session }),
        (error: unknown) => ({ error }),
      ),
      givenUp, // not waiting for the agent to answer the cancel: the session is dropped already
    ]);
    clearTimeout(timer);
    onCancel.dispose();
    const title = info.title?.trim() || info.sessionId;
    if (loaded === 'givenUp' || token.isCancellationRequested || timedOut) {
      if (token.isCancellationRequested) return 'cancelled';
      return { failed: vscode.l10n.t('{0} (no replay within {1} s)', title, LOAD_TIMEOUT_MS / 1000), stop: true };
    }
    if ('error' in loaded) {
      this.log.warn(`[history] ${agentName} could not replay ${info.sessionId}: ${errorMessage(loaded.error)}`);
      return { failed: `${title} (${failureText(loaded.error)})`, stop: client.hasExited };
    }
    return this.keep(agentName, info, loaded.session);
  }

  private async keep(agentName: string, info: S.SessionInfo, session: AgentSession): Promise<Outcome> {
    try {
      const entries = storedEntries(session.model);
      if (entries.length === 0) return 'empty';
      // Never later than now: a session dated in the future would push the user's own chats out of the history.
      const now = new Date();
      const stated = new Date(info.updatedAt ?? '');
      const updated = Number.isNaN(stated.getTime()) || stated > now ? now : stated;
      await this.store.save(
        sessionTranscript({ agent: agentName, sessionId: info.sessionId, cwd: info.cwd }, session.model, {
          entries,
          title: session.model.title ?? (info.title?.trim() || undefined),
          updatedAt: updated,
        }),
      );
      this.log.info(`[history] imported ${info.sessionId} from ${agentName} (${entries.length} entries)`);
      return 'imported';
    } finally {
      await session.close();
    }
  }
}
