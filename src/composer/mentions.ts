// What `@` can mention, and what each mention attaches: workspace files and folders (WorkspaceFiles), symbols (the
// workspace symbol providers), the problems (of the file last active in an editor, or all), the active terminal's
// last command with its output (shell integration), the uncommitted or staged changes or a commit (the git
// extension's API, gitMentions.ts), an earlier chat (chatMention.ts) and a web page (urlMention.ts). Each becomes an attachment with its size; a large one asks before it is sent (see contextText.ts).
import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative } from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { ShellHistory } from '../editor/shellHistory';
import { changesAttachment, commitAttachment } from './gitMentions';
import { folderListing, problemsText, specialMentions, terminalText, type Problem } from './contextText';
import { chatAttachment, type EarlierChats } from './chatMention';
import { urlAttachment } from './urlMention';
import { textSize, type NewAttachment } from './prompt';
import type { FileMatch, MentionKind } from '../chat/protocol';
import type { WorkspaceFiles } from './workspaceFiles';
import type { ChatFolders } from '../common/chatFolders';
import { checkPath } from '../common/paths';
import { workspaceRoots } from '../common/workspace';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';

const SYMBOLS_SHOWN = 15;
/** A symbol provider that has not answered by then is left out of this list. */
const SYMBOL_TIMEOUT_MS = 1500;
/** Lines of a symbol's text sent at most. */
const MAX_SYMBOL_LINES = 2000;
/** A worktree's copy of a symbol's file is read to find the symbol only up to this size. */
const MAX_SYMBOL_FILE_BYTES = 8 * 1024 * 1024;

/** What a chat can mention with `@`: workspace files and folders, symbols, problems, the terminal, the changes. */
export interface ChatFiles {
  /**
   * What `@query` offers. A source too slow for the list (a language server still starting) is not lost: `late`
   * gets the whole list again once it answers, unless a newer search started meanwhile.
   */
  search(query: string, late?: (matches: FileMatch[]) => void): Promise<FileMatch[]>;
  /** What a picked mention attaches, or why it cannot (a sentence for the chat). */
  attach(kind: MentionKind, id: string, chat: MentionPlace): Promise<NewAttachment | string>;
  /** A dropped file or folder (its URI), or why it cannot be attached. */
  attachUri(uri: string): Promise<NewAttachment | string>;
  /** The file's current text (its editor buffer, unsaved edits included), or undefined when it is not text. */
  readText(path: string): Promise<string | undefined>;
}

/** Where a mention is attached: the chat's folder and its session, once one is attached. */
export interface MentionPlace {
  readonly cwd: string | undefined;
  readonly sessionId: string | undefined;
  /** The chat's agent. */
  readonly agent: string;
}

export class Mentions implements ChatFiles, vscode.Disposable {
  /** The symbols of the last search, by the id the list gave them. */
  private symbols = new Map<string, vscode.SymbolInformation>();
  /** Counts symbol searches: a late answer to one that a newer search replaced is dropped. */
  private searches = 0;
  /** The text editor the user was last in: a chat tab in front has none active. */
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private readonly disposables: DisposableStore;

