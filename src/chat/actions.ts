// What the chat's tool-card buttons do in the editor. The webview names a card and an index; the path, diff or
// terminal comes from the session model, so a view can never make the host open something the agent did not say.
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { ChatActions } from './panel';
import { linkTarget } from './links';
import { diffsOf, planFileOf, planOf } from '../acp/toolCalls';
import type { SessionModel } from '../acp/sessionModel';
import { PlanReviews } from '../plans/planReviews';
import { openAgentSettings } from '../settings/config';
import type { DiffDocuments } from '../editor/diffs';
import { workspaceRoots } from '../common/workspace';
import { editorColumn } from '../common/editorColumn';
import { checkPath } from '../common/paths';
import type { TerminalMirrors } from '../editor/terminalMirror';
import { failureText } from '../common/failureText';
import { saveImage } from '../composer/imageFiles';

export class EditorChatActions implements ChatActions, vscode.Disposable {
  /** The text editor the user was last in: a focused chat is not a text editor, so the active one is gone by then. */
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private readonly subscription = vscode.window.onDidChangeActiveTextEditor((editor) => {
    if (editor) this.lastEditor = editor;
  });

  constructor(
    private readonly diffs: DiffDocuments,
    private readonly mirrors: TerminalMirrors,
    readonly showLog: () => void,
    /** The extension's storage folder, where an image opened full size is written. */
    private readonly storage: string,
    /** Plans opened for review, where comments become feedback. */
    private readonly plans: PlanReviews,
  ) {}

