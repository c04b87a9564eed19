// Continue with Another Agent…: a new chat with the agent the user picks, the conversation so far attached, and a
// short brief in its composer for the user to edit and send; nothing is sent by itself. The conversation is a
// Markdown export kept in the extension's storage and attached as a file: the agent gets it embedded when it takes
// embedded context, else as a link (the same rule as every attached file). The newest exports are kept, the rest go.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import type { AgentCatalog } from '../agents/catalog';
import { agentItems } from '../agents/pickers';
import type { ChatPanel } from '../chat/panel';
import { failureText } from '../common/failureText';

/** Hand-off exports kept; older ones are removed as new ones are written. */
const KEPT_EXPORTS = 20;

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
        title: vscode.l10n.t('Continue with Another Agent'),
        placeHolder: vscode.l10n.t('Choose the agent that continues \u201c{0}\u201d', from.title),
      });
      if (!pick?.agent) return undefined;
      name = pick.agent.name;
    }
    let file: string;
    try {
      file = await this.write(from);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The conversation could not be saved for {0}: {1}', name, failureText(error)));
      return undefined;
    }
    const panel = await this.newChat(name);
    if (!panel) return undefined;
    this.log.info(`[chats] "${from.title}" handed from ${from.agent} to ${name}`);
    panel.addAttachment({ kind: 'file', path: file, label: vscode.l10n.t('Conversation with {0}', from.agent) });
    panel.setDraft(
      vscode.l10n.t(
        'The attached file is my conversation with {0} about \u201c{1}\u201d. Read it, then continue where it left off: ',
        from.agent,
        from.title,
      ),
    );
    return panel;
  }

  /** Writes the export, and removes the oldest past the number kept. */
  private async write(from: HandedOff): Promise<string> {
    const folder = join(this.storage.fsPath, 'handoffs');
    await fs.mkdir(folder, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(folder, `${stamp}-${fileName(from.title)}.md`);
    await fs.writeFile(file, from.markdown, { encoding: 'utf8', mode: 0o600 });
    const names = (await fs.readdir(folder)).filter((n) => n.endsWith('.md')).sort();
    for (const old of names.slice(0, Math.max(0, names.length - KEPT_EXPORTS)))
      await fs.rm(join(folder, old), { force: true }).catch(() => undefined);
    return file;
  }
}

/** A title as part of a file name: letters, digits and dashes, bounded. */
function fileName(title: string): string {
  return (
    title
      .normalize('NFKD')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'chat'
  );
}
