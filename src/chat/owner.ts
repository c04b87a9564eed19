// What a chat asks of whoever owns it (src/chats): the acts that reach past one chat, such as restarting its agent,
// signing in, forking or resending into a new session, or changing files through its checkpoints. The owner
// implements this port and hands it to the chat when it makes it; the chat's door (dispatch.ts) calls it and awaits
// the act.
import type { AgentEnd } from '../acp/process';
import type * as S from '../acp/schema.gen';
import type { SessionTarget } from '../common/sessionTarget';
import type { PermissionLevelName, WebviewMessage } from './protocol';

/** What the user asked of the chat's checkpoints: a changes card's button or file, Restore Checkpoint, or an answer. */
export type CheckpointRequest = Extract<
  WebviewMessage,
  { type: 'changes' | 'openChange' | 'restoreCheckpoint' | 'redoRestore' | 'checkpointAnswer' }
>;

export interface ChatOwner {
  /** Restart Agent: a new process, and every chat with the agent gets its session back. */
  restart(): Promise<void>;
  /**
   * The chat's agent ended: true when the owner reconnects it (a dropped connection to an agent at a URL) and says
   * so in the chat, which then says nothing more.
   */
  reconnectAfter(end: AgentEnd): boolean;
  /** Stop Reconnecting. */
  stopReconnecting(): void;
  /** Sign In, or a message the agent refused until the user signs in. */
  signIn(): Promise<void>;
  /** Fork from one of the user's messages (by entry id) into a new chat. */
  fork(entryId: number): Promise<void>;
  /** Opens the session an edited and resent conversation came from. */
  openBranch(branch: SessionTarget): Promise<void>;
  /**
   * Edit and Resend: the user's message (by entry id) with `text` in its place, in a new session. Resolves with the
   * resent turn's stop reason, or undefined when nothing was sent (the chat has said why).
   */
  resend(entryId: number, text: string): Promise<S.StopReason | undefined>;
  /** Acts on the chat's changes; a failure has been told in the chat. */
  checkpoint(request: CheckpointRequest): Promise<void>;
  /** The user picked a permission level the chat offers. */
  setPermissionLevel(level: PermissionLevelName): Promise<void>;
}
