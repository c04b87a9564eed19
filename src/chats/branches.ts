// A chat's branches: Fork from Here (a new chat from the agent's copy of the session, `session/fork`), and Edit and
// Resend on one of the user's messages. Resending restores the files to that message's checkpoint (its questions
// asked, nothing lost), then continues from that message: in the agent's own fork of the session at its reply before
// the message, where the agent can fork at a message (acp/messageFork.ts); otherwise in a new session of the same
// agent, given the conversation before the message as a file (embedded where the agent takes embedded context, else
// linked) with the edited message. The chat says which. The earlier branch stays in the history, as it was.
import * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { Logger } from '../acp/log';
import { confirmEndingBackground } from '../chat/backgroundConfirm';
import type { ChatPanel } from '../chat/panel';
import type { NewAttachment } from '../composer/prompt';
import type * as S from '../acp/schema.gen';
import { messageForkPoint, type MessageForkPoint } from '../acp/messageFork';
import { AcpError, ErrorCodes } from '../acp/errors';
import { failureText } from '../common/failureText';
import type { AgentConfig } from '../settings/config';
import type { ChoicesFrom } from './chatChoices';
import type { Carried } from './chatSession';
import { writeConversation } from './conversationFile';
import { forkPoint } from './operations';
import type { SessionOpener } from './reopen';
import { exportMarkdown } from '../history/exportMarkdown';
import type { Entry } from '../acp/sessionState';
import { checkPath } from '../common/paths';
import { workspaceRoots } from '../common/workspace';

/** What branching needs of the chats. */
export interface BranchHost {
  readonly opener: SessionOpener;
  readonly log: Logger;
  /** The extension's storage folder, where the conversation before a resent message is written. */
  readonly storage: string;
  config(agentName: string): AgentConfig | undefined;
  carried(panel: ChatPanel): Carried | undefined;
  /** A new chat in an editor tab, tracked. */
  newPanel(agentName: string): Promise<ChatPanel>;
  /** Shows `session` in `panel`; `from` is the session whose mode, model, options and permission level it takes. */
  attach(panel: ChatPanel, session: AgentSession, keepEarlier: boolean, carried?: Carried, from?: ChoicesFrom): void;
  isOpen(panel: ChatPanel): boolean;
  /** The chats with a resend under way: one at a time each. */
  readonly resending: Set<ChatPanel>;
  /** Restores the files to before the user's message `entryId`; undefined when the chat has no checkpoint there. */
  restoreBefore(panel: ChatPanel, entryId: number): Promise<'restored' | 'unchanged' | 'declined' | 'none'> | undefined;
}

/**
 * Fork from Here: a new chat whose session is the agent's fork of this one (unstable `session/fork`), showing the
 * conversation before `entryId` (a user message; the whole conversation without one) with that message in its
 * composer, to send again or change. An agent that forks at a message forks at its reply before that one; otherwise
 * (or when that fails) the agent's copy remembers everything up to now, and the new chat says so.
 */
