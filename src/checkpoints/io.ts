// The editor as checkpoints see it: what the user sees of a file now (unsaved edits included), and putting files
// back through the editor, in one WorkspaceEdit, so that one Undo in the editor takes a restore back.
import { lstat, mkdir, readFile, readlink, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { ABSENT, type FileState, type TrackedFile } from './points';
import type { WorkspaceIO } from './moves';

export function uriOf(file: TrackedFile): vscode.Uri {
  return vscode.Uri.file(join(file.folder, ...file.rel.split('/')));
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

export const editorIO: WorkspaceIO = {
  async current(file) {
    const uri = uriOf(file);
    // A link is a link: its target, never what it points at (a checkpoint records it so, and puts it back so).
    const stat = await lstat(uri.fsPath).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (!stat) return ABSENT;
    if (stat.isSymbolicLink()) return { exists: true, bytes: Buffer.from(await readlink(uri.fsPath), 'utf8'), link: true };
    const open = openDocument(uri);
    if (open?.isDirty) return { exists: true, bytes: Buffer.from(open.getText(), 'utf8') };
    try {
      return { exists: true, bytes: await readFile(uri.fsPath) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return ABSENT;
      throw error;
    }
  },

  async apply(writes) {
    if (writes.length === 0) return;
    // A folder on the way that became a link since (the agent moved it elsewhere and linked it) would take the write
    // out of the workspace: nothing is written, unless this same restore replaces that link.
    const replaced = new Set(writes.map((w) => uriOf(w.file).fsPath));
    for (const { file } of writes) {
      const link = await linkOnTheWay(file);
      if (link !== undefined && !replaced.has(link))
        throw new Error(
          vscode.l10n.t(
            '{0} is now inside {1}, a link that leads elsewhere, so nothing was changed: undo the turn that made the link first.',
            uriOf(file).fsPath,
            link,
          ),
        );
    }
    const edit = new vscode.WorkspaceEdit();
    const toSave: vscode.Uri[] = [];
    // Links, and whatever replaces a link, are written on disk here: the editor's edits would write through a link.
    const onDisk: (typeof writes)[number][] = [];
    for (const write of writes) {
      const { file, state } = write;
      const uri = uriOf(file);
      const isLink = (await lstat(uri.fsPath).catch(() => undefined))?.isSymbolicLink() === true;
      if ((state.exists && state.link) || isLink) {
        onDisk.push(write);
        continue;
      }
      const open = openDocument(uri);
      if (!state.exists) {
        edit.deleteFile(uri, { ignoreIfNotExists: true });
      } else if (open && !open.isClosed) {
        const text = Buffer.from(state.bytes).toString('utf8');
        edit.replace(uri, new vscode.Range(0, 0, open.lineCount, 0), text);
        toSave.push(uri);
      } else {
        await mkdir(dirname(uri.fsPath), { recursive: true });
        edit.createFile(uri, { overwrite: true, contents: state.bytes });
      }
    }
    for (const { file, state } of onDisk) {
      const path = uriOf(file).fsPath;
      // The link itself goes (unlink never follows it), then what the checkpoint had is made in its place.
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      if (!state.exists) continue;
      await mkdir(dirname(path), { recursive: true });
      if (state.link) await symlink(Buffer.from(state.bytes).toString('utf8'), path);
      else await writeFile(path, state.bytes, { flag: 'wx' });
    }
    // An empty edit is "not applied" to VS Code: only one with something in it goes (its `size` counts text edits
    // only, not file creations and deletions, so the writes given to it are counted here).
    if (onDisk.length < writes.length && !(await vscode.workspace.applyEdit(edit))) {
      throw new Error(vscode.l10n.t('VS Code did not apply the changes.'));
    }
    for (const uri of toSave) await openDocument(uri)?.save();
  },
};

/** The first folder between `file`'s workspace folder and the file that is a link now, if any. */
async function linkOnTheWay(file: TrackedFile): Promise<string | undefined> {
  let path = file.folder;
  for (const part of file.rel.split('/').slice(0, -1)) {
    path = join(path, part);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat) return undefined; // missing from here on: the restore makes real folders
    if (stat.isSymbolicLink()) return path;
  }
  return undefined;
}

/** A file state's text, for a document (UTF-8; checkpoints keep text files only). */
export function stateText(state: FileState): string {
  return state.exists ? Buffer.from(state.bytes).toString('utf8') : '';
}
