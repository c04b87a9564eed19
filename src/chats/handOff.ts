// Continue with Another Agent…: a new chat with the agent the user picks, the conversation so far attached, and a
// short brief in its composer for the user to edit and send; nothing is sent by itself. The conversation is a
// Markdown export kept in the extension's storage (conversationFile.ts) and attached as a file: the agent gets it embedded when it takes
// embedded context, else as a link (the same rule as every attached file).
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import type { AgentCatalog } from '../agents/catalog';
import { agentItems } from '../agents/pickers';
import type { ChatPanel } from '../chat/panel';
import { failureText } from '../common/failureText';
import { writeConversation } from './conversationFile';

/** The conversation handed off: its Markdown, its title, and the agent it was with. */
export interface HandedOff {
  readonly markdown: string;
  readonly title: string;
  readonly agent: string;
}

export class HandOff {
  constructor(
    private readonly newChat: (agentName: string) => Promise<ChatPanel | undefined>,
    private readonly catalog: Pick<AgentCatalog, 'read'>,
    /** The extension's own storage folder: the exports are kept under it. */
    private readonly storage: vscode.Uri,
    private readonly log: Logger,
  ) {}

  /** Opens the new chat with `agentName`, or the agent the user picks; undefined when cancelled or it did not open. */
  async continueWith(from: HandedOff, agentName?: string): Promise<ChatPanel | undefined> {
    const { agents } = this.catalog.read();
    let name = agentName !== undefined && agents.some((a) => a.name === agentName) ? agentName : undefined;
    if (name === undefined) {
      const pick = await vscode.window.showQuickPick(agentItems(agents), {
        ignoreFocusOut: true,
        title: vscode.l10n.t('Continue with Another Agent'),
        placeHolder: vscode.l10n.t('Choose the agent that continues \u201c{0}\u201d', from.title),
      });
      if (!pick?.agent) return undefined;
      name = pick.agent.name;
    }
    let file: string;
    try {
      file = await writeConversation(this.storage.fsPath, from.title, from.markdown);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The conversation could not be saved for {0}: {1}', name, failureText(error)));
      return undefined;
    }
    const panel = await this.newChat(name);
    if (!panel) return undefined;
    this.log.info(`[chats] "${from.title}" handed from ${from.agent} to ${name}`);
    panel.addAttachment({ kind: 'file', path: file, label: vscode.l10n.t('Conversation with {0}', from.agent) });
    panel.model.setDraft(
      vscode.l10n.t(
        'The attached file is my conversation with {0} about \u201c{1}\u201d. Read it, then continue where it left off: ',
        from.agent,
        from.title,
      ),
    );
    return panel;
  }
}
