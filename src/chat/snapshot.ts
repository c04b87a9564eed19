// What a chat shows, built in one place from one table: the update the webview gets when parts change, the whole
// state it gets when it (re)loads, and the snapshot the chat's handle reads. Each view part (protocol.ts's
// ViewParts) is one row of VIEWS; adding a piece of chat state is one protocol field, one row and what the webview
// shows of it (CONTRIBUTING.md).
import type { AgentSession } from '../acp/agentClient';
import type { LeftOutServer } from '../acp/sessionHandle';
import type { SessionChange } from '../acp/sessionState';
import type { SessionTarget } from '../common/sessionTarget';
import type { Attention } from './attention';
import {
  EMPTY_SESSION,
  PARTS,
  type AgentErrorView,
  type AttachmentView,
  type CheckpointsView,
  type ElicitationView,
  type EntryView,
  type Part,
  type PromptView,
  type QueueView,
  type PermissionLevelView,
  type ViewParts,
} from './protocol';
import type { ChatLocation } from './surface';
import { entryView, permissionViews, sessionView, subagentViews, turnView } from './view';
import type { StateMessage, UpdateMessage } from './viewSync';

/** An entry a search result brought into view: where it is (above the session's own, or among them) and what. */
export interface Revealed {
  readonly earlier: boolean;
  readonly entry: EntryView;
}

/** The chat's state as the panel holds it, read when a view is built. */
/** The line below the earlier entries, and the session they came from when the chat offers to open it. */
export interface Divider {
  readonly text: string;
  readonly branch?: SessionTarget;
}

export interface ChatState {
  readonly agentName: string;
  readonly session: AgentSession | undefined;
  /** The session to bring back once the chat can connect. */
  readonly restoreLater: Omit<SessionTarget, 'agent'> | undefined;
  /** An earlier session's entries, or a transcript kept on this computer, shown above the session's own. */
  readonly earlier: readonly EntryView[];
  /** What the line below the earlier entries says, when it is not a restart, and the branch they came from. */
  readonly divider: Divider | undefined;
  readonly agentError: AgentErrorView | null;
  readonly checkpoints: CheckpointsView;
  readonly queue: QueueView;
  readonly permissionLevel: PermissionLevelView;
  readonly elicitations: readonly ElicitationView[];
  readonly attachments: readonly AttachmentView[];
  readonly prompts: readonly PromptView[];
  readonly notice: string | undefined;
  readonly draft: string;
  readonly revealed: Revealed | undefined;
  readonly title: string;
  readonly attention: Attention;
  readonly location: ChatLocation;
  /** The worktree the session works in, if it does (New Chat in Worktree). */
  readonly worktree: { readonly path: string; readonly branch: string } | undefined;
  /** The host's translations for the webview, absent in English (see html.ts). */
  readonly l10n: Readonly<Record<string, string>> | undefined;
}

/** A ChatState that reads each field from `read` when it is asked. */
export function liveState(read: { readonly [K in keyof ChatState]: () => ChatState[K] }): ChatState {
  const state = {};
  for (const [key, get] of Object.entries(read)) Object.defineProperty(state, key, { get, enumerable: true });
  return state as ChatState;
}

/** Why the agent stopped while the chat was open: the sentence the chat shows, and what the agent last wrote to stderr. */
export interface AgentEndView {
  readonly message: string;
  readonly stderr: readonly string[];
}

/** Everything the chat shows now, in the view's own plain shapes: what its handle reads. */
export interface ChatSnapshot extends ViewParts {
  readonly agentName: string;
  readonly location: ChatLocation;
  /** The tab's title without the attention mark. */
  readonly title: string;
  readonly attention: Attention;
  /** The conversation, oldest first: an earlier conversation kept above, then the session's own entries. */
  readonly entries: readonly EntryView[];
  readonly attachments: readonly AttachmentView[];
  readonly prompts: readonly PromptView[];
  readonly notice: string | undefined;
  readonly draft: string;
  readonly revealed: EntryView | undefined;
  readonly sessionId: string | undefined;
  /** The agent's process (shared by every chat with that agent), while it runs. */
  readonly agentPid: number | undefined;
  /** The MCP servers the session was opened without, because the agent cannot use their transport. */
  readonly leftOut: readonly LeftOutServer[];
  /** Set once the agent stopped while the session was open. */
  readonly agentEnd: AgentEndView | undefined;
}

/**
 * The view part each change of the session's model touches. Entries go by index; a terminal's output shows in the
 * tool entries that hold it, which change too.
 */
export const PART_OF_CHANGE: { readonly [T in SessionChange['type']]: Part | undefined } = {
  entry: undefined,
  terminal: undefined,
  turn: 'turn',
  permission: 'permissions',
  elicitation: 'elicitations',
  subagent: 'subagents',
  info: 'session',
  plan: 'session',
  commands: 'session',
  mode: 'session',
  config: 'session',
  usage: 'session',
  notice: 'session',
};

