// The rooms of one chat, built together and wired to its panel through one face (PanelCore): the outbox
// (attachments, sending, the queue), the questions, the composer's context, and the door every message comes in by
// (dispatch.ts's table, after the protocol's validation).
import type { ChatFolders } from '../common/chatFolders';
import type * as vscode from 'vscode';
import type { SessionModel } from '../acp/sessionModel';
import { ComposerContext, type ChatFiles, type ChatPrompts } from './composerContext';
import { handlersFor, type ChatActions, type ChatCore } from './dispatch';
import type { Logger } from '../acp/log';
import { Outbox } from './outbox';
import { saveImage } from './imageFiles';
import { WebviewMessage, type Part } from './protocol';
import { ChatQuestions } from './questions';

/** What a chat needs of the extension. */
export interface ChatDeps {
  readonly extensionUri: vscode.Uri;
  readonly log: Logger;
  readonly actions: ChatActions;
  readonly files: ChatFiles;
  readonly prompts: ChatPrompts;
  /** Where chats work besides the workspace folders: a chat in a worktree shows its branch. */
  readonly folders: ChatFolders;
  /** The extension's storage folder (images kept as files). */
  readonly storage: string;
}

/** What the rooms need of their panel: a plain object of its members, bound to it. */
export interface PanelCore extends ChatCore {
  readonly deps: ChatDeps;
  changed(part: Part): void;
  /** A quiet line in the chat. */
  tell(text: string): void;
  /** Brings the chat forward. */
  reveal(): void;
  setDraft(text: string): void;
  closed(): boolean;
  /** The questions waiting changed: the chat's attention may have too. */
  questionsChanged(): void;
}

export interface Rooms {
  readonly outbox: Outbox;
  readonly questions: ChatQuestions;
  readonly context: ComposerContext;
  /** The one way in: checks a message against the protocol, then does what it asks (see ChatPanel.dispatch). */
  dispatch(raw: unknown): Promise<unknown>;
}

export function openRooms(core: PanelCore): Rooms {
  const { deps, agentName } = core;
  const outbox = new Outbox({
    agentName,
    session: () => core.session(),
    readText: (path) => deps.files.readText(path),
    post: (message) => core.post(message),
    queueChanged: () => core.changed('queue'),
    tell: (text) => core.tell(text),
    bringForward: () => core.reveal(),
    signIn: () => core.request('signIn'),
    saveImage: (mimeType, data) => saveImage(deps.storage, mimeType, data),
  });
  const questions = new ChatQuestions(
    (sessionId) => core.modelOf(sessionId)?.elicitations,
    () => core.questionsChanged(),
    (text) => core.tell(text),
  );
  const context = new ComposerContext(
    deps.files,
    deps.prompts,
    {
      cwd: () => core.session()?.cwd,
      sessionId: () => core.session()?.sessionId,
      agentName,
      attach: (attachment) => outbox.add(attachment),
      tell: (text) => core.tell(text),
      setDraft: (text) => core.setDraft(text),
      ask: (question) => questions.ask(question),
      promptsChanged: (prompts) => core.post({ type: 'prompts', prompts: [...prompts] }),
      closed: () => core.closed(),
    },
    deps.log,
  );
  const handlers = handlersFor({ ...core, log: deps.log, actions: deps.actions, files: deps.files, outbox, context, questions });
  return {
    outbox,
    questions,
    context,
    dispatch: async (raw) => {
      const parsed = WebviewMessage.safeParse(raw);
      if (!parsed.success) {
        const reason = parsed.error.issues[0]?.message ?? 'invalid';
        deps.log.warn(`[chat] ignored an invalid message from the chat view: ${reason}`);
        throw new Error(`invalid chat message: ${reason}`);
      }
      const message = parsed.data;
      return (handlers[message.type] as (m: WebviewMessage) => unknown)(message);
    },
  };
}

/** The chat's own model, or one of its subagents' (by session id). */
export function modelOf(model: SessionModel | undefined, sessionId: string | undefined): SessionModel | undefined {
  if (sessionId === undefined || sessionId === model?.sessionId) return model;
  return model?.subagents.find((c) => c.info.sessionId === sessionId)?.model;
}
