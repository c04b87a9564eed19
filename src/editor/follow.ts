// Following the agent: when a tool call reports locations, the file opens at that line in a preview editor, never
// taking focus, and the line is marked until the agent moves on. While the user is typing, the editor is left alone
// and the chat says where the agent went instead. `acp.followAgent` turns it off; a status bar item toggles it.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import { workspaceRoots } from '../common/workspace';
import { checkPath } from '../common/paths';
import { DisposableStore } from '../common/disposables';
import { editorColumn } from '../common/editorColumn';

/** How long after the user's last keystroke in an editor the agent may not switch editors. */
const TYPING_PAUSE_MS = 3000;
/** How long a line the agent has left stays faintly marked. */
const FADE_MS = 1500;

export class FollowAgent implements vscode.Disposable {
  private lastKeystroke = 0;
  private readonly current: vscode.TextEditorDecorationType;
  private readonly fading: vscode.TextEditorDecorationType;
  private marked: { readonly editor: vscode.TextEditor; readonly range: vscode.Range } | undefined;
  private fadeTimer: NodeJS.Timeout | undefined;
  private readonly status: vscode.StatusBarItem;
  private watching = 0;
  private readonly disposables = new DisposableStore();

  constructor(private readonly log: Logger) {
    this.current = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Full,
    });
    this.fading = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('editor.hoverHighlightBackground'),
    });
    this.status = vscode.window.createStatusBarItem('acp.followAgent', vscode.StatusBarAlignment.Right, 100);
    this.status.name = vscode.l10n.t('ACP Follow Agent');
    this.status.command = 'acp.toggleFollowAgent';
    this.disposables.push(
      this.current,
      this.fading,
      this.status,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('acp.followAgent')) this.updateStatus();
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        // Typing and moving the cursor with the keys: the user is working in that editor.
        if (event.kind === vscode.TextEditorSelectionChangeKind.Keyboard) this.lastKeystroke = Date.now();
      }),
    );
    this.updateStatus();
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration('acp').get<boolean>('followAgent') !== false;
  }

  /**
   * Follows one chat's tool calls. `column` is where the chat is, so the file opens elsewhere; `tell` puts a line in
   * the chat when the editor was left alone because the user was typing.
   */
  watch(session: AgentSession, column: () => vscode.ViewColumn | undefined, tell: (text: string) => void): vscode.Disposable {
    const model = session.model;
    const followed = new Map<string, string>();
    const subscription = model.onDidChange((change) => {
      if (change.type === 'turn' && model.turn.phase === 'idle') this.moveOn();
      if (change.type !== 'entry') return;
      const entry = model.entries[change.index];
      if (entry?.type !== 'tool') return;
      const location = entry.call.locations[0];
      if (!location) return;
      const key = `${location.path}:${location.line ?? ''}`;
      if (followed.get(entry.call.toolCallId) === key) return;
      followed.set(entry.call.toolCallId, key);
      void this.follow(location, column(), tell);
    });
    this.watching++;
    this.updateStatus();
    return new vscode.Disposable(() => {
      subscription.dispose();
      this.watching--;
      this.updateStatus();
    });
  }

  private async follow(location: S.ToolCallLocation, chatColumn: vscode.ViewColumn | undefined, tell: (text: string) => void): Promise<void> {
    if (!this.enabled) return;
    const verdict = checkPath(location.path, workspaceRoots());
    if (verdict.kind !== 'inside') return; // only the workspace's files are followed
    const where = `${vscode.workspace.asRelativePath(verdict.path)}${location.line != null ? `:${location.line}` : ''}`;
    if (Date.now() - this.lastKeystroke < TYPING_PAUSE_MS) {
      tell(vscode.l10n.t('The agent is at {0}; the editor stayed where you are typing.', where));
      return;
    }
    let doc: vscode.TextDocument;
    try {
      doc = await vscode.workspace.openTextDocument(vscode.Uri.file(verdict.path));
    } catch {
      return; // a file the tool call has not created yet, or not text
    }
    const line = Math.min(Math.max((location.line ?? 1) - 1, 0), Math.max(doc.lineCount - 1, 0));
    const range = new vscode.Range(line, 0, line, 0);
    try {
      const editor = await vscode.window.showTextDocument(doc, {
        preview: true,
        preserveFocus: true,
        selection: range,
        viewColumn: editorColumn(chatColumn),
      });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      this.mark(editor, range);
    } catch (error) {
      this.log.warn(`[follow] could not show ${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private mark(editor: vscode.TextEditor, range: vscode.Range): void {
    this.moveOn();
    editor.setDecorations(this.current, [range]);
    this.marked = { editor, range };
  }

  /** The agent left the marked line: it fades, then goes. */
  private moveOn(): void {
    const marked = this.marked;
    if (!marked) return;
    this.marked = undefined;
    marked.editor.setDecorations(this.current, []);
    marked.editor.setDecorations(this.fading, [marked.range]);
    clearTimeout(this.fadeTimer);
    this.fadeTimer = setTimeout(() => marked.editor.setDecorations(this.fading, []), FADE_MS);
  }

  async toggle(): Promise<void> {
    const next = !this.enabled;
    await vscode.workspace.getConfiguration('acp').update('followAgent', next, vscode.ConfigurationTarget.Global);
    if (!next) this.moveOn();
  }

  private updateStatus(): void {
    if (this.watching === 0) {
      this.status.hide();
      return;
    }
    const on = this.enabled;
    this.status.text = on ? vscode.l10n.t('$(eye) Follow') : vscode.l10n.t('$(eye-closed) Follow');
    this.status.tooltip = on
      ? vscode.l10n.t('The editor follows the agent. Click to stop following.')
      : vscode.l10n.t('The editor does not follow the agent. Click to follow it.');
    this.status.accessibilityInformation = { label: on ? vscode.l10n.t('Following the agent') : vscode.l10n.t('Not following the agent') };
    this.status.show();
  }

  dispose(): void {
    clearTimeout(this.fadeTimer);
    this.disposables.dispose();
  }
}
