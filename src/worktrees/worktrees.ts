// Worktree chats, registered: New Chat in Worktree, and what acts on one (review, apply, commit, discard, open in a
// new window, clean up). A command acts on the worktree it is given (a Sessions view row, a chat), else on the active
// chat's, else asks which. The records follow each worktree chat's session, and a deleted chat's worktree is offered
// for discarding.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import { tagged, type Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { ChatPanel } from '../chat/panel';
import type { Chats } from '../chats/chats';
import { findGit, type Checkpoints } from '../checkpoints/checkpoints';
import { DisposableStore, disposeAll } from '../common/disposables';
import { failureText } from '../common/failureText';
import { isWithin } from '../common/paths';
import type { TranscriptStore } from '../history/transcripts';
import { readWorktreeSettings } from '../settings/worktrees';
import {
  applyWorktree,
  BASE_SCHEME,
  commitWorktree,
  removeWorktree,
  reviewWorktree,
  whatWouldBeLost,
  WorktreeBaseDocuments,
  WorktreeStepError,
} from './actions';
import { confirmPick } from './confirm';
import { WorktreeCreator } from './create';
import { aheadCount, lineCounts, userGit, type Git } from './git';
import type { WorktreeRecord, WorktreeRecords } from './records';

/** Set while the active chat works in a worktree: its menu shows the worktree's actions. */
const CONTEXT_KEY = 'acp.activeChatInWorktree';

/** The commands on one worktree (its row in the Sessions view, or the one the user picks). */
export type WorktreeCommand =
  'acp.reviewWorktree' | 'acp.applyWorktree' | 'acp.commitWorktree' | 'acp.discardWorktree' | 'acp.openWorktreeInNewWindow';

