// The editor's read-only tools, on VS Code's own API and live buffers (unsaved text included): the Problems, the
// language features' definitions, references, symbols and hovers, and the open editors. Lines and columns are 1-based
// in and out, as ACP's locations are; paths are the session's (see paths.ts).
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { z } from 'zod';
import { shownPath, toolPath } from './paths';
import { pathArg, position, tool, type EditorTool, type ToolAnswer, type ToolContext } from './tools';
import { reportedDiagnostics, settledAnswer } from './warmth';

/** Locations whose line of text is given; files past this size are not read for it. */
const MAX_LOCATIONS_WITH_TEXT = 200;
const MAX_FILE_BYTES_FOR_TEXT = 4 * 1024 * 1024;
/** Bytes read from disk for the lines of one answer's locations, in all. */
const MAX_BYTES_READ_FOR_TEXT = 16 * 1024 * 1024;
/** A file larger than this is not opened by a tool. */
const MAX_OPENED_BYTES = 16 * 1024 * 1024;
/** Symbols listed at most from one document's tree. */
const MAX_SYMBOLS = 5000;
const MAX_SELECTION_CHARS = 16 * 1024;
/** How long a rename waits for the user's review of its files. */
const RENAME_REVIEW_MS = 10 * 60_000;

const SEVERITY = ['error', 'warning', 'information', 'hint'] as const;
/** `fresh`: the document was not open before the tool opened it (no language service has seen it yet). */
type Resolved = { uri: vscode.Uri; document: vscode.TextDocument; fresh: boolean } | { error: string };

async function open(given: string, context: ToolContext): Promise<Resolved> {
  const resolved = toolPath(given, context.folders);
  if ('error' in resolved) return resolved;
  const uri = vscode.Uri.file(resolved.path);
  // Only a regular file of a bounded size is opened (not a FIFO or a device, which would hang or flood the host).
  const stat = await fs.stat(resolved.path).catch(() => undefined);
  if (!stat) return { error: `${given} does not exist.` };
  if (!stat.isFile()) return { error: `${given} is not a regular file.` };
  if (stat.size > MAX_OPENED_BYTES) return { error: `${given} is larger than ${MAX_OPENED_BYTES / (1024 * 1024)} MB.` };
  const fresh = !vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  try {
    return { uri, document: await vscode.workspace.openTextDocument(uri), fresh };
  } catch (error) {
    return { error: `${given} could not be opened as text: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The file at `given`, opened, and the position a tool's 1-based line and column name in it. */
async function openAt(
  given: string,
  line: number,
  column: number,
  context: ToolContext,
): Promise<{ uri: vscode.Uri; document: vscode.TextDocument; fresh: boolean; where: vscode.Position } | { error: string }> {
  const opened = await open(given, context);
  if ('error' in opened) return opened;
  const where = at(opened.document, line, column);
  return typeof where === 'string' ? { error: where } : { ...opened, where };
}

/** Whether `uri` is a file inside the session's folders (links resolved). */
function inSession(uri: vscode.Uri, context: ToolContext): boolean {
  return uri.scheme === 'file' && !('error' in toolPath(uri.fsPath, context.folders));
}

function at(document: vscode.TextDocument, line: number, column: number): vscode.Position | string {
  if (line > document.lineCount) return `Line ${line} is past the end of the file (${document.lineCount} lines).`;
  return document.validatePosition(new vscode.Position(line - 1, column - 1));
}

function range(r: vscode.Range): { line: number; column: number; endLine: number; endColumn: number } {
  return { line: r.start.line + 1, column: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

/**
 * Locations as the tools give them: inside the session's folders, each with its path, range and the text of its
 * line (for the first ones, from files read within a budget); outside them, only how many there are.
 */
async function locations(
  found: readonly (vscode.Location | vscode.LocationLink)[],
  context: ToolContext,
): Promise<{ items: unknown[]; outside?: string }> {
  const files = new Map<string, Promise<readonly string[] | undefined>>();
  const budget = { bytes: MAX_BYTES_READ_FOR_TEXT };
  const items: unknown[] = [];
  let outside = 0;
  for (const l of found) {
    const uri = 'targetUri' in l ? l.targetUri : l.uri;
    const r = 'targetUri' in l ? (l.targetSelectionRange ?? l.targetRange) : l.range;
    const inside = uri.scheme === 'file' ? toolPath(uri.fsPath, context.folders) : { error: 'not a file' };
    if ('error' in inside) {
      outside++;
      continue;
    }
    let text: string | undefined;
    if (items.length < MAX_LOCATIONS_WITH_TEXT) {
      if (!files.has(inside.path)) files.set(inside.path, linesOf(inside.path, budget));
      text = (await files.get(inside.path))?.[r.start.line];
    }
    items.push({ path: shownPath(inside.path, context.folders), ...range(r), ...(text !== undefined ? { text: text.trim().slice(0, 400) } : {}) });
  }
  return { items, ...(outside > 0 ? { outside: `${outside} more are outside this session's workspace.` } : {}) };
}

/** A file's lines: an open document's (unsaved text included), else the disk's, for a regular file within `budget`. */
async function linesOf(file: string, budget: { bytes: number }): Promise<readonly string[] | undefined> {
  const openDoc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file);
  if (openDoc) return openDoc.getText().split(/\r?\n/);
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size > MAX_FILE_BYTES_FOR_TEXT || stat.size > budget.bytes) return undefined;
  budget.bytes -= stat.size;
  return (await fs.readFile(file, 'utf8')).split(/\r?\n/);
}

