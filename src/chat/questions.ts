// The questions a chat shows: the agent's (`elicitation/create`, its own or a subagent's) and the chat's own (a
// prompt file's inputs), answered the same way. Each is state plus a resolver (see acp/elicitations.ts); this checks
// an answer against the question's form before it resolves it, and opens a url question's page only on the user's
// click and only for http and https.
import * as vscode from 'vscode';
import type { Elicitations, ElicitationAnswer, PendingElicitation } from '../acp/elicitations';
import type { ChatModel } from './chatModel';
import { fieldValue, type FieldInput } from './protocol';
import { elicitationViews } from './elicitationViews';
import { failureText } from '../common/failureText';

export class ChatQuestions {
  /** The questions of the chat whose model is `model`: the agent's, its subagents', and the chat's own (the model's). */
  constructor(private readonly model: ChatModel) {}

  /** Asks the user in the chat, beside the agent's questions. */
  ask(question: Omit<PendingElicitation, 'id'>): Promise<ElicitationAnswer> {
    return this.model.questions.ask(question);
  }

  /**
   * The user's answer to a question: Submit (each field's value checked and typed as its schema says), Decline or
   * Cancel. Returns why a Submit was refused (the chat shows the same messages), or undefined when it was answered.
   */
  answer(id: number, action: 'accept' | 'decline' | 'cancel', values: Readonly<Record<string, FieldInput>>, sessionId?: string): string | undefined {
    const elicitations = this.of(id, sessionId);
    const question = elicitations?.all.find((q) => q.id === id);
    if (!elicitations || !question) return vscode.l10n.t('The question is no longer waiting.');
    if (action !== 'accept') {
      if (question.opened) elicitations.dismiss(id);
      else elicitations.answer(id, { action });
      return undefined;
    }
    if (question.url) return vscode.l10n.t('Open the page to answer this question.');
    const form = elicitationViews([question])[0]?.form;
    if (!form || form.unsupported.length > 0) return vscode.l10n.t('This question cannot be answered here; decline or cancel it.');
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const field of form.fields) {
      const { value, error } = fieldValue(vscode.l10n.t, field, values[field.name]);
      if (error) return `${field.label}: ${error}`;
      if (value !== undefined) content[field.name] = value;
    }
    elicitations.answer(id, { action: 'accept', content });
    return undefined;
  }

  /** Open on a url question: the page opens in the browser (only http and https), and the agent hears the user agreed. */
  async openUrl(id: number, sessionId?: string): Promise<boolean> {
    const elicitations = this.of(id, sessionId);
    const question = elicitations?.all.find((q) => q.id === id);
    if (!elicitations || !question?.url || question.opened) return false;
    let uri: vscode.Uri;
    try {
      const url = new URL(question.url.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(url.protocol);
      uri = vscode.Uri.parse(url.toString(), true);
    } catch {
      this.model.tell(
        vscode.l10n.t('The agent asked to open "{0}", which is not a web address, so it was not opened.', question.url.url.slice(0, 200)),
      );
      elicitations.answer(id, { action: 'decline' });
      return false;
    }
    // VS Code may ask the user first (a site they have not trusted): the agent hears "accept" only once it opened.
    let opened = false;
    try {
      opened = await vscode.env.openExternal(uri);
    } catch (error) {
      this.model.tell(vscode.l10n.t('The page could not be opened: {0}', failureText(error)));
    }
    if (opened) elicitations.answer(id, { action: 'accept' });
    return opened;
  }

  /** The chat's own questions when `id` is one of them, else the agent's (or a subagent's). */
  private of(id: number, sessionId: string | undefined): Elicitations | undefined {
    const local = this.model.questions;
    return local.all.some((q) => q.id === id) ? local : this.model.modelOf(sessionId)?.elicitations;
  }
}
