// Seeing a turn's changes in the editor: its checkpoints as read-only documents (`acp-checkpoint:`), one file's diff
// (before the turn → now), and Review Changes in VS Code's multi-file diff editor, whose right side is the real file,
// so its own per-hunk revert arrows undo single hunks and the user can edit on the spot.
import * as vscode from 'vscode';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { Checkpoints } from './checkpoints';
import { labelOf } from './checkpoints';
import { editorColumn } from '../common/editorColumn';
import { stateText, uriOf } from './io';
import type { Change, TrackedFile } from './points';

export const CHECKPOINT_SCHEME = 'acp-checkpoint';

const Where = z.object({ session: z.string(), turn: z.number(), side: z.enum(['before', 'after']), folder: z.string(), rel: z.string() });
type Where = z.infer<typeof Where>;

/**
 * A file as it was at a checkpoint: the path is the real file's (so the diff editors see the same file on both sides,
 * not a rename), the query says which checkpoint.
 */
function checkpointUri(where: Where): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: uriOf({ folder: where.folder, rel: where.rel }).path, query: JSON.stringify(where) });
}

const FOCUS_GROUP = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth'].map((n) => `workbench.action.focus${n}EditorGroup`);

/** Makes an editor group other than the chat's the active one, so what opens next does not cover the chat. */
async function focusBesideChat(chatColumn: vscode.ViewColumn | undefined): Promise<void> {
  const column = editorColumn(chatColumn);
  const command = vscode.window.tabGroups.all.some((g) => g.viewColumn === column) ? FOCUS_GROUP[column - 1] : undefined;
  await vscode.commands.executeCommand(command ?? 'workbench.action.newGroupRight');
}

export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly checkpoints: Checkpoints,
    private readonly log: Logger,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    let where: Where;
    try {
      where = Where.parse(JSON.parse(uri.query));
    } catch {
      return '';
    }
    const point = await this.checkpoints.of(where.session)?.point(where.turn, where.side);
    if (!point) return '';
    try {
      return stateText(await point.read({ folder: where.folder, rel: where.rel }));
    } catch (error) {
      this.log.warn(`[checkpoints] could not read ${where.rel} from a checkpoint: ${errorMessage(error)}`);
      return '';
    }
  }
}

function sides(session: string, turn: number, change: Change): { before: TrackedFile; left: vscode.Uri; right: vscode.Uri } {
  const before = change.oldFile ?? change.file;
  const left = checkpointUri({ session, turn, side: 'before', folder: before.folder, rel: before.rel });
  const right =
    change.status === 'D' ? checkpointUri({ session, turn, side: 'after', folder: change.file.folder, rel: change.file.rel }) : uriOf(change.file);
  return { before, left, right };
}

/** One file's diff: before the turn on the left, the file now on the right. */
export async function openChange(
  checkpoints: Checkpoints,
  session: string,
  turn: number,
  index: number,
  chatColumn: vscode.ViewColumn | undefined,
): Promise<void> {
  const found = await checkpoints.of(session)?.change(turn, index);
  if (!found) return;
  const { left, right } = sides(session, turn, found.change);
  const name = labelOf(found.change.file);
  await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} (before the turn ↔ now)', name), {
    preview: true,
    viewColumn: editorColumn(chatColumn),
  });
}

/** Every file of a turn in the multi-file diff editor. */
export async function reviewChanges(
  checkpoints: Checkpoints,
  session: string,
  turn: number,
  title: string,
  chatColumn: vscode.ViewColumn | undefined,
): Promise<void> {
  const found = await checkpoints.of(session)?.changesOf(turn);
  if (!found || found.changes.length === 0) return;
  const resources = found.changes.map((change) => {
    const { left, right } = sides(session, turn, change);
    return [uriOf(change.file), change.status === 'A' ? undefined : left, right] as const;
  });
  // `vscode.changes` opens in the active group: one other than the chat's, so the chat stays in view.
  await focusBesideChat(chatColumn);
  await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Changes by {0}', title), resources);
}
