// Checkpoints for every chat: the shadow repositories (one per workspace folder, in the extension's global storage,
// never the user's own .git), the git they run with, the record kept instead when there is no git, and one tracker
// per chat session. The cards, Review Changes, the decorations and the Sessions view all read the trackers here.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename, delimiter, join, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import { tagged, type Logger } from '../acp/log';
import type { SessionModel } from '../acp/sessionModel';
import { workspaceRoots } from '../common/workspace';
import { editorIO } from './io';
import { ABSENT, ClientRecord, GitSnapshotter, type FileState, type Snapshotter, type TrackedFile } from './points';
import { ShadowRepo } from './shadowGit';
import { ChatCheckpoints, type TrackerDeps } from './tracker';
import { fileTurnStore, removeTurnStore } from './turnStore';
import { disposeAll } from '../common/disposables';
import { failureText } from '../common/failureText';

/** Checkpoints older than this, or beyond this many, are pruned when a repository opens. */
const KEEP_REFS = 400;
const KEEP_MS = 14 * 24 * 60 * 60 * 1000;

/** One chat session's checkpoints, as the owner keeps them. Disposing it stops tracking the session. */
export interface TrackedChat extends vscode.Disposable {
  readonly tracker: ChatCheckpoints;
  /** The chat's title, for tooltips ("Changed by …"). */
  readonly title: () => string;
  /** Which agent's session (`chatKey`): its checkpoints' refs and kept turns are under it. */
  readonly key: string;
}

/**
 * One chat's name for its checkpoints, feedback and kept turns: the agent and the session, since two agents may
 * give their sessions the same id.
 */
export function chatKey(agent: string, sessionId: string): string {
  return JSON.stringify([agent, sessionId]);
}

export class Checkpoints implements vscode.Disposable {
  private readonly log: Logger;
  private readonly repos = new Map<string, Promise<ShadowRepo>>();
  private readonly chats = new Set<TrackedChat>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** A chat's changes changed (a turn ended, a card was kept or undone), or a chat came or went. */
  readonly onDidChange = this.changeEmitter.event;
  private toldNoGit = false;

  constructor(
    private readonly storage: vscode.Uri,
    private readonly rootLog: Logger,
  ) {
    this.log = tagged(rootLog, 'checkpoints');
  }

  /**
   * Starts tracking the turns of a chat session in `folders` (the workspace folders, or a worktree chat's worktree);
   * the caller disposes the tracker with the session.
   */
  track(
    agent: string,
    sessionId: string,
    title: () => string,
    userMessages: readonly number[] = [],
    folders: readonly string[] = workspaceRoots(),
  ): TrackedChat {
    const key = chatKey(agent, sessionId);
    const deps: TrackerDeps = {
      snapshotter: this.snapshotter(folders),
      io: editorIO,
      label: labelOf,
      words: noteWords,
      log: this.log,
      refPrefix: refSafe(key),
      store: fileTurnStore(this.turnsFile(key), this.log),
      userMessages,
    };
    const tracker = new ChatCheckpoints(deps);
    const changed = tracker.onDidChange(() => this.changeEmitter.fire());
    const chat: TrackedChat = {
      tracker,
      title,
      key,
      dispose: () => {
        if (!this.chats.delete(chat)) return;
        changed.dispose();
        tracker.dispose();
        this.changeEmitter.fire();
      },
    };
    this.chats.add(chat);
    return chat;
  }

  get tracked(): readonly TrackedChat[] {
    return [...this.chats];
  }

  /** The tracker of a chat, by its key (`chatKey`) or by its agent and session, if it is open. */
  of(key: string): ChatCheckpoints | undefined;
  of(agent: string, sessionId: string): ChatCheckpoints | undefined;
  of(keyOrAgent: string, sessionId?: string): ChatCheckpoints | undefined {
    const key = sessionId === undefined ? keyOrAgent : chatKey(keyOrAgent, sessionId);
    return [...this.chats].find((c) => c.key === key)?.tracker;
  }

