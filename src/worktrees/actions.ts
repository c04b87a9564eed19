// What the user does with a worktree chat's work: review it against its base, apply it to the main checkout (as
// uncommitted changes or as a merge of its branch), commit it on its branch, or discard the worktree. Nothing of the
// user's main checkout is touched without their action, and their uncommitted work there is never overwritten: a
// file that would be is named, and stashed only with their consent.
import { existsSync, promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { failureText } from '../common/failureText';
import { confirmPick } from './confirm';
import * as G from './git';
import type { WorktreeRecord } from './records';

export const BASE_SCHEME = 'acp-worktree-base';
/** How many file names a question lists before "and N more". */
const LISTED = 8;
/** Files larger than this are taken as different without reading them (the apply then asks, as for any other). */
const MAX_COMPARED_BYTES = 16 * 1024 * 1024;

const BaseFile = z.object({ folder: z.string(), commit: z.string().regex(/^[0-9a-f]{40,64}$/), rel: z.string() });

/** A worktree's file as it was at its base commit, read with `git show` (empty when the base did not have it). */
export class WorktreeBaseDocuments implements vscode.TextDocumentContentProvider {
  /** `git`: the user's git for a worktree made for chats, undefined for any other folder. */
  constructor(private readonly git: (folder: string) => Promise<G.Git | undefined>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = BaseFile.safeParse(safeJson(uri.query));
    const git = parsed.success ? await this.git(parsed.data.folder) : undefined;
    if (!parsed.success || !git) return '';
    const { folder, commit, rel } = parsed.data;
    const { code, stdout } = await git.exit(folder, ['show', `${commit}:${rel}`]);
    return code === 0 ? stdout : '';
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).join(', ');
  return names.length > LISTED ? vscode.l10n.t('{0} and {1} more', shown, names.length - LISTED) : shown;
}

/** Review Worktree Changes: the multi-file diff from the base to the worktree, committed and uncommitted together. */
export async function reviewWorktree(git: G.Git, record: WorktreeRecord): Promise<void> {
  const files = await G.changedFiles(git, record.path, record.baseCommit);
  if (files.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The worktree of {0} has no changes from {1}.', record.branch, record.base));
    return;
  }
  const resources = files.map((file) => {
    const uri = vscode.Uri.file(path.join(record.path, file.path));
    const base = vscode.Uri.from({
      scheme: BASE_SCHEME,
      path: uri.path,
      query: JSON.stringify({ folder: record.path, commit: record.baseCommit, rel: file.path }),
    });
    return [uri, file.kind === 'added' ? undefined : base, file.kind === 'deleted' ? undefined : uri] as const;
  });
  await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Worktree {0} ↔ {1}', record.branch, record.base), resources);
}

/** What an apply did: applied (maybe with conflicts left to resolve), or nothing (cancelled, nothing to do, failed). */
export type Applied = 'applied' | 'conflicts' | undefined;

/**
 * Apply Worktree Changes: the worktree's changes into the main checkout, as uncommitted changes (`changes`) or by
 * merging its branch (`merge`). The user's uncommitted work in files the apply would change is asked about first.
 */
export async function applyWorktree(git: G.Git, record: WorktreeRecord, as: 'changes' | 'merge', log: Logger): Promise<Applied> {
  let safe: Safe = false;
  try {
    if (as === 'merge') {
      const uncommitted = await G.status(git, record.path);
      if (uncommitted.length > 0) {
        const commitFirst = await confirmPick(
          vscode.l10n.t('Merge {0}', record.branch),
          vscode.l10n.t('Commit in Worktree First'),
          vscode.l10n.t('The worktree has {0} uncommitted files, which a merge of {1} would leave out.', uncommitted.length, record.branch),
          uncommitted.map((e) => e.path),
        );
        if (!commitFirst || !(await commitWorktree(git, record, undefined))) return undefined;
      }
    }
    const changed = as === 'merge' ? await branchFiles(git, record) : (await G.changedFiles(git, record.path, record.baseCommit)).map((f) => f.path);
    if (changed.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The worktree of {0} has nothing to apply.', record.branch));
      return undefined;
    }
    // As changes, a file the main checkout already has as the worktree does (uncommitted work carried into the
    // worktree when it was made) is left out: there is nothing to bring, and the user's copy is not at risk.
    const same = as === 'changes' ? await alreadyThere(record, changed) : [];
    const touched = changed.filter((f) => !same.includes(f));
    if (touched.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The main checkout already has the changes of {0}.', record.branch));
      return 'applied';
    }
    // The patch is made before anything of the user's is stashed: a patch that cannot be made stashes nothing.
    const patch = as === 'changes' ? await G.worktreePatch(git, record.path, record.baseCommit, same) : undefined;
    safe = await userWorkIsSafe(git, record, touched);
    if (!safe) return undefined;
    return patch === undefined ? await merge(git, record) : await applyPatch(git, record, patch);
  } catch (error) {
    log.error(`applying ${record.branch} failed: ${errorMessage(error)}`);
    // Stashed, then the apply failed: the user's changes are still safe in the stash, and the message says where.
    const where =
      safe === 'stashed' ? ' ' + vscode.l10n.t('Your own changes are in the stash "{0}"; "git stash pop" brings them back.', stashName(record)) : '';
    void vscode.window.showErrorMessage(vscode.l10n.t('The worktree changes could not be applied: {0}', failureText(error)) + where);
    return undefined;
  }
}

/** Whether applying may go on: `safe`, or `stashed` when the user's own changes were stashed first; false when not. */
type Safe = 'safe' | 'stashed' | false;

function stashName(record: WorktreeRecord): string {
  return `acp: before applying ${record.branch}`;
}

/** Files whose bytes are the same in the main checkout as in the worktree (both absent counts as the same). */
async function alreadyThere(record: WorktreeRecord, files: readonly string[]): Promise<string[]> {
  const same: string[] = [];
  for (const rel of files) {
    if (await sameFile(path.join(record.repo, rel), path.join(record.path, rel))) same.push(rel);
  }
  return same;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.lstat(a).catch(() => undefined), fs.lstat(b).catch(() => undefined)]);
  if (!sa || !sb) return !sa && !sb;
  if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size || sa.size > MAX_COMPARED_BYTES) return false;
  if ((sa.mode & 0o111) !== (sb.mode & 0o111)) return false; // the agent made it executable: a change to bring
  const [ba, bb] = await Promise.all([fs.readFile(a), fs.readFile(b)]);
  return ba.equals(bb);
}

