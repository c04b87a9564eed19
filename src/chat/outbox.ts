// What leaves the chat for the agent: the attachments of the message being written, the send itself, and what a
// message written while a turn runs becomes (queued, steered into the turn, or sent after a stop; see whileBusy.ts).
// It reads the chat's session from the chat's model and writes the queue and the attachments into it.
import * as vscode from 'vscode';
import { ACCEPTS_NOTHING, type PromptAccepts } from '../acp/capabilities';
import { AcpError, errorMessage, PromptRefusedError } from '../acp/errors';
import type { SteerOutcome } from '../acp/sessionHandle';
import type * as S from '../acp/schema.gen';
import { failureText } from '../common/failureText';
import { Attachments } from '../composer/attachments';
import { ASK_BYTES } from '../composer/contextText';
import { buildPrompt, type Attachment, type NewAttachment } from '../composer/prompt';
import type { ChatModel } from './chatModel';
import { imageRefusal, sizeLabel } from './protocol';
import type { WhileBusy } from './queue';
import { WhileBusyMessages } from './whileBusy';

/** What the outbox needs besides the chat's model. */
export interface OutboxServices {
  /** A file's current text (its editor buffer, unsaved edits included), for an agent that takes embedded context. */
  readText(path: string): Promise<string | undefined>;
  /** Brings the chat forward (context came from the editor). */
  bringForward(): void;
  /** The agent refused a message until the user signs in. */
  signIn(): void;
  /** Keeps an image as a file (for an agent that does not take images, which gets a link to it); answers its path. */
  saveImage(mimeType: string, data: string): Promise<string>;
}

