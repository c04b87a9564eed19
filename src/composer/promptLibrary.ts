// VS Code's prompt files for every agent: the `*.prompt.md` files of the workspace (`.github/prompts/`) and of the
// user's prompts folder, listed under `/` with their description. Parsing is in promptFiles.ts (pure); this finds
// the files, keeps the list up to date with file watchers, and reads one when it is picked.
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { isPromptFileName, MAX_PROMPT_BYTES, parsePromptFile, type PromptFile } from './promptFiles';
import type { PromptView } from '../chat/protocol';
import { DisposableStore } from '../common/disposables';

/** Prompt files listed at most, from each place. */
const MAX_FILES = 200;
const WORKSPACE_GLOB = '.github/prompts/**/*.prompt.md';
/** Folders below a workspace's `.github/prompts` that are read. */
const MAX_DEPTH = 3;

interface Found extends PromptView {
  readonly uri: vscode.Uri;
}

/** The prompt files a chat offers under `/` (see promptLibrary.ts). */
export interface ChatPrompts {
  /** `fresh`: read again, not from what was last listed. */
  list(fresh?: boolean): Promise<PromptView[]>;
  read(name: string, source: PromptView['source']): Promise<PromptFile | undefined>;
  readonly onDidChange: vscode.Event<void>;
}

export class PromptLibrary implements ChatPrompts, vscode.Disposable {
  private listing: Promise<Found[]> | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** A prompt file was added, changed or removed. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposables: DisposableStore;

  constructor(
    /** The user's prompts folder (`<user data>/User/prompts`). */
    private readonly userFolder: vscode.Uri,
    private readonly log: Logger,
  ) {
    const changed = () => {
      this.listing = undefined;
      this.changeEmitter.fire();
    };
    // The folders too: a folder made with its files in it may be reported as the folder alone.
    const watchers = [
      vscode.workspace.createFileSystemWatcher(`**/${WORKSPACE_GLOB}`),
      vscode.workspace.createFileSystemWatcher('**/.github'),
      vscode.workspace.createFileSystemWatcher('**/.github/prompts'),
      vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(userFolder, '*.prompt.md')),
    ];
    this.disposables = new DisposableStore(
      ...watchers,
      ...watchers.flatMap((w) => [w.onDidCreate(changed), w.onDidChange(changed), w.onDidDelete(changed)]),
      vscode.workspace.onDidChangeWorkspaceFolders(changed),
      this.changeEmitter,
    );
  }

  /**
   * The prompt files, the workspace's first, each by name once (a workspace file hides a user one of the same name).
   * `fresh` reads the folders again: the watchers can miss a change, and the `/` list asks for it when it opens.
   */
  async list(fresh = false): Promise<PromptView[]> {
    if (fresh) this.listing = undefined;
    return (await this.found()).map(({ name, description, source }) => ({ name, ...(description ? { description } : {}), source }));
  }

  /** A listed prompt file, parsed; undefined (logged) when it cannot be read. */
  async read(name: string, source: PromptView['source']): Promise<PromptFile | undefined> {
    const found = (await this.found()).find((f) => f.name === name && f.source === source);
    return found ? this.parse(found.uri) : undefined;
  }

  private found(): Promise<Found[]> {
    return (this.listing ??= this.find());
  }

  private async find(): Promise<Found[]> {
    // Read from the folders themselves (not the search service, which may not have seen a file just made).
    const roots = vscode.workspace.isTrusted ? (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file') : [];
    const workspace: vscode.Uri[] = [];
    for (const root of roots) workspace.push(...(await promptFilesIn(vscode.Uri.joinPath(root.uri, '.github', 'prompts'), MAX_DEPTH)));
    const user = await promptFilesIn(this.userFolder, 0);
    const found: Found[] = [];
    const names = new Set<string>();
    for (const [uris, source] of [
      [workspace, 'workspace'],
      [user, 'user'],
    ] as const) {
      for (const uri of [...uris].sort((a, b) => a.path.localeCompare(b.path))) {
        const file = await this.parse(uri);
        if (!file || names.has(file.name)) continue;
        names.add(file.name);
        found.push({ name: file.name, ...(file.description ? { description: file.description } : {}), source, uri });
      }
    }
    return found;
  }

  private async parse(uri: vscode.Uri): Promise<PromptFile | undefined> {
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      // parsePromptFile cuts a long body with a note; more than that is never read.
      if (stat.size > 4 * MAX_PROMPT_BYTES) {
        this.log.warn(`[prompts] ${uri.fsPath} is ${stat.size} bytes; prompt files over ${4 * MAX_PROMPT_BYTES} bytes are left out`);
        return undefined;
      }
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      return parsePromptFile(uri.path.slice(uri.path.lastIndexOf('/') + 1), text);
    } catch (error) {
      this.log.warn(`[prompts] could not read ${uri.fsPath}: ${errorMessage(error)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

/** The prompt files in `folder` and, `depth` levels down, in its subfolders; none when it does not exist. */
async function promptFilesIn(folder: vscode.Uri, depth: number): Promise<vscode.Uri[]> {
  let entries: [string, vscode.FileType][];
  try {
    entries = await vscode.workspace.fs.readDirectory(folder);
  } catch {
    return []; // no such folder: no prompt files there
  }
  const files: vscode.Uri[] = [];
  for (const [name, type] of entries) {
    if (files.length >= MAX_FILES) break;
    const uri = vscode.Uri.joinPath(folder, name);
    if (type === vscode.FileType.File && isPromptFileName(name)) files.push(uri);
    else if (type === vscode.FileType.Directory && depth > 0) files.push(...(await promptFilesIn(uri, depth - 1)));
  }
  return files.slice(0, MAX_FILES);
}