  openImage(mimeType: string, data: string): void {
    void saveImage(this.storage, mimeType, data).then(
      (file) => vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file), { preview: true, viewColumn: vscode.ViewColumn.Beside }),
      (error: unknown) => vscode.window.showWarningMessage(vscode.l10n.t('The image could not be opened: {0}', failureText(error))),
    );
  }

  openImageFile(path: string): void {
    void vscode.commands.executeCommand('vscode.open', vscode.Uri.file(path), { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  openAgentSettings(): void {
    void openAgentSettings();
  }

  manageTrust(): void {
    void vscode.commands.executeCommand('workbench.trust.manage');
  }

  showDiff(session: AgentSession, toolCallId: string, index: number): void {
    const call = session.model.toolCall(toolCallId);
    const diff = call && diffsOf(call)[index];
    if (diff) void this.diffs.show(diff, { preserveFocus: false, preview: true });
  }

  /** A location the agent reported: opened only inside the workspace (or the chat's worktree), as a chat link is. */
  openLocation(session: AgentSession, toolCallId: string, index: number): Thenable<unknown> {
    const location = session.model.toolCall(toolCallId)?.locations[index];
    if (!location) return Promise.resolve();
    const verdict = checkPath(location.path, session.workspace ?? workspaceRoots());
    if (verdict.kind === 'inside') return openAtLine(verdict.path, location.line ?? undefined);
    // Said, not awaited: the message stays until the user closes it.
    void vscode.window.showWarningMessage(
      vscode.l10n.t('The chat opens only files inside the workspace; {0} is not.', String(location.path).slice(0, 300)),
    );
    return Promise.resolve();
  }

  openPlan(session: AgentSession, planId: string, agent: string): void {
    const plan = session.model.plans.get(planId);
    if (plan?.kind === 'markdown') void this.plans.open({ sessionId: session.sessionId, agent, text: plan.markdown });
    if (plan?.kind !== 'file') return;
    const path = planFilePath(plan.uri);
    if (path) openAtLine(path, undefined);
    else void vscode.window.showWarningMessage(vscode.l10n.t('The plan was not opened: {0} is not a file on this computer.', plan.uri));
  }

  /** The plan of an approval still waiting: its text, or the Markdown file it names, read-only beside the chat. */
  async openPlanReview(
    session: AgentSession,
    agent: string,
    model: SessionModel | undefined,
    id: number,
    sessionId: string | undefined,
  ): Promise<void> {
    const pending = model?.permissions.find((p) => p.id === id);
    const call = pending && model?.toolCall(pending.toolCallId);
    if (!call) return;
    const file = planFileOf(call);
    const read = planOf(call) ?? (file ? await PlanReviews.readPlanFile(file) : undefined);
    if (read === undefined) return;
    if (typeof read !== 'string' && 'refused' in read) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The plan was not opened: {0}', read.refused));
      return;
    }
    const text = typeof read === 'string' ? read : read.text;
    await this.plans.open({
      sessionId: session.sessionId,
      agent,
      text,
      approval: { permissionId: id, toolCallId: call.toolCallId, ...(sessionId ? { sessionId } : {}) },
    });
  }

  openLink(href: string, cwd: string | undefined): void {
    const target = linkTarget(href, cwd);
    switch (target.kind) {
      case 'web':
        // VS Code's opener: it asks before opening a domain the user has not trusted.
        void vscode.env.openExternal(vscode.Uri.parse(target.uri, true));
        return;
      case 'file': {
        const verdict = checkPath(target.path, workspaceRoots());
        if (verdict.kind === 'inside') openAtLine(verdict.path, target.line);
        else void vscode.window.showWarningMessage(vscode.l10n.t('The chat opens only files inside the workspace; {0} is not.', target.path));
        return;
      }
      case 'refused':
        void vscode.window.showWarningMessage(vscode.l10n.t('The link was not opened: {0}.', target.reason));
        return;
    }
  }

  copy(text: string): void {
    void vscode.env.clipboard.writeText(text).then(() => vscode.window.setStatusBarMessage(vscode.l10n.t('Copied to the clipboard'), 2000));
  }

  insertAtCursor(text: string): void {
    const editor = this.lastEditor;
    const open = editor && vscode.window.visibleTextEditors.includes(editor) ? editor : undefined;
    if (!open) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Open a file and put the cursor where the code should go, then choose Insert at Cursor again.'),
      );
      return;
    }
    void open
      .edit((edit) => {
        for (const selection of open.selections) edit.replace(selection, text);
      })
      .then(() => vscode.window.showTextDocument(open.document, { viewColumn: open.viewColumn, preserveFocus: false }));
  }

  dispose(): void {
    this.subscription.dispose();
  }

  showTerminal(session: AgentSession, toolCallId: string, terminalId: string, agentName: string): void {
    if (!session.model.terminals.has(terminalId)) return;
    const title = session.model.toolCall(toolCallId)?.title || vscode.l10n.t('command');
    this.mirrors.show(session, terminalId, vscode.l10n.t('{0}: {1}', agentName, title.length > 40 ? `${title.slice(0, 39)}\u2026` : title));
  }
}

/** The local path of a plan's file: a `file:` uri or an absolute path; undefined for anything else. */
function planFilePath(uri: string): string | undefined {
  if (isAbsolute(uri) && !/^[a-z][a-z0-9+.-]+:/i.test(uri) && !/^[\\/]{2}/.test(uri)) return uri;
  try {
    const parsed = vscode.Uri.parse(uri, true);
    // A host in the uri would be a network share (UNC on Windows): only this computer's files open.
    return parsed.scheme === 'file' && parsed.authority === '' && !uri.includes('\0') ? parsed.fsPath : undefined;
  } catch {
    return undefined;
  }
}

/** Opens a file at a 1-based line, in an editor group other than the chat's; settles once it is open (or not). */
function openAtLine(path: string, line: number | undefined): Thenable<unknown> {
  const uri = vscode.Uri.file(path);
  const chatColumn = vscode.window.tabGroups.activeTabGroup.viewColumn;
  return vscode.workspace.openTextDocument(uri).then(
    (doc) => {
      const at = Math.min(Math.max((line ?? 1) - 1, 0), Math.max(doc.lineCount - 1, 0));
      return vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, 0, at, 0), viewColumn: editorColumn(chatColumn) });
    },
    (error: unknown) => void vscode.window.showWarningMessage(vscode.l10n.t('Cannot open {0}: {1}', path, failureText(error))),
  );
}
