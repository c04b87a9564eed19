// The chat's one way in: what each message from the chat view does. The webview posts them, and the chat's handle
// (the extension's API, and the integration tests) sends the same messages through the same validation, so both
// drive the user's path. One row per message type; a missing row does not compile.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import { AcpError } from '../acp/errors';
import type { SessionModel } from '../acp/sessionModel';
import { failureText } from '../common/failureText';
import type { ChatModel } from './chatModel';
import type { ChatFiles } from '../composer/mentions';
import type { ComposerContext } from './composerContext';
import type { Outbox } from './outbox';
import { copyText } from './copy';
import { workspaceRoots } from '../common/workspace';
import { dataUrl, imageSources, shownImage, type ImageSource } from './images';
import { linkedImagePath, readLinkedImage } from './linkedImages';
import type { ChatOwner } from './owner';
import type { ErrorAction, FileMatch, PromptView, TurnAction, WebviewMessage } from './protocol';
import { selectChoices } from '../acp/choices';
import type { ChatQuestions } from './questions';

/** What the chat's buttons and links do outside the webview. Each gets the session's own state, never a path from the view. */
export interface ChatActions {
  showLog(): void;
  openAgentSettings(): void;
  /** VS Code's workspace trust editor. */
  manageTrust(): void;
  showDiff(session: AgentSession, toolCallId: string, index: number): void;
  openLocation(session: AgentSession, toolCallId: string, index: number): Thenable<unknown>;
  showTerminal(session: AgentSession, toolCallId: string, terminalId: string, agentName: string): void;
  /** A plan the agent keeps (unstable `plan_update`): its file opened in an editor, or its Markdown for review. */
  openPlan(session: AgentSession, planId: string, agent: string): void;
  /** The plan of a plan approval waiting in `model` (the chat's session's, or a subagent's), for review in an editor. */
  openPlanReview(session: AgentSession, agent: string, model: SessionModel | undefined, id: number, sessionId: string | undefined): Promise<void>;
  /** A link in agent text: workspace files open in the editor, web links through VS Code's opener. */
  openLink(href: string, cwd: string | undefined): void;
  copy(text: string): void;
  /** An agent's image, full size in an editor. */
  openImage(mimeType: string, data: string): void;
  /** An image file the agent linked to, full size in an editor. */
  openImageFile(path: string): void;
  insertAtCursor(text: string): void;
}

/** What the messages act on: the chat's model, its owner, and its rooms (see rooms.ts). */
export interface ChatRooms {
  readonly model: ChatModel;
  readonly owner: ChatOwner;
  readonly log: Logger;
  readonly actions: ChatActions;
  readonly files: ChatFiles;
  readonly outbox: Outbox;
  readonly context: ComposerContext;
  readonly questions: ChatQuestions;
  /** The page (re)loaded: it gets the whole state. */
  loaded(): void;
}

/** What a message resolves with, for those that answer (the rest resolve when done). */
interface Outcomes {
  /** The stop reason of the turn it started; undefined when it was queued or steered. */
  send: S.StopReason | undefined;
  /** The final list of matches. */
  searchFiles: FileMatch[];
  /** The prompt files offered now. */
  listPrompts: readonly PromptView[];
  /** The text the prompt file put in the composer, or undefined when it did not (unknown, or its questions cancelled). */
  usePrompt: string | undefined;
  /** Why a Submit was refused, or undefined when it was answered. */
  elicitation: string | undefined;
  /** Whether the page was opened. */
  openElicitationUrl: boolean;
  /** Whether the request was still waiting and is now answered. */
  permission: boolean;
  /** False when the agent did not allow it. */
  cancelSubagent: boolean;
  /** False when the call cannot be stopped alone, or the agent refused. */
  cancelToolCall: boolean;
  /** Whether there was something to copy. */
  copyEntry: boolean;
  /** The stop reason of the resent turn, or undefined when nothing was sent (the chat says why). */
  resend: S.StopReason | undefined;
  /** Whether the item was there, and was stopped or dismissed. */
  background: boolean;
}

export type MessageType = WebviewMessage['type'];
export type Outcome<T extends MessageType> = T extends keyof Outcomes ? Outcomes[T] : void;
type Message<T extends MessageType> = Extract<WebviewMessage, { type: T }>;
type Handlers = { readonly [T in MessageType]: (message: Message<T>) => Outcome<T> | Promise<Outcome<T>> };

