// What the chat's tool-card buttons do in the editor. The webview names a card and an index; the path, diff or
// terminal comes from the session model, so a view can never make the host open something the agent did not say.
import * as vscode from 'vscode';
import type { Session } from './acp/client';
import type { ChatActions } from './chat/panel';
import { diffsOf } from './chat/view';
import type { DiffDocuments } from './diffs';
import { editorColumn } from './follow';
import type { TerminalMirrors } from './terminalMirror';

export class EditorChatActions implements ChatActions {
  constructor(
    private readonly diffs: DiffDocuments,
    private readonly mirrors: TerminalMirrors,
    readonly showLog: () => void,
  ) {}

  showDiff(session: Session, toolCallId: string, index: number): void {
    const call = session.model.toolCall(toolCallId);
    const diff = call && diffsOf(call)[index];
    if (diff) void this.diffs.show(diff, { preserveFocus: false, preview: true });
  }

  openLocation(session: Session, toolCallId: string, index: number): void {
    const location = session.model.toolCall(toolCallId)?.locations[index];
    if (!location) return;
    const uri = vscode.Uri.file(location.path);
    const line = Math.max((location.line ?? 1) - 1, 0);
    const chatColumn = vscode.window.tabGroups.activeTabGroup.viewColumn;
    void vscode.workspace.openTextDocument(uri).then(
      (doc) => {
        const at = Math.min(line, Math.max(doc.lineCount - 1, 0));
        return vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, 0, at, 0), viewColumn: editorColumn(chatColumn) });
      },
      (error: unknown) => vscode.window.showWarningMessage(`Cannot open ${location.path}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  showTerminal(session: Session, toolCallId: string, terminalId: string, agentName: string): void {
    if (!session.model.terminals.has(terminalId)) return;
    const title = session.model.toolCall(toolCallId)?.title || 'command';
    this.mirrors.show(session, terminalId, `${agentName}: ${title.length > 40 ? `${title.slice(0, 39)}\u2026` : title}`);
  }
}