  /**
   * Runs the client's write of a file for an agent. Where there is no git to see it, the record keeps the file's text
   * before and after; with git, the write is simply run (the next checkpoint sees it).
   */
  async aroundWrite<T>(agent: string, sessionId: string, path: string, content: string, write: () => Promise<T>): Promise<T> {
    const snapshotter = await this.of(agent, sessionId)?.snapshotter();
    const file = typeof path === 'string' ? locate(path) : undefined;
    if (!(snapshotter instanceof ClientRecord) || !file) return write();
    // A file that could not be read is not known to be absent: its write is kept, but Undo will not delete it.
    const before = await editorIO.current(file).then(
      (state) => ({ state, witnessed: true }),
      () => ({ state: ABSENT, witnessed: false }),
    );
    const result = await write();
    snapshotter.wrote(file, before.state, { exists: true, bytes: Buffer.from(content, 'utf8') }, before.witnessed);
    return result;
  }

  private turnsFile(name: string): string {
    return join(this.storage.fsPath, 'checkpoints', 'chats', `${refSafe(name)}.json`);
  }

  /** A chat's history was deleted: its checkpoints go too. */
  async forget(agent: string, sessionId: string): Promise<void> {
    const key = chatKey(agent, sessionId);
    await removeTurnStore(this.turnsFile(key)).catch(() => {});
    for (const repo of this.repos.values()) {
      await repo
        .then((r) => r.deleteRefs(refSafe(key)))
        .catch((error: unknown) => this.log.warn(`could not delete checkpoints: ${errorMessage(error)}`));
    }
  }

  /** The repository a snapshot is read from, for the checkpoint documents. */
  repoFor(folder: string): Promise<ShadowRepo> | undefined {
    return this.repos.get(folder);
  }

  private snapshotter(folders: readonly string[]): Promise<Snapshotter | undefined> {
    if (folders.length === 0) return Promise.resolve(undefined);
    return (async (): Promise<Snapshotter> => {
      const git = await this.findGit();
      if (!git) {
        this.tellNoGit(
          vscode.l10n.t(
            'Git was not found, so checkpoints track only the files written through the chat, not changes the agent or its commands make on disk.',
          ),
        );
        return new ClientRecord();
      }
      try {
        const repos = new Map<string, ShadowRepo>();
        for (const folder of folders) repos.set(folder, await this.repo(git, folder));
        return new GitSnapshotter(repos, (root) => this.repo(git, root));
      } catch (error) {
        this.tellNoGit(
          vscode.l10n.t('Checkpoints could not use git ({0}), so they track only the files written through the chat.', failureText(error)),
        );
        return new ClientRecord();
      }
    })();
  }

  private repo(git: string, folder: string): Promise<ShadowRepo> {
    const known = this.repos.get(folder);
    if (known) return known;
    const gitDir = join(this.storage.fsPath, 'checkpoints', `${createHash('sha256').update(folder).digest('hex').slice(0, 16)}.git`);
    const repo = ShadowRepo.open({ git, gitDir, workTree: folder, log: this.rootLog }); // it tags its own lines;
    this.repos.set(folder, repo);
    repo.then(
      (r) =>
        r
          .prune({ keep: KEEP_REFS, maxAgeMs: KEEP_MS })
          .then((dropped) => dropped > 0 && this.log.info(`pruned ${dropped} old checkpoints of ${folder}`))
          .catch((error: unknown) => this.log.warn(`could not prune the checkpoints of ${folder}: ${errorMessage(error)}`)),
      () => this.repos.delete(folder), // the next chat tries again
    );
    return repo;
  }

  /** The git of VS Code's git extension, else `git` on PATH: looked up for each chat, so an install is seen. */
  private findGit(): Promise<string | undefined> {
    return findGit(this.log);
  }
  private tellNoGit(message: string): void {
    this.log.warn(message);
    if (this.toldNoGit) return;
    this.toldNoGit = true;
    void vscode.window.showWarningMessage(message);
  }

  dispose(): void {
    disposeAll(this.chats);
    // Each repository is disposed (its git processes stopped) as soon as it has opened, not after the slowest; one
    // that failed to open holds nothing.
    for (const repo of this.repos.values()) void repo.then((opened) => disposeAll([opened])).catch(() => {});
    this.changeEmitter.dispose();
  }
}

