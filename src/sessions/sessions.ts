// Sessions, wired: the transcript store of this workspace, the Sessions view and its commands, and "ACP: Open
// Previous Session…".
import type { HandOff } from '../chats/handOff';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WorktreeRecords } from '../worktrees/records';
import { tagged, type Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import type { ChatPanel } from '../chat/panel';
import type { Checkpoints } from '../checkpoints/checkpoints';
import type { Chats } from '../chats/chats';
import { SessionTarget } from '../common/sessionTarget';
import { SessionImport } from './importSessions';
import { PreviousSessions } from './previousSessions';
import { ChatArchive } from './archive';
import { ChatCommands } from './chatCommands';
import { SearchChats } from './searchChats';
import { SessionsView, type SessionNode } from './sessionsView';
import { workspaceKey } from '../history/format';
import { TranscriptStore } from '../history/transcripts';

/**
 * This workspace's transcripts, in the extension's global storage: one folder per workspace, named by a hash of the
 * workspace file (multi-root) or of the folder's URI (a single-folder window).
 */
export function openTranscriptStore(context: vscode.ExtensionContext, log: Logger): TranscriptStore {
  const identity = vscode.workspace.workspaceFile?.toString() ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? 'no-workspace';
  return new TranscriptStore(join(context.globalStorageUri.fsPath, 'transcripts', workspaceKey(identity)), tagged(log, 'transcripts'));
}

/** The Sessions view as the entry point registered it, before the core was loaded. */
export interface SessionsViewHost {
  readonly sessionsTree: vscode.TreeView<unknown>;
  /** Hands the Sessions view's provider to the tree the entry point registered. */
  provideSessions(provider: vscode.TreeDataProvider<unknown>): void;
}

/** A history item's argument to acp.openPreviousSession (from the Sessions view, or another extension, which may leave out the folder). */
const HistoryTarget = SessionTarget.partial({ cwd: true }).refine((t) => t.agent !== '' && t.sessionId !== '');

/** The sessions' owners, for the command table (src/commands.ts), and what the core disposes. */
export interface SessionsWired {
  readonly previous: PreviousSessions;
  readonly chatCommands: ChatCommands;
  readonly archive: ChatArchive;
  readonly search: SearchChats;
  /** Import Sessions: the agent's sessions of this workspace, picked, replayed and kept. */
  importSessions(agentName: string | undefined): Promise<unknown>;
  /** Open Previous Session: the session a history item names, or the list to pick from. */
  openPrevious(target: unknown): Promise<ChatPanel | undefined>;
  /** New Chat on an agent's row of the Sessions view. */
  newChatFrom(node: unknown): Promise<ChatPanel | undefined>;
  /** The open chat of a row of the Sessions view, if it is one. */
  openChat(node: unknown): ChatPanel | undefined;
  readonly disposables: vscode.Disposable[];
}

export function registerSessions(
  chats: Chats,
  agents: AgentManager,
  store: TranscriptStore,
  log: Logger,
  hosts: SessionsViewHost,
  checkpoints: Checkpoints,
  worktrees: WorktreeRecords,
  handOff: HandOff,
): SessionsWired {
  const previous = new PreviousSessions(chats, agents, store, log);
  const view = new SessionsView(chats, store, agents, checkpoints, worktrees);
  // The entry point registered the tree (so the view works before the core is loaded); this is its data.
  hosts.provideSessions(view);
  view.watch(hosts.sessionsTree);
  const node = (value: unknown): SessionNode | undefined =>
    value && typeof value === 'object' && 'kind' in value && typeof value.kind === 'string' ? (value as SessionNode) : undefined;
  const chatCommands = new ChatCommands(chats, agents, store, log, handOff);
  const archive = new ChatArchive(chats, agents, store, log, view);
  const search = new SearchChats(chats, store, log);
  return {
    previous,
    chatCommands,
    archive,
    search,
    importSessions: (agentName) => new SessionImport(chats, agents, store, log).run(agentName),
    openPrevious: async (target) => {
      const parsed = HistoryTarget.safeParse(target);
      if (parsed.success) return chats.openPrevious(parsed.data.agent, parsed.data);
      if (target !== undefined && !(target instanceof vscode.Uri))
        log.warn('[history] acp.openPreviousSession was given something that is not a session; listing them instead');
      await previous.pick();
      return undefined;
    },
    newChatFrom: (value) => {
      const n = node(value);
      return chats.newChat(n?.kind === 'agent' ? n.name : undefined);
    },
    openChat: (value) => {
      const n = node(value);
      return n?.kind === 'chat' && chats.all.includes(n.panel) ? n.panel : undefined;
    },
    disposables: [view, store, chatCommands, archive, search],
  };
}
