// What the user can do with a chat as a whole, open or kept: Rename Chat, Delete Chat, Fork Chat and Export Chat as
// Markdown. Each takes the chat it is run on: a row of the Sessions view, a session (`{agent, sessionId}`), or
// with nothing, the chat the user last worked in. Deleting asks first, and removes the transcript, the checkpoints
// and (when the agent advertises `session/delete`) the agent's own copy.
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { Chats } from '../chats/chats';
import type { ChatPanel } from '../chat/panel';
import type { HandOff } from '../chats/handOff';
import { workspaceRoots } from '../common/workspace';
import { exportMarkdown } from '../history/exportMarkdown';
import { summaryLabel } from '../history/format';
import { chatTarget, targetSession, type ChatTarget } from './chatTarget';
import { withAgentCopy } from './agentCopy';
import type { TranscriptStore } from '../history/transcripts';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';

export class ChatCommands implements vscode.Disposable {
  private readonly disposables: DisposableStore;

  constructor(
    private readonly chats: Chats,
    private readonly agents: AgentManager,
    private readonly store: TranscriptStore,
    private readonly log: Logger,
    private readonly handOff: HandOff,
  ) {
    this.disposables = new DisposableStore();
  }

  /** Fork Chat: a new chat from an open one, where the agent forks sessions. */
  async fork(value: unknown): Promise<ChatPanel | undefined> {
    const found = await this.target(value);
    if (!found) return undefined;
    if (!('open' in found)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open the chat first: only an open chat can be forked.'));
      return undefined;
    }
    return this.chats.fork(found.open);
  }

  /** Continue with Another Agent: the chat's Markdown goes to a new chat with `agentName` (or the one the user picks). */
  async continueWith(value: unknown, agentName: string | undefined): Promise<ChatPanel | undefined> {
    const chat = await this.markdownOf(value);
    if (!chat) return undefined;
    return this.handOff.continueWith(chat, agentName);
  }

  private target(value: unknown): Promise<ChatTarget | undefined> {
    return chatTarget(this.chats, this.store, value);
  }

  /** Rename Chat: `title`, or what the user types. */
  async rename(value: unknown, given: string | undefined): Promise<void> {
    const target = await this.target(value);
    if (!target) return;
    const current = 'open' in target ? target.open.title : summaryLabel(target.kept);
    const title =
      given ??
      (await vscode.window.showInputBox({
        ignoreFocusOut: true,
        title: vscode.l10n.t('Rename Chat'),
        value: current,
        prompt: vscode.l10n.t('The chat keeps this title on this computer (and with the agent, when it stores titles).'),
        validateInput: (text) => (text.trim() === '' ? vscode.l10n.t('Type a title.') : undefined),
      }));
    if (title === undefined || title.trim() === '') return;
    if ('open' in target) await this.chats.rename(target.open, title);
    else await this.store.retitle(target.kept.agent, target.kept.sessionId, title.trim().slice(0, 200));
  }

  /** Delete Chat, after the user confirms: the chat closes, and what this computer and the agent keep of it goes. */
  async delete(value: unknown): Promise<boolean> {
    const target = await this.target(value);
    if (!target) return false;
    const panel = 'open' in target ? target.open : undefined;
    const { agent, sessionId, cwd, title } = targetSession(target);
    const remove = vscode.l10n.t('Delete');
    const pick = await vscode.window.showQuickPick(
      [
        {
          label: `$(trash) ${remove}`,
          detail: vscode.l10n.t("Its messages, its checkpoints and the agent's copy (when the agent can delete sessions) are removed."),
          remove: true,
        },
        { label: vscode.l10n.t('Cancel'), remove: false },
      ],
      // A chat that takes the focus meanwhile (its turn ending) must not answer for the user.
      { title: vscode.l10n.t('Delete the chat "{0}"?', title), placeHolder: vscode.l10n.t('This cannot be undone.'), ignoreFocusOut: true },
    );
    if (!pick?.remove) return false;
    panel?.closeAgreed(); // what it runs in the background ends with it: deleting is the user's answer

    if (sessionId === undefined) return true;
    await this.store.remove(agent, sessionId);
    await this.deleteAtAgent(agent, sessionId, cwd);
    return true;
  }

