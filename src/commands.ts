// Every command the extension contributes, in one table (as rust-analyzer's editors/code does): its id, and what
// runs it, given the owners the core made. The core registers the table in one place; the owners keep the logic and
// never register commands themselves. A command that opens a chat answers its handle (never the panel). The
// activation test holds the table to package.json: every contributed command is registered once the core is loaded.
import * as vscode from 'vscode';
import type { AgentCommands } from './agents/commands';
import { agentNameOf } from './agents/commands';
import { confirmEndingBackground } from './chat/backgroundConfirm';
import type { ChatPanel } from './chat/panel';
import type { Feedback } from './checkpoints/feedback';
import type { PlanReviews } from './plans/planReviews';
import type { Chats } from './chats/chats';
import { addFiles, addSelection } from './chats/contextCommands';
import { handleOrNone } from './chats/handle';
import { setPermissionLevel } from './chats/permissionLevel';
import { moveChatToEditor, moveChatToSideBar } from './chats/placeCommands';
import { saveDefaultsOfChat } from './chats/saveDefaults';
import type { Logger } from './acp/log';
import { DisposableStore } from './common/disposables';
import type { Diagnostics } from './diagnostics/export';
import type { FollowAgent } from './editor/follow';
import type { EditReviews } from './editor/review';
import type { PermissionLevels } from './permissions/levels';
import type { Permissions } from './permissions/permissions';
import { nameOf, type RegistryCommands } from './registry/commands';
import type { SessionsWired } from './sessions/sessions';
import type { WorktreeCommands } from './worktrees/worktrees';

/** Close Chat on a row of the Sessions view: after asking, when the chat still runs something in the background. */
async function closeChat(panel: ChatPanel | undefined): Promise<void> {
  if (panel && (await confirmEndingBackground([panel], vscode.l10n.t('Close Chat')))) panel.closeAgreed();
}

/** The owners the commands act on, as the core made them. */
export interface CommandOwners {
  readonly chats: Chats;
  readonly agents: AgentCommands;
  readonly registry: RegistryCommands;
  readonly sessions: SessionsWired;
  readonly worktrees: WorktreeCommands;
  readonly permissions: Permissions;
  readonly levels: PermissionLevels;
  readonly reviews: EditReviews;
  readonly follow: FollowAgent;
  readonly feedback: Feedback;
  readonly plans: PlanReviews;
  readonly diagnostics: Diagnostics;
  readonly log: Logger;
  showLog(): void;
}

type Handler = (...args: never[]) => unknown;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** A chat that opened, as a command answers it. */
const opened = async (panel: Promise<ChatPanel | undefined>) => handleOrNone(await panel);

