// Where a chat may work: a workspace folder, or a worktree made for chats (src/worktrees). A chat reopened after a
// reload or a restart keeps its folder while it is still one of these; a worktree chat's path policy holds it to
// its worktree instead of the workspace folders.
import { workspaceRoots } from './workspace';

export interface WorktreePlace {
  readonly path: string;
  readonly branch: string;
  readonly checkout: string;
}

/** The worktrees made for chats, as the chats see them. */
export interface ChatFolders {
  /** Whether `folder` is a worktree made for chats that is still there. */
  isWorktree(folder: string): boolean;
  /** Whether it is or was one (its folder may be gone). */
  wasWorktree(folder: string): boolean;
  /** The worktree `folder` is, or is in: its folder, its branch, and the main checkout it mirrors (the repository's top). */
  worktreeOf(folder: string): WorktreePlace | undefined;
}

/**
 * The folder a chat works in: `wanted` while it is a workspace folder or a worktree of `folders`, else the first
 * workspace folder; undefined when there is none, or `wanted` was a worktree that is gone.
 */
export function chatFolder(folders: ChatFolders, wanted: string | undefined): string | undefined {
  const roots = workspaceRoots();
  if (wanted !== undefined && (roots.includes(wanted) || folders.isWorktree(wanted))) return wanted;
  // A worktree chat whose worktree is gone works nowhere: never in the main checkout in its place.
  if (wanted !== undefined && folders.wasWorktree(wanted)) return undefined;
  return roots[0];
}

/** The folders that stand for the workspace in the path policy of a chat in `cwd`: its worktree alone, else undefined (the workspace's). */
export function policyFolders(folders: ChatFolders, cwd: string): readonly string[] | undefined {
  return folders.isWorktree(cwd) ? [cwd] : undefined;
}
