// ACP: New Chat in Worktree…: a chat whose agent works in a new git worktree of the repository, on a branch of its
// own, while the main checkout stays as it is. Three questions, each with a default that Enter takes (the agent,
// the base, the branch name), then `git worktree add -b <branch> <path> <base>` and a chat in that folder.
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { agentItems } from '../agents/pickers';
import type { AgentManager } from '../agents/manager';
import type { ChatPanel } from '../chat/panel';
import type { Chats } from '../chats/chats';
import { failureText } from '../common/failureText';
import type { AgentConfig } from '../settings/config';
import { readWorktreeSettings } from '../settings/worktrees';
import * as G from './git';
import type { WorktreeRecords } from './records';

interface Base {
  readonly label: string;
  readonly description?: string;
  readonly base: string;
  readonly carry: boolean;
}

export class WorktreeCreator {
  constructor(
    private readonly chats: Chats,
    private readonly agents: AgentManager,
    private readonly records: WorktreeRecords,
    /** The user's git, if there is one. */
    private readonly gitPath: () => Promise<string | undefined>,
    private readonly log: Logger,
  ) {}

  async run(): Promise<ChatPanel | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Worktree chats run agents, which Restricted Mode does not allow. Trust this workspace first.'),
      );
      return undefined;
    }
    const folder = await pickFolder();
    if (!folder) return undefined;
    const gitPath = await this.gitPath();
    if (!gitPath) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Git was not found, so a worktree cannot be made. Install git, or set git.path.'));
      return undefined;
    }
    const git = G.userGit(gitPath, this.log);
    const repo = await G.repositoryRoot(git, folder);
    if (!repo) return this.notARepository(folder);
    const settings = readWorktreeSettings();
    if (settings.problem) void vscode.window.showWarningMessage(settings.problem);
    const mine = this.records.all().filter((r) => r.repo === repo && existsSync(r.path));
    if (mine.length >= settings.max) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'This repository already has {0} worktree chats, the most the setting acp.worktrees.max allows. Discard one, or run Clean Up Worktrees….',
          mine.length,
        ),
      );
      return undefined;
    }
    const agent = await this.pickAgent();
    if (!agent) return undefined;
    const base = await pickBase(git, repo);
    if (!base) return undefined;
    const branch = await pickBranchName(git, repo, agent.name);
    if (!branch) return undefined;
    const target = freeFolder(path.join(settings.location ?? `${repo}.worktrees`, branchSlug(branch)));
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Making a worktree for {0}…', branch) },
        async () => {
          const baseCommit = await G.commitOf(git, repo, base.base);
          await G.addWorktree(git, repo, branch, target, base.base);
          const gitDir = await G.gitDirOf(git, target);
          await this.records.add({ path: target, gitDir, repo, branch, base: base.base, baseCommit, createdAt: Date.now(), agent: agent.name });
          if (base.carry) {
            const problems = await G.carryUncommitted(G.userGit(gitPath, this.log, true, { path: target, gitDir }), repo, target);
            for (const problem of problems) this.log.warn(problem);
            if (problems.length > 0)
              void vscode.window.showWarningMessage(vscode.l10n.t('Not all uncommitted changes were carried: {0}.', problems.join('; ')));
          }
        },
      );
    } catch (error) {
      this.log.error(`could not make a worktree at ${target}: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('The worktree could not be made: {0}', failureText(error)));
      return undefined;
    }
    this.log.info(`made ${target} on ${branch} from ${base.base} for ${agent.name}`);
    // A workspace folder below the repository's top works in the same folder of the worktree, when the base has it;
    // git names the top with links resolved, so the folder is too.
    const below = path.relative(repo, realpathSync(folder));
    const inWorktree = path.join(target, below);
    const cwd = below && !below.startsWith('..') && !path.isAbsolute(below) && existsSync(inWorktree) ? inWorktree : target;
    return this.chats.newChat(agent.name, undefined, cwd);
  }

  private notARepository(folder: string): undefined {
    this.log.info(`${folder} is not in a git repository: no worktree`);
    const newChat = vscode.l10n.t('New Chat');
    void vscode.window
      .showErrorMessage(
        vscode.l10n.t('{0} is not in a git repository, so a worktree cannot be made. A plain chat works in the folder itself.', folder),
        newChat,
      )
      .then((pick) => pick === newChat && vscode.commands.executeCommand('acp.newChat'));
    return undefined;
  }

  /** The agent: the default one first, so that Enter takes it. */
  private async pickAgent(): Promise<AgentConfig | undefined> {
    const settings = this.agents.catalog.read();
    if (settings.agents.length === 0) {
      void vscode.window.showErrorMessage(vscode.l10n.t('There is no agent to start: add one with "ACP: Add Agent from Registry…".'));
      return undefined;
    }
    const items = agentItems(settings.agents, settings.defaultAgent);
    const first = items.find((i) => i.agent?.name === settings.defaultAgent) ?? items.find((i) => i.agent);
    const picked = await pickOne(items, first, vscode.l10n.t('New Chat in Worktree (1/3): the agent'));
    return picked?.agent;
  }
}

/** The workspace folder to branch from: the only one, or the user's pick in a multi-root workspace. */
async function pickFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder in a git repository to start a chat in a worktree.'));
    return undefined;
  }
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Which folder’s repository gets the worktree?') });
  return picked?.uri.fsPath;
}

/** The base: the current branch first; with uncommitted work in the main checkout, the same base with it carried. */
async function pickBase(git: G.Git, repo: string): Promise<Base | undefined> {
  const current = await G.currentBranch(git, repo);
  const branches = await G.localBranches(git, repo);
  const dirty = (await G.status(git, repo)).length > 0;
  const head = current ?? 'HEAD';
  const items: (vscode.QuickPickItem & { base?: Base })[] = [
    { label: head, description: vscode.l10n.t('current branch'), base: { label: head, base: head, carry: false } },
    ...(dirty
      ? [
          {
            label: vscode.l10n.t('{0}, with uncommitted changes', head),
            description: vscode.l10n.t('Include uncommitted changes (tracked and untracked; the main checkout keeps them too)'),
            base: { label: head, base: head, carry: true },
          },
        ]
      : []),
    ...branches.filter((b) => b !== current).map((b) => ({ label: b, base: { label: b, base: b, carry: false } })),
  ];
  const picked = await pickOne(items, items[0], vscode.l10n.t('New Chat in Worktree (2/3): the base'));
  return picked?.base;
}

/** The new branch's name: `acp/<agent>-<n>` with the first free n, which Enter takes. */
async function pickBranchName(git: G.Git, repo: string, agent: string): Promise<string | undefined> {
  const existing = new Set(await G.localBranches(git, repo));
  const slug = branchSlug(agent).toLowerCase() || 'agent';
  let n = 1;
  while (existing.has(`acp/${slug}-${n}`) && n < 10_000) n++;
  const suggested = `acp/${slug}-${n}`;
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('New Chat in Worktree (3/3): the branch'),
    ignoreFocusOut: true,
    prompt: vscode.l10n.t('The new branch the agent works on'),
    value: suggested,
    validateInput: async (value) => {
      const name = value.trim();
      if (!name) return vscode.l10n.t('Name the branch.');
      if (!(await G.validBranchName(git, repo, name))) return vscode.l10n.t('Git does not take "{0}" as a branch name.', name);
      if (await G.branchExists(git, repo, name)) return vscode.l10n.t('There is a branch "{0}" already.', name);
      return undefined;
    },
  });
  return name?.trim() || undefined;
}

/** A name for a folder from a branch or an agent: letters, digits, dots, dashes and underscores. */
function branchSlug(name: string): string {
  const slug = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 80);
  return slug || 'worktree'; // a name of other letters only: never the folder of all worktrees itself
}

/** `folder`, or `folder-2`, `folder-3`, ... whichever does not exist yet. */
function freeFolder(folder: string): string {
  let candidate = folder;
  for (let n = 2; existsSync(candidate) && n < 1000; n++) candidate = `${folder}-${n}`;
  return candidate;
}

/** One pick from `items` with `active` highlighted, so that Enter takes it. */
function pickOne<T extends vscode.QuickPickItem>(items: readonly T[], active: T | undefined, title: string): Promise<T | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<T>();
    pick.title = title;
    // One of three steps: a chat tab that opens or takes the focus meanwhile does not cancel it (Escape does).
    pick.ignoreFocusOut = true;
    pick.items = items;
    if (active) pick.activeItems = [active];
    let done = false;
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!chosen) return; // Enter on nothing (the list is not there yet) does nothing
      done = true;
      resolve(chosen);
      pick.dispose();
    });
    pick.onDidHide(() => {
      if (!done) resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