export class WorktreeCommands implements vscode.Disposable {
  private readonly log: Logger;
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    agents: AgentManager,
    private readonly records: WorktreeRecords,
    transcripts: TranscriptStore,
    checkpoints: Checkpoints,
    log: Logger,
  ) {
    this.log = tagged(log, 'worktrees');
    this.creator = new WorktreeCreator(chats, agents, records, () => this.gitPath(), this.log);
    this.disposables = new DisposableStore(
      vscode.workspace.registerTextDocumentContentProvider(
        BASE_SCHEME,
        new WorktreeBaseDocuments(async (folder) => {
          const record = records.find(folder);
          return record && (await this.git(record));
        }),
      ),
      chats.onDidChange(() => this.follow()),
      // A turn ended (its checkpoint was taken): the figures of the worktrees are read again, at most once a second.
      checkpoints.onDidChange(() => this.countLater()),
      { dispose: () => clearTimeout(this.countTimer) },
      transcripts.onDidRemove(({ agent, sessionId }) => void this.offerDiscard(agent, sessionId)),
      // Where git is, found once: again when the user changes git's settings, or it was not there.
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('git')) this.found = undefined;
      }),
    );
    this.follow();
    this.countLater(); // the figures of the worktrees a reload brought back
  }

  private countTimer: NodeJS.Timeout | undefined;
  private readonly creator: WorktreeCreator;

  /** New Chat in Worktree. */
  newChat(): Promise<ChatPanel | undefined> {
    return this.creator.run();
  }

  /** One of a worktree's commands on the worktree `value` names (or the one the user picks); a failure is said. */
  async onWorktree(command: WorktreeCommand, value: unknown): Promise<void> {
    const record = await this.target(value);
    const git = record && (await this.git(record));
    if (!record || !git) return;
    try {
      await this.act(command, record, git);
    } catch (error) {
      this.failed(command, error);
    }
  }

  private async act(command: WorktreeCommand, record: WorktreeRecord, git: Git): Promise<unknown> {
    switch (command) {
      case 'acp.reviewWorktree':
        return reviewWorktree(git, record);
      case 'acp.applyWorktree':
        return this.apply(record, git);
      case 'acp.commitWorktree':
        return commitWorktree(git, record, this.suggestedMessage(record));
      case 'acp.discardWorktree':
        return this.discard(record, git);
      case 'acp.openWorktreeInNewWindow':
        return vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(record.path), { forceNewWindow: true });
    }
  }
  private found: Promise<string | undefined> | undefined;

  /** The user's git, looked for once (see `findGit`). */
  private gitPath(): Promise<string | undefined> {
    const found = (this.found ??= findGit(this.log));
    void found.then((path) => {
      if (!path && this.found === found) this.found = undefined;
    });
    return found;
  }

  private countLater(): void {
    clearTimeout(this.countTimer);
    this.countTimer = setTimeout(() => void this.count(), 1000);
  }

  private failed(command: string, error: unknown): void {
    this.log.error(`${command} failed: ${errorMessage(error)}`);
    void vscode.window.showErrorMessage(error instanceof WorktreeStepError ? stepFailure(error) : failureText(error));
  }

  /** Commits ahead of the base and lines changed, for the Sessions view; a worktree git cannot read is left as it was. */
  private async count(): Promise<void> {
    const path = this.records.all().length > 0 ? await this.gitPath() : undefined;
    if (!path) return;
    for (const record of this.records.all()) {
      if (!existsSync(record.path)) continue;
      const git = userGit(path, this.log, false, record);
      try {
        const ahead = await aheadCount(git, record.repo, record.baseCommit, record.branch);
        this.records.setStats(record.path, { ahead, ...(await lineCounts(git, record.path, record.baseCommit)) });
      } catch (error) {
        this.log.debug(`could not count the changes of ${record.path}: ${errorMessage(error)}`);
      }
    }
  }

  /** The user's git for `record`: pointed at its own git folder in its worktree. */
  private async git(record: WorktreeRecord): Promise<Git | undefined> {
    const path = await this.gitPath();
    if (!path) void vscode.window.showErrorMessage(vscode.l10n.t('Git was not found. Install git, or set git.path.'));
    return path ? userGit(path, this.log, true, record) : undefined;
  }

  /** Each worktree chat's session goes on its record; the active chat's place sets the menus' context. */
  private follow(): void {
    for (const panel of this.chats.all) {
      const session = panel.model.session;
      const record = session && this.records.find(session.cwd);
      if (!record || (record.agent === panel.agentName && record.sessionId === session.sessionId)) continue;
      void this.records.setChat(session.cwd, panel.agentName, session.sessionId);
      this.countLater(); // a new worktree chat: its row gets its figures
    }
    const active = this.chats.all.find((p) => p.active);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, !!(active?.model.session && this.records.find(active.model.session.cwd)));
  }

  /** The worktree `value` names (its path, a Sessions view row, a chat), else the chat last active's, else the user's pick. */
  private async target(value: unknown): Promise<WorktreeRecord | undefined> {
    const folder = folderOf(value) ?? this.chats.target?.model.session?.cwd;
    const named = folder !== undefined ? this.records.find(folder) : undefined;
    if (named) return named;
    const all = this.records.all();
    if (all.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('There is no worktree chat. Start one with "ACP: New Chat in Worktree…".'));
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      all.map((record) => ({ label: record.branch, description: record.agent, detail: record.path, record })),
      { title: vscode.l10n.t('Which worktree chat?'), ignoreFocusOut: true },
    );
    return picked?.record;
  }

  private async apply(record: WorktreeRecord, git: Git): Promise<void> {
    const applied = await applyWorktree(git, record, readWorktreeSettings().applyAs, this.log);
    if (applied !== 'applied') return;
    // The chat says so too, where the user works with it; its menu has Discard Worktree.
    for (const panel of this.chatsIn(record.path)) {
      panel.model.tell(
        vscode.l10n.t(
          'The changes of {0} are in the main checkout now. Discard Worktree (in this chat\u2019s menu) removes the worktree.',
          record.branch,
        ),
      );
    }
    const discard = vscode.l10n.t('Discard Worktree');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('The changes of {0} are in the main checkout now. Discard the worktree?', record.branch), discard)
      .then((pick) => pick === discard && this.discard(record, git))
      .then(undefined, (error: unknown) => this.failed('acp.discardWorktree', error));
  }

  /** Discard Worktree: what would be lost is listed first; after the user agrees, the chat ends and git removes it. */
  private async discard(record: WorktreeRecord, git: Git): Promise<boolean> {
    const { commits, files, ignored } = await whatWouldBeLost(git, record);
    const lost = [
      ...commits.map((c) => vscode.l10n.t('commit {0}', c)),
      ...files.map((f) => vscode.l10n.t('uncommitted {0}', f)),
      ...ignored.map((f) => vscode.l10n.t('ignored {0}', f)),
    ];
    const agreed = await confirmPick(
      vscode.l10n.t('Discard the worktree of {0} and its branch?', record.branch),
      vscode.l10n.t('Discard Worktree'),
      lost.length > 0
        ? vscode.l10n.t(
            'This loses {0} commits not on {1}, {2} uncommitted files and {3} ignored files or folders, listed below.',
            commits.length,
            record.base,
            files.length,
            ignored.length,
          )
        : vscode.l10n.t('Nothing is lost: it has no changes of its own.'),
      lost,
    );
    if (!agreed) return false;
    // The chat ends first, so that its agent stops working in the folder; its transcript stays in the history.
    disposeAll(this.chatsIn(record.path));
    await removeWorktree(git, record, true);
    await this.records.remove(record.path);
    this.log.info(`discarded ${record.path} and its branch ${record.branch}`);
    return true;
  }

  private chatsIn(folder: string): ChatPanel[] {
    const cwd = (p: ChatPanel) => p.model.session?.cwd ?? p.model.restoreLater?.cwd;
    return this.chats.all.filter((p) => {
      const at = cwd(p);
      return at !== undefined && isWithin(folder, at);
    });
  }

  /** Clean Up Worktrees…: the worktrees made here whose chat is gone or whose folder was removed by hand. */
  async cleanUp(): Promise<void> {
    const stale = this.records.all().filter((r) => !existsSync(r.path) || this.chatsIn(r.path).length === 0);
    if (stale.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Every worktree made for a chat has its chat open; there is nothing to clean up.'));
      return;
    }
    const all: vscode.QuickPickItem & { record?: WorktreeRecord } = {
      label: vscode.l10n.t('Remove All {0}', stale.length),
      detail: vscode.l10n.t(
        'Worktrees with uncommitted files, and branches with commits of their own, are kept. Files git ignores in a removed worktree (build output, installed packages) go with it.',
      ),
    };
    const picked = await vscode.window.showQuickPick(
      [
        all,
        ...stale.map((record): vscode.QuickPickItem & { record?: WorktreeRecord } => ({
          label: vscode.l10n.t('Remove {0}', record.branch),
          description: existsSync(record.path) ? vscode.l10n.t('no chat open') : vscode.l10n.t('folder removed'),
          detail: record.path,
          record,
        })),
      ],
      { ignoreFocusOut: true, title: vscode.l10n.t('Clean Up Worktrees') },
    );
    const picks = picked === all ? stale : picked?.record ? [picked.record] : [];
    for (const record of picks) {
      const git = await this.git(record);
      if (!git) return;
      try {
        // What would be lost is read first, and a worktree it cannot be read of is left alone.
        const { commits, files } = existsSync(record.path) ? await whatWouldBeLost(git, record) : { commits: [], files: [] as string[] };
        if (files.length > 0) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t(
              '{0} has {1} uncommitted files, so it was kept: Discard Worktree lists them before it removes it.',
              record.path,
              files.length,
            ),
          );
          continue;
        }
        await removeWorktree(git, record, commits.length === 0);
        await this.records.remove(record.path);
        if (commits.length > 0) this.log.info(`kept the branch ${record.branch}: it has commits not on ${record.base}`);
      } catch (error) {
        this.log.error(`could not clean up ${record.path}: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('{0} could not be removed: {1}', record.path, failureText(error)));
      }
    }
  }

  /** A deleted chat's worktree: the user is asked whether to discard it too. */
  private async offerDiscard(agent: string, sessionId: string): Promise<void> {
    const record = this.records.ofChat(agent, sessionId);
    if (!record || !existsSync(record.path)) return;
    const discard = vscode.l10n.t('Discard Worktree…');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('The deleted chat worked in the worktree of {0}. Discard the worktree too?', record.branch),
      discard,
    );
    const git = pick === discard ? await this.git(record) : undefined;
    if (git) await this.discard(record, git).catch((error: unknown) => this.failed('acp.discardWorktree', error));
  }

  /** A commit message from the worktree chat: its title, then what the user asked in each turn. */
  private suggestedMessage(record: WorktreeRecord): string | undefined {
    const panel = this.chatsIn(record.path)[0];
    const model = panel?.model.session?.model;
    if (!panel || !model) return undefined;
    const asked = model.entries
      .flatMap((e) => (e.type === 'message' && e.role === 'user' ? [e.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ')] : []))
      .map((text) => text.trim().split('\n')[0]!.slice(0, 100))
      .filter(Boolean)
      .slice(0, 20);
    return [panel.title, ...(asked.length > 0 ? ['', ...asked.map((a) => `- ${a}`)] : [])].join('\n');
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

/** The folder a command's argument names: a path, a chat (its session's folder), or a Sessions view row. */
function folderOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return undefined;
  const v = value as { path?: unknown; panel?: { session?: { cwd?: unknown } }; summary?: { cwd?: unknown }; cwd?: unknown };
  const candidate = v.path ?? v.panel?.session?.cwd ?? v.summary?.cwd ?? v.cwd;
  return typeof candidate === 'string' ? candidate : undefined;
}

/** What the user is told when a git step of a worktree action failed, and where to look. */
function stepFailure(error: WorktreeStepError): string {
  return error.step === 'stash'
    ? vscode.l10n.t('git stash failed ({0}); "git stash list" shows whether your changes were stashed.', error.detail)
    : vscode.l10n.t('git could not apply the worktree\u2019s changes, not even three-way ({0}); "git status" shows what it left.', error.detail);
}
