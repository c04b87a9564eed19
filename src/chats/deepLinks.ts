// Links into the editor that open a chat: VS Code hands the extension its `vscode://acp-client.acp-client/…` links
// (from a browser, a README, another tool); the entry point registers the handler, so a link works before any chat. A chat link opens a new chat with the prompt in its composer, for the user
// to read and send: it is never sent by itself, and no chat's draft is replaced. An agent the settings do not name
// gets the picker; a link never adds or configures an agent.
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import type { AgentCatalog } from '../agents/catalog';
import { agentItems } from '../agents/pickers';
import type { ChatPanel } from '../chat/panel';
import { parseChatLink } from './chatLink';

/** Opens the chat a link asks for; undefined when it is not a chat link, or the user cancelled. */
export async function openChatLink(
  uri: vscode.Uri,
  newChat: (agentName: string) => Promise<ChatPanel | undefined>,
  catalog: Pick<AgentCatalog, 'read'>,
  log: Logger,
): Promise<ChatPanel | undefined> {
  const link = parseChatLink(uri.path, uri.query);
  if ('error' in link) {
    log.warn(`[links] ignored a link: ${link.error}`);
    void vscode.window.showWarningMessage(vscode.l10n.t('The link was not opened: {0}.', link.error));
    return undefined;
  }
  log.info(`[links] a chat link for ${link.agent ?? 'any agent'}, with a prompt of ${link.prompt.length} characters`);
  const { agents } = catalog.read();
  let name = link.agent !== undefined && agents.some((a) => a.name === link.agent) ? link.agent : undefined;
  if (name === undefined) {
    const pick = await vscode.window.showQuickPick(agentItems(agents), {
      title: vscode.l10n.t('Open Chat from a Link'),
      placeHolder:
        link.agent === undefined
          ? vscode.l10n.t('Choose the agent for this chat')
          : vscode.l10n.t('The link asks for "{0}", which is not in your agents; choose the agent for this chat', link.agent),
      ignoreFocusOut: true,
    });
    if (!pick?.agent) return undefined;
    name = pick.agent.name;
  }
  const panel = await newChat(name);
  if (!panel) return undefined;
  // A new chat's composer: what the user is writing in another chat stays there.
  if (link.prompt !== '') panel.model.setDraft(link.prompt);
  // Said every time: what a link put in the box is someone else's words until the user has read them.
  const length = link.prompt.length.toLocaleString();
  panel.model.tell(
    [
      link.cut
        ? vscode.l10n.t('A link put this prompt of {0} characters in the message box, cut from a longer one: read it before you send it.', length)
        : vscode.l10n.t('A link put this prompt of {0} characters in the message box: read it before you send it.', length),
      link.removed > 0 ? vscode.l10n.t('{0} invisible characters in the link were taken out.', link.removed.toLocaleString()) : '',
    ]
      .filter(Boolean)
      .join(' '),
  );
  return panel;
}