type Row<P extends Part> = (chat: ChatState) => ViewParts[P];

/** Each view part, built from the chat's state. */
const VIEWS: { readonly [P in Part]: Row<P> } = {
  turn: ({ session }) => (session ? turnView(session.model.turn, session.model) : { phase: 'idle' }),
  permissions: ({ session }) => (session ? permissionViews(session.model) : []),
  elicitations: (chat) => [...chat.elicitations],
  subagents: ({ session }) => (session ? subagentViews(session.model, session.cwd) : []),
  agentError: (chat) => chat.agentError,
  session: ({ session, worktree }) =>
    session
      ? sessionView(
          session.model,
          session.client.capabilities.accepts,
          session.client.capabilities.supports('forkSession'),
          worktree,
          session.client.auth.status,
        )
      : EMPTY_SESSION,
  checkpoints: (chat) => chat.checkpoints,
  queue: (chat) => chat.queue,
  permissionLevel: (chat) => chat.permissionLevel,
};

function partsOf(chat: ChatState, parts: Iterable<Part>): Partial<ViewParts> {
  const views: Partial<Record<Part, unknown>> = {};
  for (const part of parts) views[part] = VIEWS[part](chat);
  return views as Partial<ViewParts>;
}

function allParts(chat: ChatState): ViewParts {
  return partsOf(chat, PARTS) as ViewParts;
}

/** The session's own entries, as the chat shows them. */
export function sessionEntries(session: AgentSession | undefined): EntryView[] {
  return session ? session.model.entries.map((entry) => entryView(entry, session.cwd, session.model.terminals)) : [];
}

/** What changed since the last update: the entries by index, and the parts marked. */
export function updateOf(chat: ChatState, entries: ReadonlySet<number>, parts: ReadonlySet<Part>): UpdateMessage {
  const session = chat.session;
  const model = session?.model;
  const changed = model
    ? [...entries]
        .sort((a, b) => a - b)
        .flatMap((index) => {
          const entry = model.entries[index];
          return entry ? [{ index, entry: entryView(entry, session.cwd, model.terminals) }] : [];
        })
    : [];
  return { type: 'update', entries: changed, ...partsOf(chat, parts) };
}

/** Everything the webview shows, for a webview that (re)loads or a chat that changed wholesale. */
export function stateOf(chat: ChatState): StateMessage {
  const session = chat.session;
  return {
    type: 'state',
    agent: chat.agentName,
    ...(session
      ? { restore: { agent: chat.agentName, sessionId: session.sessionId, cwd: session.cwd } }
      : chat.restoreLater
        ? { restore: { agent: chat.agentName, ...chat.restoreLater } }
        : {}),
    earlier: [...chat.earlier],
    ...(chat.divider ? { divider: chat.divider.text, ...(chat.divider.branch ? { branch: true } : {}) } : {}),
    entries: sessionEntries(session),
    ...allParts(chat),
    attachments: [...chat.attachments],
    ...(chat.prompts.length > 0 ? { prompts: [...chat.prompts] } : {}),
    ...(chat.notice ? { notice: chat.notice } : {}),
    ...(chat.draft ? { draft: chat.draft } : {}),
    ...(chat.revealed ? { reveal: { earlier: chat.revealed.earlier, entryId: chat.revealed.entry.id } } : {}),
    ...(chat.l10n ? { l10n: { ...chat.l10n } } : {}),
  };
}

/**
 * What the chat's handle reads: the same parts as the view, and what the host knows of the session besides. Each
 * field is built when it is read (a handle reads one at a time, and the entries of a long chat are many).
 */
export function snapshotOf(chat: ChatState): ChatSnapshot {
  const session = chat.session;
  const end = session?.ended;
  const snapshot = {
    agentName: chat.agentName,
    location: chat.location,
    title: chat.title,
    attention: chat.attention,
    get entries(): readonly EntryView[] {
      return [...chat.earlier, ...sessionEntries(session)];
    },
    attachments: chat.attachments,
    prompts: chat.prompts,
    notice: chat.notice,
    draft: chat.draft,
    revealed: chat.revealed?.entry,
    sessionId: session?.sessionId,
    agentPid: session?.client.process.pid,
    leftOut: session?.leftOut ?? [],
    agentEnd: end && { message: end.message, stderr: 'stderrTail' in end ? [...end.stderrTail] : [] },
  };
  for (const part of PARTS) Object.defineProperty(snapshot, part, { get: () => VIEWS[part](chat), enumerable: true });
  return snapshot as typeof snapshot & ViewParts;
}