interface GitApi {
  readonly git: { readonly path: string };
}

/** The user's git: the git extension's `git.path`, else the first in PATH; undefined when there is none. */
export async function findGit(log: Logger): Promise<string | undefined> {
  try {
    const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
    if (extension && vscode.workspace.getConfiguration('git').get<boolean>('enabled', true)) {
      const exports = extension.isActive ? extension.exports : await extension.activate();
      const path = exports.getAPI(1).git.path;
      if (path && (await executable(path))) return path;
    }
  } catch (error) {
    log.debug(`the git extension did not say where git is: ${errorMessage(error)}`);
  }
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd'] : ['git'];
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) if (await executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Without git, the diffs the agent showed in the turn that just ended are what is known of the files it changed
 * itself: the record takes them (the turn is the one since the model's last user message), to show, not to undo.
 */
export function noteToolDiffs(snapshotter: Snapshotter, model: SessionModel): void {
  if (!(snapshotter instanceof ClientRecord)) return;
  let start = model.entries.length;
  while (start > 0) {
    const entry = model.entries[start - 1];
    if (entry?.type === 'message' && entry.role === 'user') break;
    start--;
  }
  for (const entry of model.entries.slice(start)) {
    if (entry.type !== 'tool') continue;
    for (const content of entry.call.content) {
      if (content.type !== 'diff') continue;
      const file = locate(content.path);
      if (!file) continue;
      const before: FileState = content.oldText == null ? ABSENT : { exists: true, bytes: Buffer.from(content.oldText, 'utf8') };
      // Only reported: shown in the card and Review, never written back (the agent says what the file held).
      snapshotter.wrote(file, before, { exists: true, bytes: Buffer.from(content.newText, 'utf8') }, false);
    }
  }
}

/** A session id as a ref name's component: what git allows, and nothing that could climb out. */
function refSafe(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  return `${safe || 'session'}-${createHash('sha256').update(sessionId).digest('hex').slice(0, 8)}`;
}

/** The workspace folder a path is in, and its path there. */
function locate(path: string): TrackedFile | undefined {
  for (const folder of workspaceRoots()) {
    const rel = relative(folder, path);
    if (rel && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) return { folder, rel: rel.split(sep).join('/') };
  }
  return undefined;
}

/** How the chat names a file: its path in its workspace folder, after the folder's name in a multi-root workspace. */
export function labelOf(file: TrackedFile): string {
  const folders = vscode.workspace.workspaceFolders ?? [];
  // A file of a nested repository is named from the workspace folder it is in, like any other.
  const inside = folders.find((f) => f.uri.fsPath === file.folder) ?? folders.find((f) => file.folder.startsWith(f.uri.fsPath + sep));
  const base = inside ? relative(inside.uri.fsPath, file.folder).split(sep).filter(Boolean) : [];
  const path = [...base, file.rel].join('/');
  if (folders.length <= 1) return path;
  return `${inside?.name ?? basename(file.folder)}/${path}`;
}

const noteWords: TrackerDeps['words'] = {
  skipped(large, binary, budget) {
    const parts: string[] = [];
    const list = (names: readonly string[]) => names.slice(0, 5).join(', ') + (names.length > 5 ? ' …' : '');
    if (budget.length > 0) parts.push(vscode.l10n.t('This turn changed more than 256 MB, so not all of it was checkpointed: {0}.', list(budget)));
    if (large.length > 0) parts.push(vscode.l10n.t('Not tracked, over 1 MB: {0}.', large.slice(0, 5).join(', ') + (large.length > 5 ? ' …' : '')));
    if (binary.length > 0) parts.push(vscode.l10n.t('Not tracked, binary: {0}.', binary.slice(0, 5).join(', ') + (binary.length > 5 ? ' …' : '')));
    return parts.join(' ');
  },
  clientOnly: () =>
    vscode.l10n.t('Git was not found: only files written through the chat can be undone. Changes the agent only showed can be reviewed.'),
  early: () => vscode.l10n.t('The first checkpoint was still being taken when this turn began.'),
  failed: (reason) => vscode.l10n.t('The changes could not be measured: {0}.', reason),
};
