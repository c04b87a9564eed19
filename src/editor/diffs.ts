// Agent edits in VS Code's native diff editor. Both sides are read-only documents served from memory, keyed by an id
// in the URI's path (never its query), so an agent's text never travels through a URI. The id is followed by the
// file's name, which gives the editor its language and tab label.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../common/disposables';

/** Diffs of what an agent proposes (tool call content, permission requests). */
export const DIFF_SCHEME = 'acp-diff';
/** Diffs of a write that waits for the user's Accept or Reject; the editor title shows those actions. */
export const REVIEW_SCHEME = 'acp-review';

/** Where one side of a diff came from, so the title can say what the user is looking at. */
export interface ProposedEdit {
  readonly path: string;
  /** The text before the edit; null or undefined for a file the edit creates. */
  readonly oldText?: string | null;
  readonly newText: string;
}

export interface ShowDiffOptions {
  readonly preserveFocus: boolean;
  /** A preview tab is replaced by the next preview; a diff that waits for a decision must not be. */
  readonly preview: boolean;
  readonly scheme?: typeof DIFF_SCHEME | typeof REVIEW_SCHEME;
}

export interface PreparedDiff {
  readonly left: vscode.Uri;
  readonly right: vscode.Uri;
  readonly title: string;
}

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private nextId = 1;
  private readonly disposables: DisposableStore;

  constructor() {
    this.disposables = new DisposableStore(
      vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this),
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this),
      // A closed side is not needed any more; its text goes with it.
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === DIFF_SCHEME || doc.uri.scheme === REVIEW_SCHEME) this.texts.delete(key(doc.uri));
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(key(uri)) ??
      `${vscode.l10n.t('This diff is no longer available: it was closed, and the agent\u2019s text is not kept after that.')}\n`
    );
  }

  /** Opens the edit in the diff editor beside the current one and returns the URI of its proposed side. */
  async show(edit: ProposedEdit, options: ShowDiffOptions): Promise<vscode.Uri> {
    const prepared = this.prepare(edit, options.scheme ?? DIFF_SCHEME);
    await this.open(prepared, options);
    return prepared.right;
  }

  /** Holds both sides in memory; `open` shows them. Split so a caller can track the diff before it is on screen. */
  prepare(edit: ProposedEdit, scheme: typeof DIFF_SCHEME | typeof REVIEW_SCHEME): PreparedDiff {
    const name = basename(edit.path) || edit.path;
    const created = edit.oldText == null;
    return {
      left: this.add(scheme, name, edit.oldText ?? ''),
      right: this.add(scheme, name, edit.newText),
      title: created ? vscode.l10n.t('{0} (agent edit, new file)', name) : vscode.l10n.t('{0} (agent edit)', name),
    };
  }

  async open(diff: PreparedDiff, options: Omit<ShowDiffOptions, 'scheme'>): Promise<void> {
    await vscode.commands.executeCommand('vscode.diff', diff.left, diff.right, diff.title, {
      preview: options.preview,
      preserveFocus: options.preserveFocus,
      viewColumn: vscode.ViewColumn.Beside,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /** Closes the diff editor tabs whose proposed side is `right`. */
  async close(right: vscode.Uri): Promise<void> {
    const target = right.toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === target);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
  }

  private add(scheme: string, name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme, path: `/${this.nextId++}/${name}` });
    this.texts.set(key(uri), text);
    return uri;
  }

  dispose(): void {
    this.disposables.dispose();
    this.texts.clear();
  }
}

function key(uri: vscode.Uri): string {
  return `${uri.scheme}:${uri.path}`;
}