function diagnosticView(uri: vscode.Uri, d: vscode.Diagnostic, context: ToolContext) {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return {
    path: shownPath(uri.fsPath, context.folders),
    severity: SEVERITY[d.severity],
    ...range(d.range),
    message: d.message,
    ...(d.source ? { source: d.source } : {}),
    ...(code !== undefined ? { code: String(code) } : {}),
  };
}

function flattenSymbols(
  symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[],
): { name: string; kind: string; container?: string; range: vscode.Range }[] {
  const out: { name: string; kind: string; container?: string; range: vscode.Range }[] = [];
  // A stack, not recursion: a provider's tree may be deep.
  const stack: { symbol: vscode.DocumentSymbol | vscode.SymbolInformation; container?: string }[] = [...symbols]
    .reverse()
    .map((symbol) => ({ symbol }));
  while (stack.length > 0 && out.length < MAX_SYMBOLS) {
    const { symbol, container } = stack.pop()!;
    const r = 'location' in symbol ? symbol.location.range : symbol.range;
    const parent = container ?? ('containerName' in symbol && symbol.containerName ? symbol.containerName : undefined);
    out.push({ name: symbol.name, kind: vscode.SymbolKind[symbol.kind], ...(parent ? { container: parent } : {}), range: r });
    if ('children' in symbol) for (const child of [...symbol.children].reverse()) stack.push({ symbol: child, container: symbol.name });
  }
  return out;
}

function hoverText(hovers: readonly vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) =>
      typeof c === 'string' ? c : 'value' in c ? ('language' in c && c.language ? `\`\`\`${c.language}\n${c.value}\n\`\`\`` : c.value) : '',
    )
    .filter((t) => t.trim())
    .join('\n\n---\n\n');
}

const ok = (value: unknown): ToolAnswer => ({ value });

/** `document`'s text with `edits` made (from the last to the first, so that offsets hold). */
function applyEdits(document: vscode.TextDocument, edits: readonly vscode.TextEdit[]): string {
  let text = document.getText();
  // From the end; of edits at the same place, the later first (so that they end up in their given order).
  const sorted = edits
    .map((e, i) => ({ e, i, at: document.offsetAt(e.range.start) }))
    .sort((a, b) => b.at - a.at || b.i - a.i)
    .map(({ e }) => e);
  for (const e of sorted) text = text.slice(0, document.offsetAt(e.range.start)) + e.newText + text.slice(document.offsetAt(e.range.end));
  return text;
}