/** What each message does in `chat`. */
export function handlersFor(chat: ChatRooms): Handlers {
  const { actions, model, owner } = chat;
  /** Acts on the chat's session, if it has one; resolves when the act is done. */
  const withSession = async (act: (session: AgentSession) => void | Thenable<unknown>): Promise<void> => {
    const session = model.session;
    if (session) await act(session);
  };
  return {
    ready: () => chat.loaded(),
    draft: (m) => model.draftChanged(m.text),
    send: (m) => {
      model.clearNotice();
      return chat.outbox.submit(m.text, m.attachments, m.mode, m.images);
    },
    queue: (m) => chat.outbox.changeQueued(m.id, m.action),
    sendQueued: () => chat.outbox.sendHeld(),
    elicitation: (m) => chat.questions.answer(m.id, m.action, m.values ?? {}, m.sessionId),
    openElicitationUrl: (m) => chat.questions.openUrl(m.id, m.sessionId),
    cancel: () => withSession((s) => s.cancel()),
    permission: (m) => model.modelOf(m.sessionId)?.resolvePermission(m.id, m.optionId) ?? false,
    cancelSubagent: (m) => model.session?.cancelSubagent(m.sessionId) ?? false,
    cancelToolCall: (m) => model.session?.cancelToolCall(m.toolCallId) ?? false,
    background: (m) => {
      const session = model.session;
      const item = session?.model.background.items.find((i) => i.key === m.key);
      if (!session || !item) return false;
      if (m.action === 'stop') return session.stopBackground(item);
      // Dismiss hides what only the agent can stop; what the client or the agent can stop is stopped, not hidden.
      return item.terminalId === undefined && item.cancel === undefined && session.model.background.dismiss(item.key);
    },
    errorAction: (m) => errorAction(chat, m.action),
    turnAction: (m) => turnAction(chat, m.action),
    showDiff: (m) => withSession((s) => actions.showDiff(s, m.toolCallId, m.index)),
    openLocation: (m) => withSession((s) => actions.openLocation(s, m.toolCallId, m.index)),
    showTerminal: (m) => withSession((s) => actions.showTerminal(s, m.toolCallId, m.terminalId, model.agentName)),
    openLink: (m) => actions.openLink(m.href, model.session?.cwd),
    openPlan: (m) => withSession((s) => actions.openPlan(s, m.planId, model.agentName)),
    openPlanReview: (m) => withSession((s) => actions.openPlanReview(s, model.agentName, model.modelOf(m.sessionId), m.id, m.sessionId)),
    copy: (m) => actions.copy(m.text),
    loadImage: async (m) => {
      const image = imageOf(chat, m.entryId, m.index);
      const post = { type: 'image', entryId: m.entryId, index: m.index } as const;
      // Always an answer, so the page's placeholder never waits for nothing.
      if (!image) return model.say({ ...post, refused: 'not shown: the message is no longer in this chat' });
      const shown = image.kind === 'data' ? { base64: image.block.data } : await readLinkedImage(image, chatRoots(chat));
      model.say('refused' in shown ? { ...post, refused: shown.refused } : { ...post, src: dataUrl(image.mimeType, shown.base64) });
    },
    openImage: (m) => {
      const image = imageOf(chat, m.entryId, m.index);
      if (image?.kind === 'data') actions.openImage(image.block.mimeType, image.block.data);
      else if (image) {
        // Opened only when the chat would show it: a regular file, inside, bounded, the image its type says.
        const roots = chatRoots(chat);
        const where = linkedImagePath(image, roots);
        if ('path' in where) void readLinkedImage(image, roots).then((read) => 'base64' in read && actions.openImageFile(where.path));
      }
    },
    copyEntry: (m) => {
      // The chat's own entry, or a subagent's (numbered apart from the chat's); an unknown subagent has none.
      const owner = model.modelOf(m.sessionId);
      if (m.sessionId !== undefined && !owner) return false;
      const session = model.session;
      const text = copyText(m, model.earlier, owner && session ? { model: owner, cwd: session.cwd } : undefined);
      if (text !== undefined) actions.copy(text);
      return text !== undefined;
    },
    insert: (m) => actions.insertAtCursor(m.text),
    searchFiles: async (m) => {
      // A negative id is the chat handle's own search: the answer is its caller's, not the view's `@` list.
      const answer = (files: FileMatch[]) => {
        if (m.requestId >= 0) model.say({ type: 'files', requestId: m.requestId, files });
      };
      const files = await chat.files.search(m.query, answer);
      answer(files);
      return files;
    },
    mention: (m) => chat.context.mention(m.kind ?? 'file', m.path),
    dropUris: (m) => chat.context.drop(m.uris),
    listPrompts: () => chat.context.refreshPrompts(),
    usePrompt: (m) => chat.context.usePrompt(m.name, m.source),
    confirmAttachment: (m) => chat.outbox.confirm(m.id),
    attachImage: (m) => chat.outbox.attachImage(m.name, m.mimeType, m.data, m.token),
    removeAttachment: (m) => chat.outbox.remove(m.id),
    setMode: async (m) => {
      await picked(chat, 'the mode', (session) => session.setMode(m.modeId));
    },
    setConfig: async (m) => {
      await picked(chat, m.configId, (session) => session.setConfigOption(m.configId, m.value));
    },
    changes: (m) => owner.checkpoint(m),
    openChange: (m) => owner.checkpoint(m),
    restoreCheckpoint: (m) => owner.checkpoint(m),
    redoRestore: (m) => owner.checkpoint(m),
    checkpointAnswer: (m) => owner.checkpoint(m),
    // Acts that open or restart sessions go on after the message is taken, as a click's do.
    fork: (m) => void owner.fork(m.entryId),
    openBranch: () => {
      const branch = model.divider?.branch;
      if (branch) void owner.openBranch(branch);
    },
    resend: (m) => owner.resend(m.entryId, m.text),
    // Only a level the chat offers is set.
    setPermissionLevel: async (m) => {
      if (model.shown('permissionLevel').offered.includes(m.level)) await owner.setPermissionLevel(m.level);
    },
  };
}