  /** `session/delete` when the agent advertises it (the agent is started for it, and stopped again if idle). */
  private async deleteAtAgent(agentName: string, sessionId: string, cwd: string | undefined): Promise<void> {
    const result = await withAgentCopy(this.agents, this.log, agentName, cwd, `delete session ${sessionId}`, async (client) => {
      if (client.capabilities.supports('deleteSession')) await client.process.connection.deleteSession({ sessionId });
    });
    if (result && 'failed' in result) {
      void vscode.window.showWarningMessage(
        result.failed === 'start'
          ? vscode.l10n.t(
              'The chat was deleted on this computer, but {0} could not start to delete its own copy: {1}',
              agentName,
              failureText(result.error),
            )
          : vscode.l10n.t('The chat was deleted on this computer, but {0} did not delete its own copy: {1}', agentName, failureText(result.error)),
      );
    }
  }

  /** The chat as Markdown, with its title: an open chat's whole conversation, or a kept chat's transcript. */
  private async markdownOf(value: unknown): Promise<{ markdown: string; title: string; agent: string } | undefined> {
    const target = await this.target(value);
    if (!target) return undefined;
    if ('open' in target) return { markdown: this.chats.exportMarkdown(target.open), title: target.open.title, agent: target.open.agentName };
    const transcript = await this.store.read(target.kept.agent, target.kept.sessionId);
    if (!transcript) {
      void vscode.window.showWarningMessage(vscode.l10n.t('That session is not kept on this computer.'));
      return undefined;
    }
    const title = summaryLabel(target.kept);
    return {
      title,
      agent: transcript.agent,
      markdown: exportMarkdown({ title, agent: transcript.agent, cwd: transcript.cwd, exportedAt: new Date(), earlier: transcript.entries }),
    };
  }

  /** Copy Chat as Markdown: the whole chat to the clipboard. Returns whether it was copied. */
  async copy(value: unknown): Promise<boolean> {
    const chat = await this.markdownOf(value);
    if (!chat) return false;
    await vscode.env.clipboard.writeText(chat.markdown);
    vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the chat \u201c{0}\u201d as Markdown', chat.title), 4000);
    return true;
  }

  /** Export Chat as Markdown… to `file`, or where the user chooses. Returns where it was written. */
  async export(value: unknown, file: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    const chat = await this.markdownOf(value);
    if (!chat) return undefined;
    const { markdown, title } = chat;
    // Always asked, even when a caller names a file (a command link, another extension): that is only the suggestion.
    const folder = workspaceRoots()[0];
    const suggested = file ?? (folder ? vscode.Uri.file(join(folder, `${fileNameOf(title)}.md`)) : undefined);
    const destination = await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export Chat as Markdown'),
      filters: { Markdown: ['md'] },
      ...(suggested ? { defaultUri: suggested } : {}),
    });
    if (!destination) return undefined;
    try {
      await vscode.workspace.fs.writeFile(destination, new TextEncoder().encode(markdown));
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The chat was not exported: {0}', failureText(error)));
      return undefined;
    }
    const open = vscode.l10n.t('Open');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('Exported the chat to {0}.', vscode.workspace.asRelativePath(destination)), open)
      .then((pick) => {
        if (pick === open) void vscode.window.showTextDocument(destination);
      });
    return destination;
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

/** A title as a file name: no path separators or characters that some systems refuse, not too long. */
function fileNameOf(title: string): string {
  return (
    title
      // eslint-disable-next-line no-control-regex
      .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
      .trim()
      .slice(0, 80) || 'chat'
  );
}