export const EDITOR_TOOLS: readonly EditorTool[] = [
  tool({
    name: 'get_diagnostics',
    description:
      'The Problems VS Code shows (type errors, lint warnings) for one file, or for the whole workspace when no path is given. Errors come first. Each has severity, range (1-based), message, source and code.',
    input: { path: pathArg.optional() },
    async run({ path }, context, abandoned) {
      let entries: [vscode.Uri, readonly vscode.Diagnostic[]][];
      let note: string | undefined;
      if (path !== undefined) {
        const opened = await open(path, context);
        if ('error' in opened) return opened;
        const reported = await reportedDiagnostics(opened.document, opened.fresh, abandoned);
        entries = [[opened.uri, reported.diagnostics]];
        note = reported.note;
      } else {
        entries = vscode.languages.getDiagnostics().filter(([uri]) => inSession(uri, context));
      }
      const items = entries
        .flatMap(([uri, list]) => list.map((d) => ({ d, view: diagnosticView(uri, d, context) })))
        .sort((a, b) => a.d.severity - b.d.severity || a.view.path.localeCompare(b.view.path) || a.view.line - b.view.line)
        .map((e) => e.view);
      return ok({ items, ...(note !== undefined ? { note } : {}) });
    },
  }),
  tool({
    name: 'find_definition',
    description: 'Where the symbol at a 1-based line and column is defined, from the language features: each location with its line of text.',
    input: { path: pathArg, ...position },
    async run({ path, line, column }, context, abandoned) {
      const opened = await openAt(path, line, column, context);
      if ('error' in opened) return opened;
      const { where } = opened;
      const { answer, note } = await settledAnswer(
        opened.document,
        () =>
          vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
            'vscode.executeDefinitionProvider',
            opened.uri,
            where,
          ),
        (found) => (found ?? []).length === 0,
        abandoned,
      );
      return ok({ ...(await locations(answer ?? [], context)), ...(note !== undefined ? { note } : {}) });
    },
  }),
  tool({
    name: 'find_references',
    description: 'Every reference to the symbol at a 1-based line and column, from the language features: each location with its line of text.',
    input: { path: pathArg, ...position },
    async run({ path, line, column }, context, abandoned) {
      const opened = await openAt(path, line, column, context);
      if ('error' in opened) return opened;
      const { where } = opened;
      // A service still loading its project knows the declaration alone.
      const { answer, note } = await settledAnswer(
        opened.document,
        () => vscode.commands.executeCommand<vscode.Location[] | undefined>('vscode.executeReferenceProvider', opened.uri, where),
        (found) => (found ?? []).length <= 1,
        abandoned,
      );
      return ok({ ...(await locations(answer ?? [], context)), ...(note !== undefined ? { note } : {}) });
    },
  }),
  tool({
    name: 'document_symbols',
    description: 'The symbols of one file (classes, functions, headings of a Markdown file…): name, kind, range (1-based) and container.',
    input: { path: pathArg },
    async run({ path }, context, abandoned) {
      const opened = await open(path, context);
      if ('error' in opened) return opened;
      const { answer, note } = await settledAnswer(
        opened.document,
        () =>
          vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
            'vscode.executeDocumentSymbolProvider',
            opened.uri,
          ),
        (found) => (found ?? []).length === 0,
        abandoned,
      );
      return ok({
        items: flattenSymbols(answer ?? []).map(({ range: r, ...s }) => ({ ...s, ...range(r) })),
        ...(note !== undefined ? { note } : {}),
      });
    },
  }),
  tool({
    name: 'workspace_symbols',
    description:
      'Symbols of the whole workspace whose name matches a query, from the language features: name, kind, path, range (1-based), container.',
    input: { query: z.string().min(1).max(200) },
    async run({ query }, context) {
      const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
      const inside = found.filter((s) => inSession(s.location.uri, context));
      return ok({
        items: inside.map((s) => ({
          name: s.name,
          kind: vscode.SymbolKind[s.kind],
          path: shownPath(s.location.uri.fsPath, context.folders),
          ...range(s.location.range),
          ...(s.containerName ? { container: s.containerName } : {}),
        })),
      });
    },
  }),
  tool({
    name: 'hover',
    description: 'The hover text at a 1-based line and column (types, documentation), as Markdown.',
    input: { path: pathArg, ...position },
    async run({ path, line, column }, context, abandoned) {
      const opened = await openAt(path, line, column, context);
      if ('error' in opened) return opened;
      const { where } = opened;
      const { answer, note } = await settledAnswer(
        opened.document,
        () => vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', opened.uri, where),
        (found) => hoverText(found ?? []) === '',
        abandoned,
      );
      return ok({ markdown: hoverText(answer ?? []), ...(note !== undefined ? { note } : {}) });
    },
  }),
  tool({
    name: 'open_editors',
    description: 'The files open in editor tabs, the active editor, and its selection with the selected text.',
    input: {},
    async run(_args, context) {
      const inside = (uri: vscode.Uri) => inSession(uri, context);
      const tabs = vscode.window.tabGroups.all.flatMap((g) =>
        g.tabs.flatMap((t) =>
          t.input instanceof vscode.TabInputText ? [{ uri: t.input.uri, dirty: t.isDirty, active: t.isActive && g.isActive }] : [],
        ),
      );
      const shown = tabs.filter((t) => inside(t.uri));
      const editor = vscode.window.activeTextEditor;
      const active = editor && inside(editor.document.uri) ? editor : undefined;
      const selected = active ? active.document.getText(active.selection) : '';
      return ok({
        items: shown.map((t) => ({ path: shownPath(t.uri.fsPath, context.folders), ...(t.dirty ? { unsaved: true } : {}) })),
        ...(tabs.length > shown.length ? { outside: `${tabs.length - shown.length} open files outside the workspace are not listed.` } : {}),
        ...(active
          ? {
              active: {
                path: shownPath(active.document.uri.fsPath, context.folders),
                selection: range(active.selection),
                ...(selected ? { selectedText: selected.slice(0, MAX_SELECTION_CHARS) } : {}),
              },
            }
          : {}),
      });
    },
  }),
  tool({
    name: 'rename_symbol',
    description:
      'Renames the symbol at a 1-based line and column everywhere, with the language features. The user reviews each changed file as a diff first; only when every file is accepted is the rename applied, as one undoable edit (files that had no unsaved changes are then saved). The answer says what happened.',
    input: { path: pathArg, ...position, newName: z.string().min(1).max(200) },
    timeoutMs: RENAME_REVIEW_MS,
    async run({ path, line, column, newName }, context, abandoned) {
      const opened = await openAt(path, line, column, context);
      if ('error' in opened) return opened;
      const { where } = opened;
      const { answer: edit } = await settledAnswer(
        opened.document,
        () => vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', opened.uri, where, newName),
        (found) => (found?.entries() ?? []).every(([, edits]) => edits.length === 0),
        abandoned,
      );
      const entries = (edit?.entries() ?? []).filter(([, edits]) => edits.length > 0);
      if (entries.length === 0) return { error: 'Nothing there can be renamed.' };
      const outside = entries.filter(([uri]) => !inSession(uri, context));
      if (outside.length > 0)
        return { error: `The rename would change ${outside.length} files outside this session's workspace, so it was not offered.` };
      // Review before write, file by file, on the live text: one rejection, and nothing is changed.
      const reviewedText = new Map<string, string>();
      for (const [uri, edits] of entries) {
        const document = await vscode.workspace.openTextDocument(uri);
        const current = document.getText();
        const decision = await context.review(uri.fsPath, current, applyEdits(document, edits), abandoned);
        if (abandoned.aborted) return { error: 'The rename is no longer awaited (it took too long, or the session ended); nothing changed.' };
        if (decision !== 'accepted')
          return ok({ applied: false, note: `The user did not accept the change to ${shownPath(uri.fsPath, context.folders)}; nothing changed.` });
        reviewedText.set(uri.toString(), current);
      }
      // What was reviewed is what is applied: each file as it is now (opened again: a document may have been closed
      // meanwhile) must be the text reviewed, still inside the workspace, and the tools still allowed.
      const refused = context.allowed('rename_symbol');
      if (refused) return { error: refused };
      const now: vscode.TextDocument[] = [];
      for (const [uri] of entries) {
        if (!inSession(uri, context)) return { error: `${uri.fsPath} is no longer inside this session's workspace; nothing changed.` };
        const document = await vscode.workspace.openTextDocument(uri);
        if (document.getText() !== reviewedText.get(uri.toString()))
          return { error: 'A file changed while the rename was reviewed; nothing changed.' };
        now.push(document);
      }
      const cleanBefore = new Set(now.filter((d) => !d.isDirty).map((d) => d.uri.toString()));
      // Only the reviewed text edits: file operations a provider may add (create, rename, delete) are not made.
      const reviewed = new vscode.WorkspaceEdit();
      for (const [uri, edits] of entries) reviewed.set(uri, edits);
      if (!(await vscode.workspace.applyEdit(reviewed, { isRefactoring: true })))
        return { error: 'VS Code could not apply the rename; nothing changed.' };
      const unsaved: string[] = [];
      for (const document of now) {
        if (!cleanBefore.has(document.uri.toString()) || !document.isDirty) continue;
        if (
          !(await document.save().then(
            (saved) => saved,
            () => false,
          ))
        )
          unsaved.push(shownPath(document.uri.fsPath, context.folders));
      }
      if (unsaved.length > 0)
        return ok({ applied: true, unsaved, note: `Applied; ${unsaved.join(', ')} could not be saved and keep the rename unsaved.` });
      return ok({ applied: true, files: entries.map(([uri, edits]) => ({ path: shownPath(uri.fsPath, context.folders), edits: edits.length })) });
    },
  }),
];
