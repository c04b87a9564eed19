// `@changes` and `@commit`, through VS Code's Git extension (its API, extensions/git/src/api/git.d.ts): the
// uncommitted or staged diff of the repository that holds the chat's folder, and a commit picked from its log, with
// its message and its diff. Each is bounded like the other mentions (contextText.ts).
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { MAX_MENTION_BYTES } from './contextText';
import { textSize, type NewAttachment } from './prompt';

/** Commits the picker lists, newest first. */
const LOG_ENTRIES = 100;
/** Files of one commit whose diff is attached at most. */
const MAX_COMMIT_FILES = 300;
/** Git's empty tree: what a root commit is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** The part of the git extension's API this uses. */
interface GitApi {
  readonly repositories: readonly GitRepository[];
}
interface GitCommit {
  readonly hash: string;
  readonly message: string;
  readonly parents: readonly string[];
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly authorDate?: Date;
  readonly commitDate?: Date;
}
interface GitChange {
  readonly uri: vscode.Uri;
}
interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: { readonly HEAD?: { readonly commit?: string } };
  getCommit(ref: string): Promise<GitCommit>;
  diff(cached?: boolean): Promise<string>;
  log(options?: { maxEntries?: number }): Promise<GitCommit[]>;
  diffBetween(ref1: string, ref2: string): Promise<GitChange[]>;
  diffBetween(ref1: string, ref2: string, path: string): Promise<string>;
}

/** The git extension's API, or why it cannot be used. */
async function gitApi(): Promise<GitApi | string> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) return vscode.l10n.t('The Git extension is not available, so the changes cannot be read.');
  if (vscode.workspace.getConfiguration('git').get<boolean>('enabled') === false)
    return vscode.l10n.t('Git is turned off in VS Code ("git.enabled"), so the changes cannot be read.');
  return (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
}

/** The repository that holds `folder` (the deepest one); else the ones inside it; else the only one there is. */
function repositoriesFor(git: GitApi, folder: string | undefined): GitRepository[] {
  const inside = (path: string, root: string) => path === root || path.startsWith(`${root}/`);
  const holding = [...git.repositories]
    .filter((r) => folder !== undefined && inside(folder, r.rootUri.fsPath))
    .sort((a, b) => b.rootUri.fsPath.length - a.rootUri.fsPath.length)
    .slice(0, 1);
  const within = [...git.repositories]
    .filter((r) => folder !== undefined && inside(r.rootUri.fsPath, folder))
    .sort((a, b) => a.rootUri.fsPath.localeCompare(b.rootUri.fsPath));
  return holding.length > 0 ? holding : within.length > 0 ? within : git.repositories.length === 1 ? [...git.repositories] : [];
}

const NOT_IN_GIT = () => vscode.l10n.t('This workspace folder is not in a Git repository that VS Code has open, so there are no changes to attach.');

/** `@changes` (the uncommitted diff) or `@changes:staged`. */
export async function changesAttachment(staged: boolean, cwd: string | undefined): Promise<NewAttachment | string> {
  const git = await gitApi();
  if (typeof git === 'string') return git;
  const folder = cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const repositories = repositoriesFor(git, folder);
  if (repositories.length === 0) return NOT_IN_GIT();
  const diffs: string[] = [];
  let size = 0;
  for (const repository of repositories) {
    const diff = await repository.diff(staged);
    if (diff.trim() === '') continue;
    // Several repositories: each diff under its folder, as the paths in it are the repository's own.
    const text = repositories.length > 1 ? `# ${vscode.workspace.asRelativePath(repository.rootUri)}\n${diff}` : diff;
    size += textSize(text);
    if (size > MAX_MENTION_BYTES) return vscode.l10n.t('The changes are over {0} MB, too large to attach.', MAX_MENTION_BYTES / 1024 / 1024);
    diffs.push(text);
  }
  if (diffs.length === 0)
    return staged ? vscode.l10n.t('Nothing is staged.') : vscode.l10n.t('There are no uncommitted changes (untracked files are not included).');
  const root = repositories.length === 1 ? repositories[0]!.rootUri.fsPath : (folder ?? repositories[0]!.rootUri.fsPath);
  return {
    kind: 'changes',
    label: staged ? vscode.l10n.t('Staged changes') : vscode.l10n.t('Uncommitted changes'),
    text: diffs.join('\n'),
    uri: `${pathToFileURL(root).href}?${staged ? 'staged' : 'changes'}`,
    mimeType: 'text/x-diff',
    size,
  };
}