/** The files the branch changed since its base. */
async function branchFiles(git: G.Git, record: WorktreeRecord): Promise<string[]> {
  const out = await git.run(record.repo, ['diff', '--name-only', '-z', record.baseCommit, record.branch, '--']);
  return out.split('\0').filter(Boolean);
}

/**
 * Whether applying may go on: none of `touched` has unsaved edits in an editor, and none has uncommitted changes in
 * the main checkout, or the user agreed to stash those first (and they were).
 */
async function userWorkIsSafe(git: G.Git, record: WorktreeRecord, touched: readonly string[]): Promise<Safe> {
  const wanted = new Set(touched);
  const unsaved = vscode.workspace.textDocuments
    .filter((d) => d.isDirty && d.uri.scheme === 'file')
    .map((d) => path.relative(record.repo, d.uri.fsPath).split(path.sep).join('/'))
    .filter((rel) => wanted.has(rel));
  if (unsaved.length > 0) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('You have unsaved changes in {0}, which applying would change. Save or revert them first; nothing was applied.', listed(unsaved)),
    );
    return false;
  }
  const dirty = (await G.status(git, record.repo)).map((e) => e.path).filter((p) => wanted.has(p));
  if (dirty.length === 0) return 'safe';
  const stash = await confirmPick(
    vscode.l10n.t('You have uncommitted changes in {0}, which applying would overwrite.', listed(dirty)),
    vscode.l10n.t('Stash My Changes and Apply'),
    vscode.l10n.t('Stashing keeps them in git\u2019s stash ("git stash pop" brings them back). Cancel leaves everything as it is.'),
    dirty,
  );
  if (!stash) return false;
  const stashing = G.withPaths(['stash', 'push', '--include-untracked', '--message', stashName(record)], dirty);
  await git.run(record.repo, stashing.args, { input: stashing.input, slow: true }).catch((error: unknown) => {
    throw new WorktreeStepError('stash', errorMessage(error));
  });
  void vscode.window.showInformationMessage(vscode.l10n.t('Your changes in {0} are in the stash "{1}".', listed(dirty), stashName(record)));
  return 'stashed';
}

/** A git step of a worktree action failed: a fact the command words (worktrees.ts); `detail` is git's own. */
export class WorktreeStepError extends Error {
  override readonly name = 'WorktreeStepError';
  constructor(
    readonly step: 'stash' | 'apply',
    readonly detail: string,
  ) {
    super(`git ${step} failed: ${detail}`);
  }
}

