// The workspace's files for `@` mentions. The list is found once (on the first `@`), kept up to date by a file
// watcher, and filtered in memory, so completions stay quick on large workspaces. Only listed files can be
// attached, so a mention can never reach outside the workspace.
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import { rankFiles } from './fuzzy';
import type { FileMatch } from '../chat/protocol';
import { DisposableStore } from '../common/disposables';

/** Files listed at most; a larger workspace is listed in part (the log says so). */
const MAX_FILES = 50_000;
const MATCHES_SHOWN = 40;
const FOLDERS_SHOWN = 10;
/** Text larger than this is linked, not embedded. */
const MAX_EMBEDDED_BYTES = 1024 * 1024;
const ALWAYS_EXCLUDED = ['**/node_modules/**', '**/.git/**'];

export class WorkspaceFiles implements vscode.Disposable {
  /** Workspace-relative path (with "/") → URI. */
  private index: Promise<Map<string, vscode.Uri>> | undefined;
  private readonly disposables = new DisposableStore();

  constructor(private readonly log: Logger) {
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.reset()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('files.exclude') || event.affectsConfiguration('search.exclude')) this.reset();
      }),
    );
  }

  /** The files, then the folders, that best match `query`. */
  async search(query: string): Promise<FileMatch[]> {
    const index = await this.files();
    const match = (kind: 'file' | 'folder') => (path: string) => {
      const slash = path.lastIndexOf('/');
      return { kind, path, name: path.slice(slash + 1), folder: slash >= 0 ? path.slice(0, slash) : '' };
    };
    return [
      ...rankFiles(query, index.keys(), MATCHES_SHOWN).map(match('file')),
      ...rankFiles(query, this.folders(index), FOLDERS_SHOWN).map(match('folder')),
    ];
  }

  /** The folders that hold the listed files (workspace-relative), found again only when the list changed. */
  private folders(index: Map<string, vscode.Uri>): Set<string> {
    if (this.folderCache?.size === index.size && this.folderCache.of === index) return this.folderCache.folders;
    const folders = new Set<string>();
    for (const path of index.keys()) {
      for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
        const folder = path.slice(0, slash);
        if (folders.has(folder)) break;
        folders.add(folder);
      }
    }
    this.folderCache = { of: index, size: index.size, folders };
    return folders;
  }

  private folderCache: { of: Map<string, vscode.Uri>; size: number; folders: Set<string> } | undefined;

  resolve(path: string): string | undefined {
    // Only what the list has; the list is built before any mention can be picked.
    return this.known?.get(path)?.fsPath;
  }

  /** The absolute path of a listed folder (one that holds listed files). */
  resolveFolder(path: string): string | undefined {
    const index = this.known;
    if (!index || !this.folders(index).has(path)) return undefined;
    const [any] = [...index.entries()].find(([file]) => file.startsWith(`${path}/`)) ?? [];
    const uri = any === undefined ? undefined : index.get(any);
    if (!uri) return undefined;
    // The file's path less its part below the folder.
    const below = any!.slice(path.length).split('/').length - 1;
    let folder = uri;
    for (let i = 0; i < below; i++) folder = vscode.Uri.joinPath(folder, '..');
    return folder.fsPath;
  }

  async readText(path: string): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.scheme === 'file' && doc.uri.fsPath === path);
    if (open) return open.getText();
    try {
      const uri = vscode.Uri.file(path);
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > MAX_EMBEDDED_BYTES) return undefined;
      const bytes = await vscode.workspace.fs.readFile(uri);
      if (bytes.includes(0)) return undefined;
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return undefined; // not text, or gone: the agent gets a link
    }
  }

  private known: Map<string, vscode.Uri> | undefined;

  private files(): Promise<Map<string, vscode.Uri>> {
    this.index ??= this.build();
    return this.index;
  }

  private async build(): Promise<Map<string, vscode.Uri>> {
    const started = Date.now();
    const searchExclude = vscode.workspace.getConfiguration('search').get<Record<string, unknown>>('exclude') ?? {};
    const excluded = [...ALWAYS_EXCLUDED, ...Object.entries(searchExclude).flatMap(([glob, on]) => (on === true ? [glob] : []))];
    const uris = await vscode.workspace.findFiles('**/*', `{${excluded.join(',')}}`, MAX_FILES);
    const map = new Map<string, vscode.Uri>();
    for (const uri of uris) if (uri.scheme === 'file') map.set(this.relative(uri), uri);
    this.known = map;
    this.log.info(
      `[files] listed ${map.size} workspace files for mentions in ${Date.now() - started} ms${uris.length >= MAX_FILES ? ` (the first ${MAX_FILES} only)` : ''}`,
    );
    if (!this.watcher) this.watch();
    return map;
  }

  private watcher: vscode.FileSystemWatcher | undefined;

  private watch(): void {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    this.watcher = watcher;
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => {
        const path = this.relative(uri);
        if (/(^|\/)(node_modules|\.git)\//.test(path)) return;
        void vscode.workspace.fs.stat(uri).then(
          (stat) => {
            if (stat.type & vscode.FileType.File && this.known && this.known.size < MAX_FILES) this.known.set(path, uri);
          },
          () => {}, // gone again
        );
      }),
      watcher.onDidDelete((uri) => {
        const path = this.relative(uri);
        this.known?.delete(path);
        // A deleted folder: everything under it.
        if (this.known) for (const key of [...this.known.keys()]) if (key.startsWith(`${path}/`)) this.known.delete(key);
      }),
    );
  }

  private relative(uri: vscode.Uri): string {
    const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    return vscode.workspace.asRelativePath(uri, multiRoot);
  }

  private reset(): void {
    this.index = undefined;
    this.known = undefined;
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