export async function forkChat(host: BranchHost, panel: ChatPanel, entryId?: number): Promise<ChatPanel | undefined> {
  const session = panel.model.session;
  if (!session || !session.client.capabilities.supports('forkSession')) {
    panel.model.tell(vscode.l10n.t('{0} cannot fork sessions.', panel.agentName));
    return undefined;
  }
  const carried = host.carried(panel);
  const from = forkPoint(session.model, entryId, session.cwd, carried);
  if (!from) {
    panel.model.tell(vscode.l10n.t('That message is not in this session, so the chat was not forked.'));
    return undefined;
  }
  const point = atMessage(session, entryId);
  let forked: AgentSession;
  let missed = false;
  try {
    const at = point && (await forkAt(host, panel, session, point));
    missed = at === 'missed';
    forked =
      at && at !== 'missed'
        ? at
        : await host.opener.withOptions(session.client, panel.agentName, session.cwd, (o) =>
            session.client.forkSession(session.sessionId, session.cwd, o),
          );
  } catch (error) {
    panel.model.tell(vscode.l10n.t('{0} could not fork this chat: {1}', panel.agentName, failureText(error)));
    return undefined;
  }
  const copy = await host.newPanel(panel.agentName);
  copy.model.showEarlier([...panel.model.earlier, ...from.before], vscode.l10n.t('Forked from "{0}"', panel.title));
  host.attach(
    copy,
    forked,
    true,
    { entries: from.kept, dropped: carried?.dropped ?? 0, title: undefined, replaces: forked.sessionId },
    {
      sessionId: session.sessionId,
    },
  );
  if (from.draft) copy.model.setDraft(from.draft);
  const atPoint = point !== undefined && !missed;
  copy.model.tell(
    atPoint
      ? vscode.l10n.t('Forked at this message: {0} remembers the conversation before it, and nothing after.', panel.agentName)
      : missed && from.laterMessages
        ? vscode.l10n.t(
            '{0} could not find this message in its session, so it forked the whole session: its copy also remembers the messages after this one.',
            panel.agentName,
          )
        : from.laterMessages
          ? vscode.l10n.t('Forked. {0} forks a whole session: its copy also remembers the messages after this one.', panel.agentName)
          : vscode.l10n.t('Forked: this chat continues from here on its own, and the original stays as it was.'),
  );
  return copy;
}

/** Where to fork so that the conversation before the user's message `entryId` is kept, when the agent can fork there. */
function atMessage(session: AgentSession, entryId: number | undefined): MessageForkPoint | undefined {
  if (entryId === undefined || !session.client.capabilities.supports('forkAtMessage')) return undefined;
  const index = session.model.entries.findIndex((e) => e.id === entryId);
  return messageForkPoint(session.model.entries, index, session.wholeHistory);
}

/**
 * The agent's fork of `session` at `point`, or `missed` when the agent answers that it cannot fork there (-32602: a
 * point it no longer finds), for the caller to go on the other way. Any other failure is one: a time-out may have
 * left a fork behind, and a second fork beside it is not what the user asked for.
 */
async function forkAt(host: BranchHost, panel: ChatPanel, session: AgentSession, point: MessageForkPoint): Promise<AgentSession | 'missed'> {
  try {
    return await host.opener.withOptions(session.client, panel.agentName, session.cwd, (o) =>
      session.client.forkSession(session.sessionId, session.cwd, o, point),
    );
  } catch (error) {
    if (!(error instanceof AcpError) || error.code !== ErrorCodes.InvalidParams) throw error;
    host.log.warn(`[chats] ${panel.agentName} could not fork ${session.sessionId} at message ${point.messageId}: ${failureText(error)}`);
    return 'missed';
  }
}

/**
 * Edit and Resend: `text` in place of the user's message `entryId`, with that message's attachments. Resolves with
 * the stop reason of the resent turn, or undefined when nothing was sent (the chat said why).
 */
export async function resendEdited(host: BranchHost, panel: ChatPanel, entryId: number, text: string): Promise<S.StopReason | undefined> {
  if (host.resending.has(panel)) {
    panel.model.tell(vscode.l10n.t('A message of this chat is being resent already.'));
    return undefined;
  }
  host.resending.add(panel);
  try {
    return await resend(host, panel, entryId, text);
  } finally {
    host.resending.delete(panel);
  }
}

