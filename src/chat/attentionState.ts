// What one chat's tab says: what the chat asks of its user now (see attention.ts for the rule), kept as its turn,
// its waiting requests and the user's looks change, and its title with that state's mark in front. The panel owns
// one; it fires when either changes.
import * as vscode from 'vscode';
import type { SessionModel } from '../acp/sessionModel';
import { attentionMark, attentionOf, type Attention } from './attention';

export interface AttentionSource {
  readonly agentName: string;
  /** The chat's session's model, if one is attached. */
  model(): SessionModel | undefined;
  /** What waits for the user besides the session's own permission requests: its questions, its subagents' requests and questions, the chat's own questions. */
  othersWaiting(): number;
  /** The agent is gone with an error, or could not start. */
  agentFailed(): boolean;
  /** The chat is in front of the user: its tab active in a window that has the focus. */
  inView(): boolean;
  /** Shows the tab's title. */
  show(tab: string): void;
}

export class AttentionState implements vscode.Disposable {
  /** The user has seen the chat since its last turn ended. */
  private seen = true;
  private state: Attention = 'none';
  private plainTitle: string;
  private shownTitle = '';
  private disposed = false;
  private readonly emitter = new vscode.EventEmitter<{ readonly before: Attention; readonly after: Attention }>();
  /** What the chat asks of its user changed: working, needs you, done and not yet seen, failed, or nothing. */
  readonly onDidChange = this.emitter.event;
  private readonly titleEmitter = new vscode.EventEmitter<void>();
  /** The tab's title changed (the session's title, the count of waiting permission requests, or the mark). */
  readonly onDidChangeTitle = this.titleEmitter.event;

  constructor(private readonly source: AttentionSource) {
    this.plainTitle = source.agentName;
  }

  get current(): Attention {
    return this.state;
  }

  /** The title without the mark: what lists and the Sessions view show beside the state in words. */
  get title(): string {
    return this.plainTitle;
  }

  /** Shows the title again (on a surface the chat just moved to). */
  showTitle(): void {
    if (this.disposed) return;
    this.shownTitle = attentionMark(this.state) + this.plainTitle;
    this.source.show(this.shownTitle);
  }

  /** A turn ended: it is "done, not yet seen" unless the user is looking at the chat. */
  turnEnded(): void {
    this.seen = this.source.inView();
  }

  /** The user may have just looked at the chat. */
  look(): void {
    if (!this.source.inView() || this.seen) return;
    this.seen = true;
    this.refresh();
  }

  /** Something it depends on changed: the turn, a request waiting, the agent's failure, the session's title. */
  refresh(): void {
    if (this.disposed) return; // the tab is gone
    const model = this.source.model();
    const turn = model?.turn ?? { phase: 'idle' as const };
    const background = model?.background.running ?? false;
    // The last of the background work ended: the chat is done now, "not yet seen" unless the user is looking.
    if (this.state === 'background' && !background) this.seen = this.source.inView();
    const after = attentionOf({
      phase: turn.phase,
      stopReason: turn.phase === 'idle' ? turn.stopReason : undefined,
      error: turn.phase === 'idle' ? turn.error : undefined,
      waiting: (model?.permissions.length ?? 0) + this.source.othersWaiting(),
      agentFailed: this.source.agentFailed(),
      seen: this.seen,
      background,
    });
    const before = this.state;
    this.state = after;
    this.retitle();
    if (after !== before) this.emitter.fire({ before, after });
  }

  /** The session's title (or the agent's name), with the count of waiting permission requests, and the mark in front. */
  private retitle(): void {
    const model = this.source.model();
    const base = model?.title || this.source.agentName;
    const waiting = model?.permissions.length ?? 0;
    const title = waiting > 0 ? `(${waiting}) ${base}` : base;
    const tab = attentionMark(this.state) + title;
    if (title === this.plainTitle && tab === this.shownTitle) return;
    this.plainTitle = title;
    this.shownTitle = tab;
    this.source.show(tab);
    this.titleEmitter.fire();
  }

  dispose(): void {
    this.disposed = true;
    this.emitter.dispose();
    this.titleEmitter.dispose();
  }
}
