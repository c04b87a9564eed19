// Plans reviewed in an editor. A plan the agent asks to approve (or one it keeps as Markdown) opens as a read-only
// Markdown document of its own scheme, where the user comments on its lines with VS Code's own comment widget. Send
// Feedback on Plan turns the comments into the agent's answer: the chat answers the approval "keep planning" and
// sends the comments as its next prompt, each with the lines it is about (no agent takes feedback with its answer
// today: claude-agent-acp 0.101 and codex-acp 2.6 read only the option chosen). A plan file the agent names is read
// (Markdown, at most 1 MB) and shown the same way: the editor never writes it.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore, disposeAll } from '../common/disposables';

const PLAN_SCHEME = 'acp-plan';

/** Plans kept open for review at once; past it, the oldest is forgotten with its comments. */
const MAX_PLANS = 20;
const MAX_PLAN_FILE_BYTES = 1024 * 1024;
/** Characters of a commented line quoted with the comment. */
const QUOTE_CHARS = 120;

/** A plan under review, and where its feedback goes. */
export interface PlanUnderReview {
  /** The chat it belongs to: its agent, and its session. */
  readonly agent: string;
  readonly sessionId: string;
  /** The plan as Markdown. */
  readonly text: string;
  /** The approval it answers while that waits: the permission request's id, its tool call, and a subagent's session. */
  readonly approval?: { readonly permissionId: number; readonly toolCallId: string; readonly sessionId?: string };
}

/** Sends the feedback to the plan's chat; false when it could not (the chat was closed): the comments stay. */
export type DeliverPlanFeedback = (plan: PlanUnderReview, feedback: string) => Promise<boolean>;

export class PlanReviews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** By the document's URI, oldest first. */
  private readonly plans = new Map<string, PlanUnderReview>();
  private readonly threads = new Set<vscode.CommentThread>();
  private readonly controller: vscode.CommentController;
  private readonly disposables = new DisposableStore();
  private opened = 0;
  /** The plans whose feedback is on its way: a second Send waits for none and sends nothing twice. */
  private readonly sending = new Set<string>();

  constructor(private readonly deliver: DeliverPlanFeedback) {
    this.controller = vscode.comments.createCommentController('acp.planFeedback', vscode.l10n.t('Feedback on the plan'));
    this.controller.options = {
      prompt: vscode.l10n.t('Comment on the plan…'),
      placeHolder: vscode.l10n.t('What should the agent change in its plan?'),
    };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) =>
        this.plans.has(document.uri.toString()) ? [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)] : [],
    };
    this.disposables.push(this.controller, vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, this));
  }

  /** Opens `plan` in an editor tab beside the chat, as Markdown that cannot be edited. */
  async open(plan: PlanUnderReview, column?: vscode.ViewColumn): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${++this.opened}/${vscode.l10n.t('Plan')}.md`, query: plan.agent });
    this.plans.set(uri.toString(), plan);
    if (this.plans.size > MAX_PLANS) this.forget(this.plans.keys().next().value as string);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: false, viewColumn: column ?? vscode.ViewColumn.Beside });
  }

  /**
   * A plan file the agent names: its text, when it is an absolute path to a regular file of at most 1 MB; else why
   * not. Opened without waiting (a pipe named `plan.md` does not hold the read), checked and read through one handle.
   */
  static async readPlanFile(path: string): Promise<{ text: string } | { refused: string }> {
    if (!isAbsolute(path)) return { refused: vscode.l10n.t('{0} is not an absolute path.', path) };
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      const stats = await handle.stat();
      if (!stats.isFile()) return { refused: vscode.l10n.t('{0} is not a file.', path) };
      if (stats.size > MAX_PLAN_FILE_BYTES) return { refused: vscode.l10n.t('{0} is larger than 1 MB.', path) };
      const buffer = Buffer.alloc(MAX_PLAN_FILE_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_PLAN_FILE_BYTES, 0);
      return { text: buffer.subarray(0, bytesRead).toString('utf8') };
    } catch (error) {
      return { refused: vscode.l10n.t('{0} could not be read: {1}', path, error instanceof Error ? error.message : String(error)) };
    } finally {
      await handle?.close();
    }
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.plans.get(uri.toString())?.text ?? vscode.l10n.t('This plan is no longer kept for review.');
  }

  /** The reply of the comment widget: the user's comment on lines of a plan. */
  add(reply: vscode.CommentReply): void {
    const text = reply.text.trim();
    if (!this.plans.has(reply.thread.uri.toString()) || text === '') return;
    const comment: vscode.Comment = { body: text, mode: vscode.CommentMode.Preview, author: { name: vscode.l10n.t('You') } };
    reply.thread.comments = [...reply.thread.comments, comment];
    reply.thread.canReply = true;
    reply.thread.label = vscode.l10n.t('Feedback on the plan');
    reply.thread.contextValue = 'acpPlanFeedback';
    this.threads.add(reply.thread);
  }

  discard(thread: vscode.CommentThread): void {
    this.threads.delete(thread);
    thread.dispose();
  }

  /**
   * Send Feedback on Plan, from a thread's title (its plan) or the command palette (the plan in the active editor, or
   * the one last commented on: the focus may be in a comment's own box): every comment on that plan becomes one
   * message, each quoting the lines it is about.
   */
  async send(thread?: vscode.CommentThread): Promise<void> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const uri = (thread?.uri ?? (active && this.plans.has(active.toString()) ? active : [...this.threads].at(-1)?.uri))?.toString();
    const plan = uri === undefined ? undefined : this.plans.get(uri);
    if (!plan || uri === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a plan with Open Plan in Editor and comment on its lines first.'));
      return;
    }
    const threads = [...this.threads].filter((t) => t.uri.toString() === uri && t.comments.length > 0);
    if (threads.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Comment on lines of the plan first: the comments are the feedback.'));
      return;
    }
    const lines = plan.text.split(/\r?\n/);
    const feedback = [vscode.l10n.t('Feedback on your plan:')];
    for (const t of threads.sort((a, b) => (a.range?.start.line ?? 0) - (b.range?.start.line ?? 0))) {
      const start = (t.range?.start.line ?? 0) + 1;
      const end = Math.max(start, (t.range?.end.line ?? 0) + 1);
      const where = start === end ? vscode.l10n.t('Line {0}', start) : vscode.l10n.t('Lines {0}–{1}', start, end);
      const quoted = (lines[start - 1] ?? '').trim().slice(0, QUOTE_CHARS);
      for (const c of t.comments) feedback.push(`- ${where} (“${quoted}”): ${typeof c.body === 'string' ? c.body : c.body.value}`);
    }
    if (this.sending.has(uri)) return;
    this.sending.add(uri);
    try {
      if (!(await this.deliver(plan, feedback.join('\n')))) return;
    } finally {
      this.sending.delete(uri);
    }
    for (const t of threads) this.discard(t);
    // The approval is answered: the plan stays open to read, but later comments go as a new message.
    const { approval: _answered, ...kept } = plan;
    this.plans.set(uri, kept);
  }

  private forget(uri: string): void {
    this.plans.delete(uri);
    for (const t of [...this.threads]) if (t.uri.toString() === uri) this.discard(t);
  }

  dispose(): void {
    disposeAll(this.threads);
    this.threads.clear();
    this.disposables.dispose();
  }
}