/** Each command, by id: what runs it. */
const COMMANDS: { readonly [id: `acp.${string}`]: (o: CommandOwners) => Handler } = {
  'acp.newChat': (o) => (agentName?: unknown) => opened(o.chats.newChat(text(agentName))),
  'acp.newChatInSideBar': (o) => () => opened(o.chats.newChat(undefined, 'sideBar')),
  'acp.newChatInWorktree': (o) => () => opened(o.worktrees.newChat()),
  'acp.moveChatToSideBar': (o) => () => moveChatToSideBar(o.chats),
  'acp.moveChatToEditor': (o) => () => moveChatToEditor(o.chats),
  'acp.showLog': (o) => () => o.showLog(),
  'acp.addSelectionToChat': (o) => () => addSelection(o.chats),
  'acp.addFileToChat': (o) => (uri?: unknown, uris?: unknown) => addFiles(o.chats, uri, uris),
  'acp.setPermissionLevel': (o) => (level?: unknown) => setPermissionLevel(o.chats, o.levels, level),
  'acp.saveAgentDefaults': (o) => () => saveDefaultsOfChat(o.chats, o.levels, o.log),
  'acp.selectAgent': (o) => () => o.agents.selectAgent(),
  'acp.testConnection': (o) => (agent?: unknown) => o.agents.testConnection(agentNameOf(agent)),
  'acp.signOut': (o) => (agent?: unknown) => o.agents.signOut(agentNameOf(agent)),
  // A token given (by another extension, say) is stored without asking; none can be read back.
  'acp.setAgentToken': (o) => (agent?: unknown, token?: unknown) => o.agents.setAgentToken(agentNameOf(agent), text(token)),
  'acp.stopAgent': (o) => (agent?: unknown) => o.agents.stopAgent(agentNameOf(agent)),
  // An id only chooses which row the pick starts on: the user still picks it.
  'acp.addAgentFromRegistry': (o) => (id?: unknown) => o.registry.addFromRegistry(text(id)),
  'acp.updateAgent': (o) => (agent?: unknown) => o.registry.update(nameOf(agent)),
  'acp.uninstallAgent': (o) => (agent?: unknown) => o.registry.uninstall(nameOf(agent)),
  'acp.importSessions': (o) => (agentName?: unknown) => o.sessions.importSessions(text(agentName)),
  'acp.openPreviousSession': (o) => (target?: unknown) => opened(o.sessions.openPrevious(target)),
  'acp.sessions.newChat': (o) => (node?: unknown) => opened(o.sessions.newChatFrom(node)),
  'acp.sessions.closeChat': (o) => (node?: unknown) => closeChat(o.sessions.openChat(node)),
  'acp.sessions.revealChat': (o) => (node?: unknown) => o.sessions.openChat(node)?.reveal(),
  'acp.renameChat': (o) => (target?: unknown, title?: unknown) => o.sessions.chatCommands.rename(target, text(title)),
  'acp.deleteChat': (o) => (target?: unknown) => o.sessions.chatCommands.delete(target),
  'acp.forkChat': (o) => (target?: unknown) => opened(o.sessions.chatCommands.fork(target)),
  // A file is a suggestion: the user still picks where the export goes.
  'acp.exportChat': (o) => (target?: unknown, file?: unknown) =>
    o.sessions.chatCommands.export(target, file instanceof vscode.Uri ? file : undefined),
  'acp.copyChatAsMarkdown': (o) => (target?: unknown) => o.sessions.chatCommands.copy(target),
  'acp.continueWithAgent': (o) => (target?: unknown, agentName?: unknown) => opened(o.sessions.chatCommands.continueWith(target, text(agentName))),
  'acp.searchChats': (o) => (query?: unknown) => opened(o.sessions.search.pick(text(query) ?? '')),
  'acp.archiveChat': (o) => (target?: unknown) => o.sessions.archive.archive(target),
  'acp.unarchiveChat': (o) => (target?: unknown) => o.sessions.archive.unarchive(target),
  'acp.sessions.showArchived': (o) => () => o.sessions.archive.showArchived(true),
  'acp.sessions.hideArchived': (o) => () => o.sessions.archive.showArchived(false),
  'acp.reviewWorktree': (o) => (worktree?: unknown) => o.worktrees.onWorktree('acp.reviewWorktree', worktree),
  'acp.applyWorktree': (o) => (worktree?: unknown) => o.worktrees.onWorktree('acp.applyWorktree', worktree),
  'acp.commitWorktree': (o) => (worktree?: unknown) => o.worktrees.onWorktree('acp.commitWorktree', worktree),
  'acp.discardWorktree': (o) => (worktree?: unknown) => o.worktrees.onWorktree('acp.discardWorktree', worktree),
  'acp.openWorktreeInNewWindow': (o) => (worktree?: unknown) => o.worktrees.onWorktree('acp.openWorktreeInNewWindow', worktree),
  'acp.cleanUpWorktrees': (o) => () => o.worktrees.cleanUp(),
  'acp.showPendingPermission': (o) => () => o.permissions.showPending(),
  'acp.managePermissionRules': (o) => () => o.permissions.manage(),
  'acp.acceptEdit': (o) => (uri?: unknown) => o.reviews.decideFromCommand(uri, 'accepted'),
  'acp.rejectEdit': (o) => (uri?: unknown) => o.reviews.decideFromCommand(uri, 'rejected'),
  'acp.toggleFollowAgent': (o) => () => o.follow.toggle(),
  'acp.feedback.add': (o) => (reply: vscode.CommentReply) => o.feedback.add(reply),
  'acp.feedback.send': (o) => (thread?: vscode.CommentThread) => o.feedback.sendFor(thread),
  'acp.feedback.discard': (o) => (thread?: vscode.CommentThread) => thread && o.feedback.discard(thread),
  'acp.planFeedback.add': (o) => (reply: vscode.CommentReply) => o.plans.add(reply),
  'acp.planFeedback.send': (o) => (thread?: vscode.CommentThread) => o.plans.send(thread),
  'acp.planFeedback.discard': (o) => (thread?: vscode.CommentThread) => thread && o.plans.discard(thread),
  'acp.exportDiagnostics': (o) => (target?: unknown) => o.diagnostics.export(target),
};

/** Registers every command of the table; disposing the result unregisters them. */
export function registerCommands(owners: CommandOwners): vscode.Disposable {
  return new DisposableStore(
    ...Object.entries(COMMANDS).map(([id, make]) => vscode.commands.registerCommand(id, make(owners) as (...args: unknown[]) => unknown)),
  );
}
