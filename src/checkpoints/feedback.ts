// Feedback to the agent on its changes: the user comments on lines of a changed file (VS Code's own comment widget,
// in the diff editor of Review Changes or in the file), and Send Feedback turns the comments into the chat's next
// prompt, each quoting its file and lines. A comment belongs to the chat whose unkept changes include its file.
import * as vscode from 'vscode';
import type { NewAttachment } from '../composer/prompt';
import type { Checkpoints, TrackedChat } from './checkpoints';
import { uriOf } from './io';
import { DisposableStore } from '../common/disposables';

/** Sends a message with attachments in a chat, after its running turn (if any) has ended. */
/** Sends feedback to the chat named by its key (`chatKey`). */
export type SendFeedback = (key: string, text: string, attachments: readonly NewAttachment[]) => Promise<void>;

interface Held {
  readonly thread: vscode.CommentThread;
  /** The chat's key (`chatKey`). */
  readonly key: string;
}

export class Feedback implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly held: Held[] = [];
  private readonly disposables = new DisposableStore();

  constructor(
    private readonly checkpoints: Checkpoints,
    private readonly send: SendFeedback,
  ) {
    this.controller = vscode.comments.createCommentController('acp.feedback', vscode.l10n.t('Feedback to the agent'));
    this.controller.options = { prompt: vscode.l10n.t('Comment for the agent…'), placeHolder: vscode.l10n.t('What should the agent change here?') };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => (this.owner(document.uri) ? [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)] : []),
    };
    this.disposables.push(this.controller);
  }

  /** The chat whose unkept changes include this file, the latest first. */
  private owner(uri: vscode.Uri): TrackedChat | undefined {
    if (uri.scheme !== 'file') return undefined;
    const key = uri.toString();
    return [...this.checkpoints.tracked].reverse().find((chat) => chat.tracker.unreviewed().some((u) => uriOf(u.file).toString() === key));
  }

  add(reply: vscode.CommentReply): void {
    const chat = this.owner(reply.thread.uri);
    const text = reply.text.trim();
    if (!chat || text === '') return;
    const comment: vscode.Comment = { body: text, mode: vscode.CommentMode.Preview, author: { name: vscode.l10n.t('You') } };
    reply.thread.comments = [...reply.thread.comments, comment];
    reply.thread.canReply = true;
    reply.thread.label = vscode.l10n.t('Feedback for {0}', chat.title());
    reply.thread.contextValue = 'acpFeedback';
    if (!this.held.some((h) => h.thread === reply.thread)) this.held.push({ thread: reply.thread, key: chat.key });
    this.count(chat.key);
  }

  discard(thread: vscode.CommentThread): void {
    const index = this.held.findIndex((h) => h.thread === thread);
    const key = index >= 0 ? this.held[index]?.key : undefined;
    if (index >= 0) this.held.splice(index, 1);
    thread.dispose();
    if (key) this.count(key);
  }

  private count(key: string): void {
    const tracker = this.checkpoints.of(key);
    if (!tracker) return;
    tracker.comments = this.held.filter((h) => h.key === key).reduce((n, h) => n + h.thread.comments.length, 0);
    tracker.fire();
  }

  /** Send Feedback from a thread's title (that thread's chat) or from a card (`sessionFor`). */
  sendFor(thread: vscode.CommentThread | undefined): Promise<void> {
    const key = this.held.find((h) => h.thread === thread)?.key ?? this.held[this.held.length - 1]?.key;
    return key ? this.sendSession(key) : Promise.resolve();
  }

  /** Every comment held for a chat becomes one message: what to change, where, quoted. */
  async sendSession(key: string): Promise<void> {
    const threads = this.held.filter((h) => h.key === key).map((h) => h.thread);
    if (threads.length === 0) return;
    const lines: string[] = [vscode.l10n.t('Feedback on your changes:')];
    const attachments: NewAttachment[] = [];
    for (const thread of threads) {
      const document = await vscode.workspace.openTextDocument(thread.uri);
      const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
      const start = range.start.line + 1;
      const end = Math.max(start, range.end.line + 1);
      const label = `${vscode.workspace.asRelativePath(thread.uri)}:${start === end ? start : `${start}-${end}`}`;
      for (const comment of thread.comments) lines.push(`- ${label}: ${typeof comment.body === 'string' ? comment.body : comment.body.value}`);
      const text = document.getText(new vscode.Range(start - 1, 0, end, 0));
      attachments.push({ kind: 'selection', path: thread.uri.fsPath, label, text, startLine: start, endLine: end, languageId: document.languageId });
    }
    await this.send(key, lines.join('\n'), attachments);
    for (const thread of threads) this.discard(thread);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