  constructor(
    private readonly files: WorkspaceFiles,
    private readonly shell: ShellHistory,
    /** A chat in a worktree attaches the worktree's copies. */
    private readonly folders: ChatFolders,
    /** What `@chat` offers: the kept transcripts, read on the chats' side. */
    private readonly chats: EarlierChats,
    /** The worker that turns `@url`'s HTML into Markdown (dist/page-text.js). */
    private readonly pageWorker: string,
    private readonly log: Logger,
  ) {
    this.disposables = new DisposableStore(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastEditor = editor;
      }),
    );
  }

  /**
   * What `@query` offers: problems, terminal and changes (when the word matches), files, folders, symbols. Symbols
   * that come after the list was given (the language server was starting) reach `late` with the rest of the list.
   */
  async search(query: string, late?: (matches: FileMatch[]) => void): Promise<FileMatch[]> {
    const active = this.activeFile();
    const special = specialMentions(vscode.l10n.t, query, {
      activeProblems: active ? vscode.languages.getDiagnostics(active).length : undefined,
      allProblems: vscode.languages.getDiagnostics().reduce((n, [, d]) => n + d.length, 0),
    });
    let listed: FileMatch[] | undefined;
    let early: FileMatch[] | undefined; // late symbols that came before the files did
    const [paths, symbols] = await Promise.all([
      this.files.search(query),
      this.searchSymbols(query, (lateSymbols) => {
        if (!listed) early = lateSymbols;
        else late?.([...listed, ...lateSymbols]);
      }),
    ]);
    listed = [...special, ...paths];
    return [...listed, ...(early ?? symbols)];
  }

  readText(path: string): Promise<string | undefined> {
    return this.files.readText(path);
  }

  /** What a picked mention attaches, or why it cannot (a sentence for the chat). */
  async attach(kind: MentionKind, id: string, { cwd, sessionId, agent }: MentionPlace): Promise<NewAttachment | string> {
    try {
      switch (kind) {
        case 'file':
          return await this.file(id, cwd);
        case 'folder':
          return await this.folder(id, cwd);
        case 'symbol':
          return await this.symbol(id, cwd);
        case 'problems':
          return this.problems(id === 'all', cwd);
        case 'terminal':
          return this.terminal();
        case 'changes':
          return await changesAttachment(id === 'staged', cwd);
        case 'commit':
          return await commitAttachment(cwd);
        case 'chat':
          return await chatAttachment(this.chats, sessionId === undefined ? undefined : { agent, sessionId });
        case 'url':
          return await urlAttachment(this.pageWorker, this.log);
      }
    } catch (error) {
      this.log.warn(`[mentions] @${kind} could not be attached: ${errorMessage(error)}`);
      return vscode.l10n.t('@{0} could not be attached: {1}', kind, failureText(error));
    }
  }

  /** A file or folder dropped from the Explorer or a tab: attached when it is inside the workspace. */
  async attachUri(text: string): Promise<NewAttachment | string> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(text, true);
    } catch {
      return vscode.l10n.t('"{0}" is not a file, so it was not attached.', text.slice(0, 200));
    }
    if (uri.scheme !== 'file') return vscode.l10n.t('Only files on this computer can be attached; {0} is not.', uri.toString(true).slice(0, 200));
    if (checkPath(uri.fsPath, workspaceRoots()).kind !== 'inside') {
      return vscode.l10n.t('Only files inside the workspace can be attached; {0} is not.', uri.fsPath);
    }
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(uri);
    } catch (error) {
      return vscode.l10n.t('{0} could not be attached: {1}', uri.fsPath, failureText(error));
    }
    const label = vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
    if (stat.type & vscode.FileType.Directory) return folderAttachment(uri.fsPath, label);
    return { kind: 'file', path: uri.fsPath, label, size: stat.size };
  }

  /**
   * Where a listed file or folder is for the chat in `cwd`: where it is listed, or in a worktree chat the worktree's
   * copy (the list is the workspace's, and the worktree holds the same paths); undefined when the worktree has none.
   */
  private async chatPath(listed: string, cwd: string | undefined): Promise<string | undefined> {
    const worktree = cwd === undefined ? undefined : this.folders.worktreeOf(cwd);
    if (!worktree) return listed;
    const rel = relative(worktree.checkout, listed);
    if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
    const path = join(worktree.path, rel);
    return (await vscode.workspace.fs.stat(vscode.Uri.file(path)).then(
      () => true,
      () => false,
    ))
      ? path
      : undefined;
  }

  private async file(id: string, cwd: string | undefined): Promise<NewAttachment | string> {
    const listed = this.files.resolve(id);
    if (!listed) return vscode.l10n.t('{0} is not a file in this workspace, so it was not attached.', id);
    const path = await this.chatPath(listed, cwd);
    if (!path) return vscode.l10n.t("{0} is not in this chat's worktree, so it was not attached.", id);
    const size = (await vscode.workspace.fs.stat(vscode.Uri.file(path))).size;
    return { kind: 'file', path, label: id, size };
  }

  private async folder(id: string, cwd: string | undefined): Promise<NewAttachment | string> {
    const listed = this.files.resolveFolder(id);
    if (!listed) return vscode.l10n.t('{0} is not a folder in this workspace, so it was not attached.', id);
    const path = await this.chatPath(listed, cwd);
    if (!path) return vscode.l10n.t("{0} is not in this chat's worktree, so it was not attached.", id);
    return folderAttachment(path, id);
  }

  /**
   * The workspace symbols for `query`, waiting at most SYMBOL_TIMEOUT_MS for the list. A provider that answers later
   * (a language server starting: its first answer can take seconds) gives its symbols to `late`, if no newer
   * search started meanwhile.
   */
  private async searchSymbols(query: string, late: (matches: FileMatch[]) => void): Promise<FileMatch[]> {
    const generation = ++this.searches;
    this.symbols = new Map();
    if (query.trim().length < 2) return [];
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const asked = Promise.resolve(
      vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query),
    ).catch((error: unknown) => {
      this.log.warn(`[mentions] the symbol search failed: ${errorMessage(error)}`);
      return undefined;
    });
    const found = await Promise.race([
      asked,
      new Promise<undefined>(
        (resolve) =>
          (timer = setTimeout(() => {
            timedOut = true;
            resolve(undefined);
          }, SYMBOL_TIMEOUT_MS)),
      ),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      void asked.then((symbols) => {
        if (generation !== this.searches || !symbols?.length) return;
        const matches = this.symbolMatches(symbols);
        if (matches.length > 0) late(matches);
      });
    }
    return this.symbolMatches(found ?? []);
  }

  /** Symbols as the list shows them, remembered by the id the list gives them (for the pick). */
  private symbolMatches(symbols: readonly vscode.SymbolInformation[]): FileMatch[] {
    const matches: FileMatch[] = [];
    for (const symbol of symbols.filter((s) => s.location.uri.scheme === 'file').slice(0, SYMBOLS_SHOWN)) {
      const id = `${matches.length}:${symbol.name}`;
      this.symbols.set(id, symbol);
      const where = `${vscode.workspace.asRelativePath(symbol.location.uri)}:${symbol.location.range.start.line + 1}`;
      matches.push({ kind: 'symbol', path: id, name: symbol.name, folder: symbol.containerName ? `${symbol.containerName} · ${where}` : where });
    }
    return matches;
  }

  private async symbol(id: string, cwd: string | undefined): Promise<NewAttachment | string> {
    const symbol = this.symbols.get(id);
    if (!symbol) return vscode.l10n.t('That symbol is no longer in the list; type @ and its name again.');
    const document = await vscode.workspace.openTextDocument(symbol.location.uri);
    let range = symbol.location.range;
    // A provider that gives only the name's range (one line) still gets the whole line.
    if (range.isSingleLine) range = document.lineAt(range.start.line).range;
    const endLine = Math.min(range.end.line, range.start.line + MAX_SYMBOL_LINES - 1);
    const text = document.getText(new vscode.Range(range.start.line, 0, endLine, document.lineAt(endLine).text.length));
    const found = await this.symbolInChat(document.uri.fsPath, text, range.start.line, cwd);
    if (typeof found === 'string') return found;
    const start = found.line + 1;
    const end = start + (endLine - range.start.line);
    const label = `${symbol.name} (${vscode.workspace.asRelativePath(document.uri)}:${start === end ? start : `${start}-${end}`})`;
    return {
      kind: 'symbol',
      path: found.path,
      label,
      text,
      startLine: start,
      endLine: end,
      languageId: document.languageId,
      size: textSize(text),
    };
  }

  /**
   * Where a symbol's `text` (found by VS Code's language features, which see the workspace) is for the chat in `cwd`:
   * at `line` of `path` itself; or, for a file of the main checkout in a worktree chat, the same lines in the
   * worktree's copy (where they were, else the nearest place they start a line); a sentence when the copy lacks them.
   */
  private async symbolInChat(path: string, text: string, line: number, cwd: string | undefined): Promise<{ path: string; line: number } | string> {
    const worktree = cwd === undefined ? undefined : this.folders.worktreeOf(cwd);
    const rel = worktree ? relative(worktree.checkout, path) : '..';
    if (!worktree || rel.startsWith('..') || isAbsolute(rel)) return { path, line }; // not the checkout's: as it is
    const changed = vscode.l10n.t("This symbol is not the same in this chat's worktree, so it was not attached; attach its file with @ instead.");
    const copy = join(worktree.path, rel);
    // The agent writes the worktree: only a regular file of a bounded size there is read (not a link, not a FIFO).
    const stat = await lstat(copy).catch(() => undefined);
    if (!stat?.isFile() || stat.size > MAX_SYMBOL_FILE_BYTES) return changed;
    const lines = (await readFile(copy, 'utf8')).split(/\r?\n/);
    const wanted = text.split(/\r?\n/);
    const matchesAt = (start: number) => wanted.every((w, i) => lines[start + i] === w);
    if (matchesAt(line)) return { path: copy, line };
    let best: number | undefined;
    for (let start = 0; start + wanted.length <= lines.length; start++) {
      if (matchesAt(start) && (best === undefined || Math.abs(start - line) < Math.abs(best - line))) best = start;
    }
    return best === undefined ? changed : { path: copy, line: best };
  }

  /** The file of the text editor the user was last in. */
  private activeFile(): vscode.Uri | undefined {
    const editor = [this.lastEditor, ...vscode.window.visibleTextEditors].find((e) => e && e.document.uri.scheme === 'file' && !e.document.isClosed);
    return editor?.document.uri;
  }

  /** The Problems view's problems; VS Code has them for the workspace's files, so a worktree chat is told that. */
  private problems(all: boolean, cwd: string | undefined): NewAttachment | string {
    const active = this.activeFile();
    if (!all && !active) return vscode.l10n.t('No file is open in an editor; choose @problems:all for every problem.');
    const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = all
      ? vscode.languages.getDiagnostics()
      : [[active!, vscode.languages.getDiagnostics(active!)]];
    const problems: Problem[] = entries.flatMap(([uri, diagnostics]) =>
      diagnostics.map((d) => ({
        path: vscode.workspace.asRelativePath(uri),
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        severity: SEVERITIES[d.severity],
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(d.code !== undefined ? { code: String(typeof d.code === 'object' ? d.code.value : d.code) } : {}),
      })),
    );
    const inWorktree = cwd !== undefined && this.folders.worktreeOf(cwd) !== undefined;
    const text =
      (inWorktree
        ? vscode.l10n.t("These problems are VS Code's, for the main checkout; the files in this chat's worktree may differ.") + '\n\n'
        : '') + problemsText(problems);
    const label =
      (all ? vscode.l10n.t('Problems ({0})', problems.length) : vscode.l10n.t('Problems in {0} ({1})', basename(active!.fsPath), problems.length)) +
      (inWorktree ? ' ' + vscode.l10n.t('(main checkout)') : '');
    return {
      kind: 'problems',
      label,
      text,
      uri: all ? 'vscode-problems:all' : `vscode-problems:${active!.toString()}`,
      mimeType: 'text/plain',
      ...(all ? {} : { link: active!.toString() }),
      size: textSize(text),
    };
  }

  private terminal(): NewAttachment | string {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return vscode.l10n.t('No terminal is open, so there is no last command to attach.');
    const command = this.shell.lastCommand(terminal);
    if (!command) {
      return terminal.shellIntegration
        ? vscode.l10n.t('No command has run in the terminal "{0}" since ACP started watching it.', terminal.name)
        : vscode.l10n.t(
            'The terminal "{0}" has no shell integration, so its last command and output cannot be read. Run the command in a terminal with shell integration (terminal.integrated.shellIntegration.enabled).',
            terminal.name,
          );
    }
    const text = terminalText(command);
    return {
      kind: 'terminal',
      label: vscode.l10n.t('Terminal: {0}', command.commandLine.slice(0, 60)),
      text,
      uri: `vscode-terminal:${encodeURIComponent(terminal.name)}`,
      mimeType: 'text/plain',
      size: textSize(text),
    };
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

/** A folder as an attachment: linked, with a listing of what is in it (`label` is its workspace-relative path). */
async function folderAttachment(path: string, label: string): Promise<NewAttachment> {
  const entries = await readdir(path, { withFileTypes: true });
  const listing = folderListing(entries.map((e) => ({ name: e.name, folder: e.isDirectory() })));
  return { kind: 'folder', path, label: `${label}/`, listing, size: textSize(listing) };
}

const SEVERITIES: Record<vscode.DiagnosticSeverity, Problem['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};