export class Outbox implements vscode.Disposable {
  private readonly attachments = new Attachments();
  /** Pasted images being saved for an agent that does not take images, by the page's name for them. */
  private readonly saving = new Map<string, Promise<void>>();
  /** Messages written while a turn runs: queued, steered into it, or sent once it is stopped. */
  private readonly whileBusy: WhileBusyMessages<Attachment, S.StopReason>;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly model: ChatModel,
    private readonly host: OutboxServices,
  ) {
    this.whileBusy = new WhileBusyMessages<Attachment, S.StopReason>(
      {
        send: (text, attachments) => this.sendTaken(text, attachments),
        steer: (text, attachments) => this.steerTaken(text, attachments),
        canSteer: () => model.session?.client.capabilities.supports('steering') ?? false,
        busy: () => (model.session?.model.turn.phase ?? 'idle') !== 'idle',
        cancel: () => model.session?.cancel() ?? Promise.resolve(),
        giveBack: (text, attachments, reason) => this.giveBack(text, attachments, reason),
        changed: () => model.show('queue', this.whileBusy.view()),
        tell: (text) => model.tell(text),
      },
      model.agentName,
    );
    // The queue's view says what Enter does while a turn runs: it follows the setting.
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('acp.chat.whileBusy')) model.show('queue', this.whileBusy.view());
    });
    model.onDidChange((change) => {
      // A restarted agent or a reloaded chat gets nothing that waited without the user's word.
      if (change.kind === 'whole' && change.attached) this.whileBusy.hold();
      // The running turn ended: the next message goes, or the queue holds.
      if (change.kind === 'part' && change.ended) this.whileBusy.turnEnded(change.ended);
    });
  }

  /**
   * Enter or a send button with the attachments the composer chose: sent now, or (while a turn runs) queued, steered
   * or sent after a stop. Resolves with the stop reason of the turn it started; undefined when it did not start one
   * (queued, steered). Rejects when it cannot be sent; the chat has said why, and the draft went back.
   */
  async submit(
    text: string,
    listed: readonly string[],
    mode: WhileBusy | undefined,
    images: readonly string[] = [],
  ): Promise<S.StopReason | undefined> {
    // Images the page pasted just before (their chips not back yet) go with the message: saved first, if they are.
    await Promise.all(images.map((token) => this.saving.get(token)));
    const ids = [...listed, ...this.attachments.views.filter((a) => a.token !== undefined && images.includes(a.token)).map((a) => a.id)];
    const waiting = this.attachments.views.find((a) => ids.includes(a.id) && a.confirm);
    if (waiting) {
      const refused = new PromptRefusedError({ reason: 'attachmentWaiting', label: waiting.label, size: sizeLabel(waiting.size ?? 0) });
      const reason = failureText(refused);
      this.model.tell(reason);
      this.model.say({ type: 'sendFailed', text, reason });
      throw refused;
    }
    const chosen = this.attachments.take(ids);
    this.postAttachments(false);
    return this.whileBusy.submit(text, chosen, mode);
  }

  /** Every attachment's id, for a send with everything attached. */
  get allIds(): readonly string[] {
    return this.attachments.ids;
  }

  /** Sends a message with its own context (not the composer's attachments), as a message the user sent. */
  sendContext(text: string, context: readonly NewAttachment[]): Promise<S.StopReason> {
    return this.sendPrompt(
      text,
      context.map((a, i) => ({ ...a, id: `context-${i}` }) as Attachment),
    );
  }

  /** A queued message's buttons: back into the composer to edit, out of the queue, up or down. */
  changeQueued(id: number, action: 'edit' | 'remove' | 'up' | 'down'): void {
    if (action === 'edit') this.whileBusy.edit(id);
    else if (action === 'remove') this.whileBusy.remove(id);
    else this.whileBusy.move(id, action === 'up' ? -1 : 1);
  }

  /** Send on a held queue. */
  sendHeld(): void {
    this.whileBusy.sendHeld();
  }

  /** Messages that were queued when the window closed: they wait for the user's Send. */
  restoreQueued(texts: readonly string[]): void {
    this.whileBusy.queue.restore(texts.map((text) => ({ text, attachments: [] })));
    this.model.show('queue', this.whileBusy.view());
  }

  /**
   * Adds context to the message being written. From the editor's commands (or a drop on the composer), the chat comes
   * forward with the keyboard in its composer; from what the user typed in the composer (a mention, a paste), they
   * are there already, and the keyboard stays where it went meanwhile: a palette opened while a symbol was looked up
   * would otherwise close under them.
   */
  add(attachment: NewAttachment, bringForward = true): void {
    const large = (attachment.size ?? 0) > ASK_BYTES;
    this.attachments.add(large ? { ...attachment, confirm: true } : attachment);
    if (bringForward) this.host.bringForward();
    this.postAttachments(bringForward);
  }

  /** Attach Anyway on a chip past the bound. */
  confirm(id: string): void {
    this.attachments.confirm(id);
    this.postAttachments(false);
  }

  remove(id: string): void {
    this.attachments.remove(id);
    this.postAttachments(false);
  }

  /** An image pasted or dropped on the composer (base64), attached unless the agent cannot take it. */
  attachImage(name: string, mimeType: string, data: string, token?: string): void {
    const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
    const refusal =
      imageRefusal(vscode.l10n.t, mimeType, bytes) ??
      (/^[A-Za-z0-9+/]*={0,2}$/.test(data) ? undefined : vscode.l10n.t('The image could not be read.'));
    if (refusal) {
      this.model.tell(refusal);
      return;
    }
    const named = token !== undefined ? { token } : {};
    if (this.accepts.image) {
      this.add({ kind: 'image', label: name || 'pasted image', mimeType, data, ...named }, false);
      return;
    }
    // An agent that does not take images gets a link to a saved copy, which it may open with its own tools. A message
    // sent meanwhile that names the image waits for it (see submit).
    const saving = this.host.saveImage(mimeType, data).then(
      (path) => {
        this.add({ kind: 'file', path, label: name || vscode.l10n.t('pasted image'), ...named }, false);
        this.model.tell(vscode.l10n.t('{0} does not take images: the image was saved and is attached as a link to {1}.', this.model.agentName, path));
      },
      (error: unknown) => this.model.tell(vscode.l10n.t('The image was not attached: {0}', errorMessage(error))),
    );
    if (token === undefined) return;
    this.saving.set(token, saving);
    void saving.finally(() => this.saving.delete(token));
  }

  private get accepts(): PromptAccepts {
    return this.model.session?.client.capabilities.accepts ?? ACCEPTS_NOTHING;
  }

  /**
   * Sends a message whose attachments already left the composer. A refused send gives the draft and the
   * attachments back; one the agent refused until the user signs in also starts signing in.
   */
  private async sendTaken(text: string, chosen: readonly Attachment[]): Promise<S.StopReason> {
    try {
      return await this.sendPrompt(text, chosen);
    } catch (error) {
      if (error instanceof PromptRefusedError) this.giveBack(text, chosen, failureText(error));
      else if (error instanceof AcpError && error.isAuthRequired) {
        this.giveBack(text, chosen, vscode.l10n.t('{0} needs you to sign in first.', this.model.agentName));
        this.host.signIn();
      }
      throw error;
    }
  }

  /** Sends a message into the running turn; a refusal (the turn just ended) queues it instead. */
  private async steerTaken(text: string, chosen: readonly Attachment[]): Promise<SteerOutcome> {
    const session = this.model.session;
    try {
      if (!session) throw new PromptRefusedError({ reason: 'notConnected', agent: this.model.agentName });
      return await session.steer(buildPrompt(text, chosen, new Map(), this.accepts));
    } catch (error) {
      if (!(error instanceof PromptRefusedError)) throw error;
      void this.whileBusy.submit(text, chosen, 'queue');
      return 'failed';
    }
  }

  private giveBack(text: string, attachments: readonly Attachment[], reason: string): void {
    this.attachments.giveBack(attachments);
    this.postAttachments(false);
    this.model.say(reason ? { type: 'sendFailed', text, reason } : { type: 'editQueued', text });
  }

  private async sendPrompt(text: string, attachments: readonly Attachment[]): Promise<S.StopReason> {
    const session = this.model.session;
    if (!session) throw new PromptRefusedError({ reason: 'notConnected', agent: this.model.agentName });
    const files = new Map<string, string | undefined>();
    if (this.accepts.embeddedContext) {
      for (const a of attachments) if (a.kind === 'file') files.set(a.path, await this.host.readText(a.path));
    }
    const prompt = buildPrompt(text, attachments, files, this.accepts);
    if (prompt.length === 0) throw new PromptRefusedError({ reason: 'empty' });
    this.lastPrompt = { session, prompt };
    return session.prompt(prompt);
  }

  /**
   * Retry on a failed turn: the message sent last, again as it went (its text and its attachments' content then),
   * without editing. The failed turn stays in the conversation above it.
   */
  async retry(): Promise<S.StopReason | undefined> {
    const last = this.lastPrompt;
    const session = this.model.session;
    if (!last || last.session !== session) {
      this.model.tell(vscode.l10n.t('There is no message of this session to send again.'));
      return undefined;
    }
    if (session.model.turn.phase !== 'idle') return undefined;
    this.model.clearNotice();
    return session.prompt([...last.prompt]);
  }

  /** The message sent last, as it went, and its session: what Retry sends again. */
  private lastPrompt: { readonly session: NonNullable<ChatModel['session']>; readonly prompt: readonly S.ContentBlock[] } | undefined;

  private postAttachments(focus: boolean): void {
    this.model.showAttachments(this.attachments.views, focus);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
