// The rooms of one chat, built together around its model (chatModel.ts): the outbox (attachments, sending, the
// queue), the questions, the composer's context, and the door every message comes in by (dispatch.ts's table, after
// the protocol's validation). Each reads and writes the model; what reaches past the chat goes to its owner's port.
import type { ChatFolders } from '../common/chatFolders';
import type * as vscode from 'vscode';
import type { ChatFiles } from '../composer/mentions';
import type { ChatPrompts } from '../composer/promptLibrary';
import { ComposerContext } from './composerContext';
import type { ChatModel } from './chatModel';
import { handlersFor, type ChatActions } from './dispatch';
import type { ChatOwner } from './owner';
import type { Logger } from '../acp/log';
import { Outbox } from './outbox';
import { saveImage } from '../composer/imageFiles';
import { WebviewMessage } from './protocol';
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

/** What the rooms need of the chat's page: that it loaded, and bringing it forward. */
export interface ChatPage {
  /** The page (re)loaded: it gets the whole state. */
  loaded(): void;
  /** Brings the chat forward. */
  reveal(): void;
}

export interface Rooms {
  readonly outbox: Outbox;
  readonly context: ComposerContext;
  /** The one way in: checks a message against the protocol, then does what it asks (see ChatPanel.dispatch). */
  dispatch(raw: unknown): Promise<unknown>;
}

/** The rooms of the chat whose model is `model`: each reads and writes the model, and asks its owner what it cannot do. */
export function openRooms(model: ChatModel, deps: ChatDeps, chatOwner: ChatOwner, page: ChatPage): Rooms {
  const owner = untilClosed(model, chatOwner);
  const outbox = new Outbox(model, {
    readText: (path) => deps.files.readText(path),
    bringForward: () => page.reveal(),
    signIn: () => void owner.signIn(),
    saveImage: (mimeType, data) => saveImage(deps.storage, mimeType, data),
  });
  const questions = new ChatQuestions(model);
  const context = new ComposerContext(
    deps.files,
    deps.prompts,
    model,
    { attach: (attachment, bringForward) => outbox.add(attachment, bringForward) },
    deps.log,
  );
  const handlers = handlersFor({
    model,
    owner,
    log: deps.log,
    actions: deps.actions,
    files: deps.files,
    outbox,
    context,
    questions,
    loaded: page.loaded,
  });
  return {
    outbox,
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

/**
 * The owner's port as a chat's rooms use it: once the chat has closed, nothing more is asked of the owner (a send in
 * flight that the agent refuses until the user signs in, a handle's call on a closed chat); the acts resolve as done.
 */
function untilClosed(model: ChatModel, owner: ChatOwner): ChatOwner {
  const open =
    <A extends unknown[], R>(act: (...args: A) => Promise<R>, closed: R) =>
    (...args: A): Promise<R> =>
      model.closed ? Promise.resolve(closed) : act(...args);
  return {
    restart: open(() => owner.restart(), undefined),
    signIn: open(() => owner.signIn(), undefined),
    fork: open((entryId) => owner.fork(entryId), undefined),
    openBranch: open((branch) => owner.openBranch(branch), undefined),
    resend: open((entryId, text) => owner.resend(entryId, text), undefined),
    checkpoint: open((request) => owner.checkpoint(request), undefined),
    setPermissionLevel: open((level) => owner.setPermissionLevel(level), undefined),
    reconnectAfter: (end) => !model.closed && owner.reconnectAfter(end),
    stopReconnecting: () => {
      if (!model.closed) owner.stopReconnecting();
    },
  };
}