async function resend(host: BranchHost, panel: ChatPanel, entryId: number, text: string): Promise<S.StopReason | undefined> {
  const session = panel.model.session;
  const carried = host.carried(panel);
  const from = session && forkPoint(session.model, entryId, session.cwd, carried);
  const config = host.config(panel.agentName);
  if (!session || !from || !config) {
    panel.model.tell(vscode.l10n.t('That message is not in this session, so it was not resent.'));
    return undefined;
  }
  if (session.model.turn.phase !== 'idle') {
    panel.model.tell(vscode.l10n.t('Stop the running turn first: a message is resent once the agent is idle.'));
    return undefined;
  }
  // The resent message starts a new session: what this one still runs in the background ends with it.
  if (!(await confirmEndingBackground([panel], vscode.l10n.t('Resend')))) {
    panel.model.tell(vscode.l10n.t('The message was not resent.'));
    return undefined;
  }
  const attachments = await resendable(
    panel,
    session,
    session.model.entries.find((e) => e.id === entryId),
    host.storage,
  );
  if (attachments === undefined) {
    panel.model.tell(vscode.l10n.t('The message was not resent.'));
    return undefined;
  }
  // The files as they were before the message; a question the user cancels stops the resend with nothing changed.
  const restored = (await host.restoreBefore(panel, entryId)) ?? 'none';
  if (restored === 'declined') {
    panel.model.tell(vscode.l10n.t('The files were not restored, so the message was not resent.'));
    return undefined;
  }
  const restoredNote = restored === 'restored' ? vscode.l10n.t('The files were restored to before the message; Redo Changes puts them back.') : '';
  if (session.model.turn.phase !== 'idle' || panel.model.session !== session) {
    panel.model.tell([restoredNote, vscode.l10n.t('A turn started meanwhile, so the message was not resent.')].filter(Boolean).join(' '));
    return undefined;
  }
  const earlier = { agent: panel.agentName, sessionId: session.sessionId, title: panel.title };
  const point = atMessage(session, entryId);
  let next: AgentSession | undefined;
  let missed = false;
  let file: string | undefined;
  try {
    const forked = point && (await forkAt(host, panel, session, point));
    if (forked === 'missed') missed = true;
    else next = forked;
    if (!next && (from.before.length > 0 || from.kept.length > 0)) {
      const markdown = exportMarkdown({
        title: panel.title,
        agent: panel.agentName,
        cwd: session.cwd,
        exportedAt: new Date(),
        earlier: from.kept,
      });
      file = await writeConversation(host.storage, panel.title, markdown);
    }
    next ??= (await host.opener.open(config, session.cwd, undefined, { panel })).session;
  } catch (error) {
    panel.model.tell(
      [vscode.l10n.t('{0} could not start a session for the edited message: {1}', panel.agentName, failureText(error)), restoredNote]
        .filter(Boolean)
        .join(' '),
    );
    return undefined;
  }
  // The chat was closed while the session started: nothing is sent to a chat nobody sees.
  if (!host.isOpen(panel)) {
    void next.close();
    return undefined;
  }
  const forked = point !== undefined && !missed;
  host.log.info(
    `[chats] ${panel.agentName}: message ${entryId} of ${session.sessionId} edited and resent in ${next.sessionId}${forked ? ' (forked at the message before it)' : ''}`,
  );
  const above = [...panel.model.earlier, ...from.before];
  // The new session's transcript starts with the conversation before the message (the history shows it whole).
  // The chat's mode, model, options and permission level go along.
  host.attach(
    panel,
    next,
    false,
    { entries: from.kept, dropped: carried?.dropped ?? 0, title: undefined, replaces: next.sessionId },
    {
      sessionId: session.sessionId,
    },
  );
  panel.model.showEarlier(above, vscode.l10n.t('Edited and resent from here; the earlier branch is in the history'), {
    agent: panel.agentName,
    sessionId: session.sessionId,
    cwd: session.cwd,
  });
  const how = forked ? 'forked' : file === undefined ? 'new' : next.client.capabilities.accepts.embeddedContext ? 'embedded' : 'linked';
  panel.model.tell(resentNotice(panel.agentName, restored, missed, how, earlier.title));
  const context: NewAttachment[] = [
    ...(file === undefined ? [] : [{ kind: 'file' as const, path: file, label: vscode.l10n.t('The conversation before this message') }]),
    ...attachments,
  ];
  return panel.sendContext(text, context);
}

