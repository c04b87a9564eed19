// What a chat shows, built in one place from one table that reads the chat's model (chatModel.ts): the update the
// webview gets when parts change, the whole state it gets when it (re)loads, and the snapshot the chat's handle
// reads. Each view part (protocol.ts's ViewParts) is one row of VIEWS; adding a piece of chat state is one field of
// the model, one row and what the webview shows of it (CONTRIBUTING.md).
import type { LeftOutServer } from '../acp/sessionHandle';
import type { Attention } from './attention';
import type { ChatModel } from './chatModel';
import { elicitationViews } from './elicitationViews';
import {
  FIRST_ENTRIES,
  INITIAL_PARTS,
  PARTS,
  type AttachmentView,
  type EntryView,
  type Part,
  type PromptView,
  type StateFrom,
  type ViewParts,
} from './protocol';
import type { ChatLocation } from './surface';
import { backgroundViews } from './backgroundView';
import { entryView, permissionViews, sessionEntries, sessionView, subagentViews, turnView } from './view';
import type { HeadMessage, StateMessage, UpdateMessage } from './viewSync';

/** What the chat's surface says of it: where it is, its title and what it asks of its user. */
export interface ChatFace {
  readonly location: ChatLocation;
  /** The tab's title without the attention mark. */
  readonly title: string;
  readonly attention: Attention;
}

/** Why the agent stopped while the chat was open: the sentence the chat shows, and what the agent last wrote to stderr. */
interface AgentEndView {
  readonly message: string;
  readonly stderr: readonly string[];
}

/** Everything the chat shows now, in the view's own plain shapes: what its handle reads. */
export interface ChatSnapshot extends ViewParts, ChatFace {
  readonly agentName: string;
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

type Row<P extends Part> = (chat: ChatModel) => ViewParts[P];

/** Each view part, built from the chat's model. */
const VIEWS: { readonly [P in Part]: Row<P> } = {
  turn: ({ session }) => (session ? turnView(session.model.turn, session.model) : { phase: 'idle' }),
  permissions: ({ session }) => (session ? permissionViews(session.model) : []),
  // The agent's questions, then the chat's own.
  elicitations: ({ session, questions }) => [...elicitationViews(session?.model.elicitations.all ?? []), ...elicitationViews(questions.all)],
  subagents: ({ session }) => (session ? subagentViews(session.model, session.cwd) : []),
  agentError: (chat) => chat.shown('agentError'),
  session: ({ session, worktree }) =>
    session
      ? sessionView(
          session.model,
          session.client.capabilities.accepts,
          session.client.capabilities.supports('forkSession'),
          worktree,
          session.client.auth.status,
        )
      : INITIAL_PARTS.session,
  // What the chat's rooms and its owner write into the model.
  checkpoints: (chat) => chat.shown('checkpoints'),
  queue: (chat) => chat.shown('queue'),
  permissionLevel: (chat) => chat.shown('permissionLevel'),
  background: ({ session }) => (session ? backgroundViews(session.model) : []),
};

function partsOf(chat: ChatModel, parts: Iterable<Part>): Partial<ViewParts> {
  const views: Partial<Record<Part, unknown>> = {};
  for (const part of parts) views[part] = VIEWS[part](chat);
  return views as Partial<ViewParts>;
}

function allParts(chat: ChatModel): ViewParts {
  return partsOf(chat, PARTS) as ViewParts;
}

/** What changed since the last update: the entries by index, and the parts marked. */
export function updateOf(chat: ChatModel, entries: ReadonlySet<number>, parts: ReadonlySet<Part>): UpdateMessage {
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

/**
 * Everything the webview shows, for a webview that (re)loads or a chat that changed wholesale. With `seq`, a long
 * conversation's state carries only its last FIRST_ENTRIES entries, and says where they start (`from`): the rest
 * go in headOf's message. Not when the state brings an entry into view, which may be among the rest.
 */
export function stateOf(chat: ChatModel, l10n: Readonly<Record<string, string>> | undefined, seq?: number): StateMessage {
  const session = chat.session;
  const all = session?.model.entries.length ?? 0;
  const split = seq !== undefined && !chat.revealed && chat.earlier.length + all > FIRST_ENTRIES;
  const from = split
    ? { entries: Math.max(0, all - FIRST_ENTRIES), earlier: Math.max(0, chat.earlier.length - Math.max(0, FIRST_ENTRIES - all)), seq }
    : undefined;
  return {
    type: 'state',
    agent: chat.agentName,
    ...(session
      ? { restore: { agent: chat.agentName, sessionId: session.sessionId, cwd: session.cwd } }
      : chat.restoreLater
        ? { restore: { agent: chat.agentName, ...chat.restoreLater } }
        : {}),
    earlier: chat.earlier.slice(from?.earlier ?? 0),
    ...(chat.divider ? { divider: chat.divider.text, ...(chat.divider.branch ? { branch: true } : {}) } : {}),
    entries: sessionEntries(session, from?.entries),
    ...allParts(chat),
    attachments: [...chat.attachments],
    ...(chat.prompts.length > 0 ? { prompts: [...chat.prompts] } : {}),
    ...(chat.notice ? { notice: chat.notice } : {}),
    ...(chat.draft ? { draft: chat.draft } : {}),
    ...(chat.revealed ? { reveal: { earlier: chat.revealed.earlier, entryId: chat.revealed.entry.id } } : {}),
    ...(l10n ? { l10n: { ...l10n } } : {}),
    ...(from ? { from } : {}),
  };
}

/** The entries before a state's `from`, as they are now (an update to one of them meanwhile was not the page's). */
export function headOf(chat: ChatModel, from: StateFrom): HeadMessage {
  const session = chat.session;
  return {
    type: 'head',
    seq: from.seq,
    earlier: chat.earlier.slice(0, from.earlier),
    entries: session ? session.model.entries.slice(0, from.entries).map((entry) => entryView(entry, session.cwd, session.model.terminals)) : [],
  };
}

/**
 * What the chat's handle reads: the same parts as the view, and what the host knows of the session besides. Each
 * field is built when it is read (a handle reads one at a time, and the entries of a long chat are many).
 */
export function snapshotOf(chat: ChatModel, face: ChatFace): ChatSnapshot {
  const session = chat.session;
  const end = session?.ended;
  const snapshot = {
    agentName: chat.agentName,
    location: face.location,
    title: face.title,
    attention: face.attention,
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
