// `@chat`: an earlier chat of this workspace, picked from a list, attached as its Markdown (the kept transcript:
// messages, thoughts, tool calls by title). The list and the Markdown come from the chats' side (EarlierChats), as
// this folder does not read the history.
import * as vscode from 'vscode';
import { MAX_MENTION_BYTES } from './contextText';
import { textSize, type NewAttachment } from './prompt';

/** An earlier chat as `@chat` lists it. */
export interface EarlierChat {
  readonly agent: string;
  readonly sessionId: string;
  readonly title: string;
  /** When it last changed (ISO 8601). */
  readonly updatedAt: string;
}

/** A chat's session: its agent and its id there. */
export type ChatKey = Pick<EarlierChat, 'agent' | 'sessionId'>;

/** The earlier chats of this workspace, the most recent first, and one's conversation as Markdown. */
export interface EarlierChats {
  /** Every kept chat but `except` (the chat that asks). */
  list(except: ChatKey | undefined): Promise<readonly EarlierChat[]>;
  /** Undefined when it is no longer kept. */
  markdown(chat: ChatKey): Promise<string | undefined>;
}

/** `@chat`: the chat the user picks, as Markdown, or why there is none. */
export async function chatAttachment(chats: EarlierChats, except: ChatKey | undefined): Promise<NewAttachment | string> {
  const earlier = await chats.list(except);
  if (earlier.length === 0) return vscode.l10n.t('This workspace has no earlier chats to attach.');
  const pick = await vscode.window.showQuickPick(
    earlier.map((chat) => ({
      label: chat.title,
      description: chat.agent,
      detail: new Date(chat.updatedAt).toLocaleString(),
      chat,
    })),
    {
      ignoreFocusOut: true,
      title: vscode.l10n.t('Attach a Chat'),
      placeHolder: vscode.l10n.t('Pick the earlier chat whose conversation the agent gets'),
      matchOnDescription: true,
    },
  );
  if (!pick) return vscode.l10n.t('No chat was picked.');
  const markdown = await chats.markdown(pick.chat);
  if (markdown === undefined) return vscode.l10n.t('The chat \u201c{0}\u201d is no longer kept on this computer.', pick.chat.title);
  const size = textSize(markdown);
  if (size > MAX_MENTION_BYTES)
    return vscode.l10n.t('The chat \u201c{0}\u201d is over {1} MB, too large to attach.', pick.chat.title, MAX_MENTION_BYTES / 1024 / 1024);
  return {
    kind: 'chat',
    label: vscode.l10n.t('Chat: {0}', pick.chat.title.slice(0, 60)),
    text: markdown,
    uri: `acp-chat:${encodeURIComponent(pick.chat.agent)}/${encodeURIComponent(pick.chat.sessionId)}`,
    mimeType: 'text/markdown',
    size,
  };
}
