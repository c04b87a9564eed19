// What the composer gathers for a message, besides what the user types: `@` mentions (files, folders, symbols,
// problems, the terminal, the changes), files and folders dropped on it, and the prompt files under `/` with their
// inputs asked in the chat. The panel owns one per chat; this talks to the panel only through ComposerHost.
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { ChatModel } from './chatModel';
import type { ChatFiles } from '../composer/mentions';
import { fillPrompt } from '../composer/promptFiles';
import type { ChatPrompts } from '../composer/promptLibrary';
import type { NewAttachment } from '../composer/prompt';
import type { FileMatch, MentionKind, PromptView } from './protocol';

/** What the composer's context needs besides the chat's model. */
export interface ComposerRoom {
  /** Attaches to the message being written; with `bringForward`, the chat comes forward with the keyboard in its composer. */
  attach(attachment: NewAttachment, bringForward: boolean): void;
}

export class ComposerContext implements vscode.Disposable {
  /** Listings asked for so far. */
  private listings = 0;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly files: ChatFiles,
    private readonly promptFiles: ChatPrompts,
    private readonly model: ChatModel,
    private readonly room: ComposerRoom,
    private readonly log: Logger,
  ) {
    this.subscription = promptFiles.onDidChange(() => void this.listPrompts());
    void this.listPrompts();
  }

  /** What `@query` offers, as the composer's list shows it. */
  complete(query: string): Promise<FileMatch[]> {
    return this.files.search(query);
  }

  /** What `@` picked, attached with its size (a large one waits for Attach Anyway), or why not. */
  async mention(kind: MentionKind, id: string): Promise<void> {
    const found = await this.files.attach(kind, id, {
      cwd: this.model.session?.cwd,
      sessionId: this.model.session?.sessionId,
      agent: this.model.agentName,
    });
    // Typed in the composer: the keyboard is left where it is now.
    this.settle(found, false);
  }

  /** Files and folders dropped on the composer: each one in the workspace is attached, the others are said. */
  async drop(uris: readonly string[]): Promise<void> {
    for (const uri of uris) this.settle(await this.files.attachUri(uri), true);
  }

  /**
   * A prompt file picked under `/`: its `${input:…}` variables are asked in the chat (one form), then its text, filled
   * in, goes into the composer for the user to read, change and send. Resolves with that text, or undefined.
   */
  async usePrompt(name: string, source: PromptView['source']): Promise<string | undefined> {
    const file = await this.promptFiles.read(name, source);
    if (!file) {
      this.model.tell(vscode.l10n.t('The prompt file "{0}" could not be read.', name));
      return undefined;
    }
    const values: Record<string, string> = {};
    if (file.inputs.length > 0) {
      const answer = await this.model.questions.ask({
        message: vscode.l10n.t('The prompt "{0}" needs these values.', file.name),
        form: {
          type: 'object',
          properties: Object.fromEntries(
            file.inputs.map((input) => [
              input.name,
              { type: 'string', title: input.name, ...(input.placeholder ? { description: input.placeholder } : {}) },
            ]),
          ),
          required: file.inputs.map((input) => input.name),
        },
      });
      if (answer.action !== 'accept') {
        this.model.tell(vscode.l10n.t('The prompt "{0}" was not used.', file.name));
        return undefined;
      }
      for (const [key, value] of Object.entries(answer.content ?? {})) values[key] = String(value);
    }
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    const cwd = this.model.session?.cwd;
    const text = fillPrompt(file, values, {
      ...(editor && !editor.selection.isEmpty ? { selection: editor.document.getText(editor.selection) } : {}),
      ...(editor?.document.uri.scheme === 'file' ? { file: editor.document.uri.fsPath } : {}),
      ...(cwd ? { workspaceFolder: cwd } : {}),
    });
    this.model.setDraft(text);
    return text;
  }

  /** An attachment becomes a chip; a sentence says why not. Nothing once the chat is gone. */
  private settle(found: NewAttachment | string, bringForward: boolean): void {
    if (this.model.closed) return;
    if (typeof found === 'string') this.model.tell(found);
    else this.room.attach(found, bringForward);
  }

  /** The prompt files read again (the `/` list opened), told to the view; resolves with them. */
  async refreshPrompts(): Promise<readonly PromptView[]> {
    await this.listPrompts(true);
    return this.model.prompts;
  }

  private async listPrompts(fresh = false): Promise<void> {
    // Files change in bursts: only the latest listing counts, though an earlier one may finish after it.
    const asked = ++this.listings;
    let prompts: PromptView[];
    try {
      prompts = await this.promptFiles.list(fresh);
    } catch (error) {
      this.log.warn(`[chat] the prompt files could not be listed: ${errorMessage(error)}`);
      return;
    }
    if (asked !== this.listings) return;
    this.model.showPrompts(prompts);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
