// The shapes of a session's state, as the session model keeps them and its views read them: entries, tool calls,
// the turn, pending permission requests, usage, and a command's bounded output. Plain types, and TerminalState.
import type { TurnFailure } from './turnFailure';
import type * as S from './schema.gen';

/** A tool call's status as shown to the user: the protocol's four, plus "cancelled" when a turn ends early. */
export type ToolStatus = S.ToolCallStatus | 'cancelled';

export interface ToolCallState {
  readonly toolCallId: string;
  title: string;
  kind: S.ToolKind;
  status: ToolStatus;
  content: S.ToolCallContent[];
  locations: S.ToolCallLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  meta?: Record<string, unknown>;
  /** A permission request the client answered by itself (a rule the user made, or a setting). */
  autoAnswer?: AutoAnswer;
  /** How the command it ran ended, where the agent says so only in its text (quirks.ts `takeShellExit`). */
  exitCode?: number;
  /** v2: the agent says it can stop this call alone now (`capabilities.cancel`): its card offers Stop. */
  cancellable?: true;
}

interface AutoAnswer {
  readonly optionName: string;
  readonly optionKind: S.PermissionOptionKind;
  /** Why, in words the user recognises ("your rule: always allow …"). */
  readonly reason: string;
}

export type MessageRole = 'user' | 'agent' | 'thought';

/** How a message sent into a running turn (steering) went: on its way, added to the turn, a new turn, or not at all. */
export type SteerState = 'sending' | 'injected' | 'startedNewTurn' | 'failed';

export type Entry =
  | {
      readonly id: number;
      readonly type: 'message';
      readonly role: MessageRole;
      readonly messageId?: string;
      readonly content: S.ContentBlock[];
      /**
       * Sent from this chat: `content` is the client's own record of what the user typed and attached, and nothing the
       * agent sends merges into it. A user message without it is the agent's record (a replayed session, say).
       */
      readonly sent?: true;
      /** A message the user sent into a running turn, and how that went. */
      readonly steer?: SteerState;
    }
  | { readonly id: number; readonly type: 'tool'; readonly call: ToolCallState }
  | { readonly id: number; readonly type: 'compaction'; readonly compaction: CompactionState };

/** A context compaction of the agent's (see compactions.ts): where it happened, how it went, its summary. */
export interface CompactionState {
  readonly compactionId: string;
  /** `in_progress`, `completed`, `failed`, `cancelled`, or a status of a later protocol version. */
  status: S.CompactionStatus;
  summary: S.ContentBlock[];
  /** Characters of text in `summary`, kept within COMPACTION_SUMMARY_LIMIT. */
  summaryLength: number;
  /** The summary went past its bound, and the rest was dropped. */
  truncated?: boolean;
  error?: string;
  meta?: Record<string, unknown>;
  /** The context's tokens before and after, where the agent said them. */
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface PendingPermission {
  readonly id: number;
  readonly toolCallId: string;
  readonly options: readonly S.PermissionOption[];
}

export type TurnState =
  /**
   * `errorCode`: the agent's, where it said one (v2's error stop reason: sign-in required, say); `failure`: what kind
   * of failure its code and data say it was (turnFailure.ts).
   */
  | {
      readonly phase: 'idle';
      readonly stopReason?: S.StopReason;
      readonly error?: string;
      readonly errorCode?: number;
      readonly failure?: TurnFailure;
    }
  | { readonly phase: 'running' }
  | { readonly phase: 'awaiting-user' }
  | { readonly phase: 'cancelling' };

export type SessionChange =
  | { readonly type: 'entry'; readonly index: number; readonly added: boolean }
  | {
      readonly type: 'plan' | 'commands' | 'mode' | 'config' | 'usage' | 'info' | 'notice' | 'turn' | 'elicitation' | 'subagent' | 'background';
    }
  | { readonly type: 'permission'; readonly id: number; readonly settled: boolean }
  /** A command's output grew (`appended`), or it exited (`appended` is empty); `replaced`: all of it is `appended`. */
  | { readonly type: 'terminal'; readonly terminalId: string; readonly appended: string; readonly replaced?: true };

/**
 * What a command printed, as the chat shows it: the tail, and how it ended. Output arrives in many small pieces and
 * is read far less often, so the pieces are kept as they came and joined only when read: a flood costs each piece
 * once, never a copy of the whole tail per piece.
 */
export class TerminalState {
  truncated = false;
  exitStatus?: S.TerminalExitStatus;
  /** The output in pieces, from `head` on: dropping the oldest moves `head` (Array.shift copies a large array). */
  private pieces: string[] = [];
  private head = 0;
  private length = 0;

  get text(): string {
    if (this.pieces.length - this.head > 1 || this.head > 0) {
      this.pieces = [this.pieces.slice(this.head).join('')];
      this.head = 0;
    }
    return this.pieces[0] ?? '';
  }

  /** The output is replaced whole (a v2 agent's `terminal_update` sends all of it). */
  clear(): void {
    [this.pieces, this.head, this.length, this.truncated] = [[], 0, 0, false];
  }

  append(text: string, limit: number): void {
    this.pieces.push(text);
    this.length += text.length;
    while (this.pieces.length - this.head > 1 && this.length - this.pieces[this.head]!.length >= limit) {
      this.length -= this.pieces[this.head]!.length;
      this.head++;
      this.truncated = true;
    }
    // The dropped pieces go once they are half of the array: each is copied at most once more.
    if (this.head > 1024 && this.head * 2 > this.pieces.length) {
      this.pieces = this.pieces.slice(this.head);
      this.head = 0;
    }
    const first = this.pieces[this.head] ?? '';
    if (this.length > limit) {
      let start = this.length - limit;
      if (/[\udc00-\udfff]/.test(first.charAt(start))) start++; // never split a surrogate pair
      this.pieces[this.head] = first.slice(start);
      this.length -= start;
      this.truncated = true;
    }
  }

  /** A plain copy, for tests and comparisons. */
  toJSON(): { text: string; truncated: boolean; exitStatus?: S.TerminalExitStatus } {
    return { text: this.text, truncated: this.truncated, ...(this.exitStatus ? { exitStatus: this.exitStatus } : {}) };
  }
}

export interface Usage {
  readonly used: number;
  readonly size: number;
  readonly cost?: S.Cost;
}

/** Text blocks are appended to in place, so the model keeps its own copy of them. */
export function ownBlock(block: S.ContentBlock): S.ContentBlock {
  return block.type === 'text' ? { ...block } : block;
}
