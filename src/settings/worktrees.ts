// `acp.worktrees.*`: where worktree chats' folders go, how their changes come back, and how many there may be. The
// location is read from the user's own settings only (machine scope): a workspace must not choose where git writes.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SECTION } from '../ids';

type ApplyAs = 'changes' | 'merge';

export interface WorktreeSettings {
  /** The folder new worktrees go in (absolute), or undefined: `<repo>.worktrees/` beside the repository. */
  readonly location: string | undefined;
  readonly applyAs: ApplyAs;
  /** Worktree chats allowed at once in one repository. */
  readonly max: number;
  /** Why the location setting was not used, if it was set and is not an absolute path. */
  readonly problem?: string;
}

const DEFAULT_MAX_WORKTREES = 16;

export function readWorktreeSettings(): WorktreeSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const raw = config.inspect<unknown>('worktrees.location')?.globalValue;
  // The user's own: a repository must not turn an apply into a merge commit.
  const applyAs = config.inspect<unknown>('worktrees.applyAs')?.globalValue === 'merge' ? 'merge' : 'changes';
  const maxRaw = config.get<unknown>('worktrees.max');
  const max = typeof maxRaw === 'number' && Number.isInteger(maxRaw) && maxRaw >= 1 && maxRaw <= 64 ? maxRaw : DEFAULT_MAX_WORKTREES;
  if (typeof raw !== 'string' || raw.trim() === '') return { location: undefined, applyAs, max };
  const expanded = raw.trim().replace(/^~(?=$|[\\/])/, () => process.env['HOME'] ?? process.env['USERPROFILE'] ?? '~');
  if (!path.isAbsolute(expanded)) {
    return {
      location: undefined,
      applyAs,
      max,
      problem: vscode.l10n.t('The setting acp.worktrees.location is not an absolute path ({0}), so the worktree goes beside the repository.', raw),
    };
  }
  return { location: path.resolve(expanded), applyAs, max };
}