/** The `index`th image of an agent's message of the session, unless the chat refused it for what its block says. */
function imageOf(chat: ChatRooms, entryId: number, index: number): (ImageSource & { readonly mimeType: string }) | undefined {
  const entry = chat.model.session?.model.entries.find((e) => e.id === entryId);
  const image = entry?.type === 'message' && entry.role !== 'user' ? imageSources(entry.content)[index] : undefined;
  if (image?.kind === 'data') return 'refused' in shownImage(image.block) ? undefined : { ...image, mimeType: image.block.mimeType };
  return image;
}

/** The folders the chat's files are in: its worktree's, else the workspace's. */
function chatRoots(chat: ChatRooms): readonly string[] {
  return chat.model.session?.workspace ?? workspaceRoots();
}

function errorAction(chat: ChatRooms, action: ErrorAction): void {
  switch (action) {
    case 'restart':
      void chat.owner.restart();
      return;
    case 'signIn':
      void chat.owner.signIn();
      return;
    case 'showLog':
      chat.actions.showLog();
      return;
    case 'openSettings':
      chat.actions.openAgentSettings();
      return;
    case 'manageTrust':
      chat.actions.manageTrust();
      return;
    case 'stopReconnecting':
      chat.owner.stopReconnecting();
      return;
    case 'setToken':
      void vscode.commands.executeCommand('acp.setAgentToken', chat.model.agentName);
      return;
    default:
      return action satisfies never;
  }
}

/** A button of a failed turn: Retry sends the same message again, Sign In signs in, Switch Model picks another. */
async function turnAction(chat: ChatRooms, action: TurnAction): Promise<void> {
  // A retry the agent fails again shows its failure as the first did; one that could not go (the agent ended) says why.
  if (action === 'retry')
    await chat.outbox
      .retry()
      .catch(
        (error: unknown) => error instanceof AcpError || chat.model.tell(vscode.l10n.t('The message was not sent again: {0}', failureText(error))),
      );
  else if (action === 'signIn') await chat.owner.signIn();
  else await switchModel(chat);
}

/** Switch Model on a failed turn: the agent's other models in a quick pick; the one picked is set as the picker sets it. */
async function switchModel(chat: ChatRooms): Promise<void> {
  const option = chat.model.session?.model.configOptions.find((o) => o.category === 'model' && o.type === 'select');
  if (option?.type !== 'select') return;
  const others = selectChoices(option).filter((c) => c.value !== option.currentValue);
  const chosen = await vscode.window.showQuickPick(
    others.map((c) => ({ label: c.name, value: c.value })),
    {
      title: vscode.l10n.t('Switch Model'),
      placeHolder: vscode.l10n.t('The model {0} uses from now on; then Retry sends your message again', chat.model.agentName),
    },
  );
  if (chosen) await picked(chat, option.id, (session) => session.setConfigOption(option.id, chosen.value));
}

/** Asks the agent for a mode or a config option; a refusal is shown in the chat, and rejects with the agent's reason. */
async function picked(chat: ChatRooms, what: string, ask: (session: AgentSession) => Promise<unknown>): Promise<void> {
  const { model, log } = chat;
  const session = model.session;
  if (!session) throw new Error(`the chat with ${model.agentName} is not connected`);
  try {
    await ask(session);
  } catch (error) {
    const reason = failureText(error);
    log.warn(`[chat] ${model.agentName} did not change ${what}: ${reason}`);
    model.tell(vscode.l10n.t('{0} did not change {1}: {2}.', model.agentName, what, reason));
    model.changed('session'); // the picker goes back to what the agent has
    throw error;
  }
}