/**
 * The repository whose log to pick from: the only one with commits, else the one the user picks among them, the most
 * recently committed first.
 */
async function pickRepository(repositories: readonly GitRepository[]): Promise<GitRepository | string> {
  const dated = await Promise.all(
    repositories.map(async (repository) => {
      const head = repository.state.HEAD?.commit;
      const commit = head ? await repository.getCommit(head).catch(() => undefined) : undefined;
      return { repository, date: commit ? (commit.commitDate ?? commit.authorDate ?? new Date(0)) : undefined };
    }),
  );
  const withCommits = dated.filter((d) => d.date !== undefined).sort((a, b) => b.date!.getTime() - a.date!.getTime());
  if (withCommits.length === 0) return vscode.l10n.t('The repository has no commits yet.');
  if (withCommits.length === 1) return withCommits[0]!.repository;
  const pick = await vscode.window.showQuickPick(
    withCommits.map(({ repository, date }) => ({
      label: vscode.workspace.asRelativePath(repository.rootUri),
      description: date!.toLocaleString(),
      repository,
    })),
    { ignoreFocusOut: true, title: vscode.l10n.t('Attach a Commit'), placeHolder: vscode.l10n.t('Pick the repository') },
  );
  return pick?.repository ?? vscode.l10n.t('No repository was picked.');
}

/** `@commit`: a commit the user picks from the log of the chat's repository, with its message and its diff. */
export async function commitAttachment(cwd: string | undefined): Promise<NewAttachment | string> {
  const git = await gitApi();
  if (typeof git === 'string') return git;
  const repositories = repositoriesFor(git, cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  if (repositories.length === 0) return NOT_IN_GIT();
  const repository = await pickRepository(repositories);
  if (typeof repository === 'string') return repository;
  const commits = await repository.log({ maxEntries: LOG_ENTRIES });
  if (commits.length === 0) return vscode.l10n.t('The repository has no commits yet.');
  const pick = await vscode.window.showQuickPick(
    commits.map((c) => ({
      label: c.message.split('\n')[0] ?? c.hash,
      description: c.hash.slice(0, 8),
      detail: [c.authorName, c.authorDate?.toLocaleString()].filter(Boolean).join(' · '),
      commit: c,
    })),
    {
      ignoreFocusOut: true,
      title: vscode.l10n.t('Attach a Commit'),
      placeHolder: vscode.l10n.t('Pick the commit whose message and diff the agent gets'),
      matchOnDescription: true,
    },
  );
  if (!pick) return vscode.l10n.t('No commit was picked.');
  const c = pick.commit;
  const parent = c.parents[0] ?? EMPTY_TREE;
  const header = [
    `commit ${c.hash}`,
    ...(c.authorName ? [`Author: ${c.authorName}${c.authorEmail ? ` <${c.authorEmail}>` : ''}`] : []),
    ...(c.authorDate ? [`Date:   ${c.authorDate.toISOString()}`] : []),
    '',
    ...c.message.split('\n').map((line) => `    ${line}`),
    '',
  ].join('\n');
  const parts = [header];
  let size = textSize(header);
  const changes = await repository.diffBetween(parent, c.hash);
  for (const change of changes.slice(0, MAX_COMMIT_FILES)) {
    const diff = await repository.diffBetween(parent, c.hash, change.uri.fsPath);
    size += textSize(diff) + 1;
    if (size > MAX_MENTION_BYTES)
      return vscode.l10n.t('The commit {0} changes over {1} MB, too large to attach.', c.hash.slice(0, 8), MAX_MENTION_BYTES / 1024 / 1024);
    parts.push(diff);
  }
  if (changes.length > MAX_COMMIT_FILES) parts.push(`[${changes.length - MAX_COMMIT_FILES} more files changed; their diffs are left out]`);
  const text = parts.join('\n');
  return {
    kind: 'commit',
    label: vscode.l10n.t('Commit {0}: {1}', c.hash.slice(0, 8), pick.label.slice(0, 60)),
    text,
    uri: `${pathToFileURL(repository.rootUri.fsPath).href}?commit=${c.hash}`,
    mimeType: 'text/x-diff',
    size: textSize(text),
  };
}
