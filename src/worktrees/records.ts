// The worktrees this extension made for chats, kept in the workspace's state: where each is, its repository, its
// branch and the base it started from, and the chat in it. They outlive a reload (a chat restored in a worktree keeps
// working there) and are what Clean Up Worktrees offers. A record whose folder is gone is not a chat's folder.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ChatFolders, WorktreePlace } from '../common/chatFolders';
import { isWithin } from '../common/paths';

const KEY = 'acp.worktrees';
/** Far more than the setting allows: a bound on what a damaged state can hold. */
const MAX_RECORDS = 256;

export const WorktreeRecord = z.object({
  /** The worktree's folder. */
  path: z.string().min(1).max(4096),
  /** The main checkout's top folder (the repository the worktree belongs to). */
  repo: z.string().min(1).max(4096),
  /** Its git folder, asked when it was made: git is pointed at it, never at what the worktree's `.git` file says. */
  gitDir: z.string().min(1).max(4096),
  branch: z.string().min(1).max(255),
  /** The base as the user picked it (a branch name), and its commit when the worktree was made. */
  base: z.string().min(1).max(255),
  baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/),
  createdAt: z.number(),
  /** The chat working there: its agent, and its session once it has one. */
  agent: z.string().max(200),
  sessionId: z.string().max(1000).optional(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecord>;

/** Where a worktree's branch stands: commits ahead of its base, and lines changed from the base (committed or not). */
export interface WorktreeStats {
  readonly ahead: number;
  readonly added: number;
  readonly removed: number;
}

export class WorktreeRecords implements ChatFolders, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** The last figures read from git, by folder (worked out again as chats work; not kept). */
  private readonly figures = new Map<string, WorktreeStats>();
  /** A worktree was made or removed, or its chat changed. */
  readonly onDidChange = this.changeEmitter.event;

  /** The records, read once (damaged ones left out); only this class writes them, through `write`. */
  private records: readonly WorktreeRecord[];

  constructor(private readonly state: vscode.Memento) {
    const parsed = z.array(z.unknown()).max(MAX_RECORDS).safeParse(state.get<unknown>(KEY));
    this.records = parsed.success
      ? parsed.data.flatMap((item) => {
          const record = WorktreeRecord.safeParse(item);
          return record.success ? [record.data] : [];
        })
      : [];
  }

  /** Every record kept. */
  all(): readonly WorktreeRecord[] {
    return this.records;
  }

  /** The worktree `folder` is, or is in (a chat works in the worktree's copy of its workspace folder). */
  find(folder: string): WorktreeRecord | undefined {
    // The innermost, should one ever be inside another.
    return this.all()
      .filter((r) => isWithin(r.path, folder))
      .sort((a, b) => b.path.length - a.path.length)[0];
  }

  /** Whether `folder` is or was a worktree made for chats (its folder may be gone): such a chat works nowhere else. */
  wasWorktree(folder: string): boolean {
    return this.find(folder) !== undefined;
  }

  /** The record of the chat of `agent` whose session is `sessionId`. */
  ofChat(agent: string, sessionId: string): WorktreeRecord | undefined {
    return this.all().find((r) => r.agent === agent && r.sessionId === sessionId);
  }

  worktreeOf(folder: string): WorktreePlace | undefined {
    const record = this.find(folder);
    return record && { path: record.path, branch: record.branch, checkout: record.repo };
  }

  isWorktree(folder: string): boolean {
    return this.find(folder) !== undefined && existsSync(folder);
  }

  async add(record: WorktreeRecord): Promise<void> {
    await this.write([...this.all().filter((r) => r.path !== record.path), record]);
  }

  /** Notes the chat now working in `folder`. */
  async setChat(folder: string, agent: string, sessionId: string): Promise<void> {
    const record = this.find(folder);
    if (!record || (record.agent === agent && record.sessionId === sessionId)) return;
    await this.write(this.records.map((r) => (r.path === record.path ? { ...r, agent, sessionId } : r)));
  }

  stats(folder: string): WorktreeStats | undefined {
    return this.figures.get(folder);
  }

  setStats(folder: string, stats: WorktreeStats): void {
    const old = this.figures.get(folder);
    if (old && old.ahead === stats.ahead && old.added === stats.added && old.removed === stats.removed) return;
    this.figures.set(folder, stats);
    this.changeEmitter.fire();
  }

  async remove(folder: string): Promise<void> {
    this.figures.delete(folder);
    await this.write(this.all().filter((r) => r.path !== folder));
  }

  private async write(records: readonly WorktreeRecord[]): Promise<void> {
    this.records = records.slice(-MAX_RECORDS);
    await this.state.update(KEY, this.records);
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