/** What the chat says once a message was resent: what became of the files, and where the message went. */
function resentNotice(
  agent: string,
  restored: 'restored' | 'unchanged' | 'none',
  missed: boolean,
  how: 'forked' | 'new' | 'embedded' | 'linked',
  earlierTitle: string,
): string {
  return [
    restored === 'restored'
      ? vscode.l10n.t('The files were restored to before the message.')
      : restored === 'unchanged'
        ? vscode.l10n.t('The files were already as they were before the message.')
        : vscode.l10n.t('This message had no checkpoint: the files were left as they are.'),
    missed ? vscode.l10n.t('{0} could not find the message in its session to fork there.', agent) : '',
    how === 'forked'
      ? vscode.l10n.t('Resent in a fork of the session at the message: {0} remembers the conversation before it, and nothing after.', agent)
      : how === 'new'
        ? vscode.l10n.t('Resent in a new session of {0}.', agent)
        : how === 'embedded'
          ? vscode.l10n.t('Resent in a new session of {0}, with the conversation before it embedded.', agent)
          : vscode.l10n.t('Resent in a new session of {0}, with a link to the conversation before it.', agent),
    vscode.l10n.t('The earlier branch, \u201c{0}\u201d, is kept in the history (Sessions view).', earlierTitle),
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * What goes again with a resent message: what the user attached to it, as this chat recorded it when it was sent. A
 * message as the agent recorded it (a replayed session) has the agent's links: the files among them inside the chat's
 * folders go only when the user says so in the chat, and nothing else of it. Undefined: the user cancelled.
 */
async function resendable(panel: ChatPanel, session: AgentSession, entry: Entry | undefined, storage: string): Promise<NewAttachment[] | undefined> {
  const found = attachmentsOf(entry, storage);
  if (entry?.type !== 'message' || entry.sent || found.length === 0) return found;
  const roots = workspaceRoots().includes(session.cwd) ? workspaceRoots() : [session.cwd];
  const inside = found.filter((a) => a.kind === 'file' && checkPath(a.path, roots).kind === 'inside');
  if (inside.length === 0) return [];
  const answer = await panel.model.questions.ask({
    message: vscode.l10n.t(
      'This message is as {0} recorded it, not as it was sent from this chat, so its links are the agent\u2019s: {1}. Attach these files to the resent message? Submit attaches them, Decline resends the message without them, Cancel resends nothing.',
      panel.agentName,
      inside.map((a) => (a.kind === 'file' ? vscode.workspace.asRelativePath(a.path) : a.label)).join(', '),
    ),
    form: { type: 'object', properties: {} },
  });
  return answer.action === 'cancel' ? undefined : answer.action === 'accept' ? inside : [];
}

/**
 * The attachments of a sent message that can go again: its whole files and its images (a file is read again as it is
 * now). A selection (a `#L…` range) is not a whole file, and an earlier conversation file is replaced by this one.
 */
function attachmentsOf(entry: Entry | undefined, storage: string): NewAttachment[] {
  if (entry?.type !== 'message') return [];
  const found: NewAttachment[] = [];
  for (const block of entry.content) {
    const uri = block.type === 'resource_link' ? block.uri : block.type === 'resource' ? block.resource.uri : undefined;
    if (uri?.startsWith('file:') && !uri.includes('#') && !vscode.Uri.parse(uri, true).fsPath.startsWith(storage)) {
      try {
        const path = vscode.Uri.parse(uri, true).fsPath;
        found.push({ kind: 'file', path, label: path.split(/[\\/]/).at(-1) ?? path });
      } catch {
        // not a file this computer can read
      }
    } else if (block.type === 'image') found.push({ kind: 'image', label: 'image', mimeType: block.mimeType, data: block.data });
  }
  return found;
}