/** The worktree's changes as uncommitted changes in the main checkout: a plain apply, else a three-way one. */
async function applyPatch(git: G.Git, record: WorktreeRecord, patch: string): Promise<Applied> {
  const clean = await git.exit(record.repo, ['apply', '--binary', '--whitespace=nowarn', '--check'], { input: patch });
  if (clean.code === 0) {
    await git.run(record.repo, ['apply', '--binary', '--whitespace=nowarn'], { input: patch });
    return 'applied';
  }
  // The main checkout moved on: a three-way apply merges what it can and marks the rest as conflicts.
  const threeWay = await git.exit(record.repo, ['apply', '--binary', '--whitespace=nowarn', '--3way'], { input: patch });
  if (threeWay.code === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Your checkout had moved on since {0} began, so its changes were merged three-way, and git staged them.', record.branch),
    );
    return 'applied';
  }
  return (await openConflicts(git, record)) ? 'conflicts' : Promise.reject(new WorktreeStepError('apply', `exit code ${threeWay.code}`));
}

async function merge(git: G.Git, record: WorktreeRecord): Promise<Applied> {
  const merged = await git.exit(record.repo, ['merge', '--no-edit', record.branch]);
  if (merged.code === 0) return 'applied';
  return (await openConflicts(git, record)) ? 'conflicts' : Promise.reject(new Error(`git merge ${record.branch} failed`));
}

/** Opens the first conflicted file of the main checkout in the merge editor; false when there is none. */
async function openConflicts(git: G.Git, record: WorktreeRecord): Promise<boolean> {
  const conflicted = (await G.status(git, record.repo)).filter((e) => /^(DD|AU|UD|UA|DU|AA|UU)$/.test(e.code)).map((e) => e.path);
  if (conflicted.length === 0) return false;
  void vscode.window.showWarningMessage(
    vscode.l10n.t('Applying {0} left conflicts in {1}. Resolve them in the merge editor.', record.branch, listed(conflicted)),
  );
  const first = vscode.Uri.file(path.join(record.repo, conflicted[0]!));
  await vscode.commands.executeCommand('git.openMergeEditor', first).then(undefined, () => vscode.window.showTextDocument(first));
  return true;
}

/**
 * Commit in Worktree: the worktree's changes committed on its branch, with a message the user edits (`suggested`:
 * the chat's title and what was asked). False when nothing was committed.
 */
export async function commitWorktree(git: G.Git, record: WorktreeRecord, suggested: string | undefined): Promise<boolean> {
  if ((await G.status(git, record.path)).length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The worktree of {0} has nothing to commit.', record.branch));
    return false;
  }
  const message = await vscode.window.showInputBox({
    title: vscode.l10n.t('Commit in Worktree {0}', record.branch),
    prompt: vscode.l10n.t('The commit message'),
    value: suggested ?? vscode.l10n.t('Changes from the worktree chat'),
    validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Write a commit message.')),
    ignoreFocusOut: true, // a chat that takes the focus as its turn ends must not throw the message away
  });
  if (!message?.trim()) return false;
  await git.run(record.path, ['add', '--all']);
  await git.run(record.path, ['commit', '--quiet', '--file', '-'], { input: message.trim() + '\n' });
  return true;
}

/**
 * What discarding the worktree would lose: its commits not on the base, its uncommitted files, and the files git
 * ignores there (build output, installed packages, a local .env), which the removal deletes too (folders as one).
 */
export async function whatWouldBeLost(git: G.Git, record: WorktreeRecord): Promise<{ commits: string[]; files: string[]; ignored: string[] }> {
  // A failure says so (and stops the removal): never "nothing is lost" because git could not be asked.
  const commits = (await G.branchExists(git, record.repo, record.branch))
    ? await G.commitsNotOn(git, record.repo, record.baseCommit, record.branch)
    : [];
  const there = existsSync(record.path);
  const files = there ? (await G.status(git, record.path)).map((e) => e.path) : [];
  const ignored = there ? await G.ignoredEntries(git, record.path) : [];
  return { commits, files, ignored };
}

/** Removes the worktree's folder and its branch with git's own commands. */
export async function removeWorktree(git: G.Git, record: WorktreeRecord, deleteBranch: boolean): Promise<void> {
  const listed = await G.worktreeList(git, record.repo);
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : path.resolve(p));
  if (listed.some((w) => real(w.path) === real(record.path))) {
    await git.run(record.repo, ['worktree', 'remove', '--force', record.path]);
  } else {
    await git.run(record.repo, ['worktree', 'prune']);
  }
  if (deleteBranch && (await G.branchExists(git, record.repo, record.branch))) await git.run(record.repo, ['branch', '-D', record.branch]);
}
