// What a chat asks of its user at a glance: working, needs you (a permission waiting), working in background (its
// turn ended, and what it started still runs), done and not yet seen, or failed. The Sessions view shows it per chat,
// the tab's title carries its mark, the view container's badge counts the chats that need you, and a window without
// the focus gets one notification when a turn ends or starts waiting.
// Pure: unit-tested in plain Node.

export type Attention = 'none' | 'working' | 'needsYou' | 'background' | 'unseen' | 'failed';

export interface AttentionInput {
  /** The turn's phase, and how the last one ended. */
  readonly phase: 'idle' | 'running' | 'awaiting-user' | 'cancelling';
  readonly stopReason?: string | undefined;
  readonly error?: string | undefined;
  /** Requests waiting for the user (permissions). */
  readonly waiting: number;
  /** The agent is gone with an error, or could not start. */
  readonly agentFailed: boolean;
  /** The user has seen the chat since its last turn ended (or its background work did). */
  readonly seen: boolean;
  /** Something still runs that outlived its turn (acp/background.ts). */
  readonly background?: boolean;
}

export function attentionOf(input: AttentionInput): Attention {
  if (input.waiting > 0 || input.phase === 'awaiting-user') return 'needsYou';
  if (input.agentFailed) return 'failed';
  if (input.phase === 'running' || input.phase === 'cancelling') return 'working';
  // Not done while what the turn started runs on: "done" comes when the last of it ends.
  if (input.background === true) return 'background';
  if (input.error !== undefined) return input.seen ? 'none' : 'failed';
  // A turn the user stopped needs no second look.
  if (input.stopReason !== undefined && input.stopReason !== 'cancelled' && !input.seen) return 'unseen';
  return 'none';
}

/** The mark a chat's tab title carries for each state (none for a chat that asks nothing). */
export function attentionMark(attention: Attention): string {
  switch (attention) {
    case 'needsYou':
      return '● ';
    case 'unseen':
      return '✓ ';
    case 'failed':
      return '✕ ';
    case 'working':
      return '⋯ ';
    case 'background':
      return '◷ ';
    case 'none':
      return '';
  }
}

export type NotifySetting = 'whenUnfocused' | 'never';

/**
 * Whether a change of state is worth one notification: a turn that ended or started waiting for the user, while the
 * window does not have the focus. Anything else (and everything, with `never`) stays quiet. (An agent that crashes
 * says so on its own, in every chat with it.)
 */
export function notificationFor(
  before: Attention,
  after: Attention,
  windowFocused: boolean,
  setting: NotifySetting,
): 'finished' | 'needsYou' | undefined {
  if (setting === 'never' || windowFocused || before === after) return undefined;
  if (after === 'needsYou') return 'needsYou';
  if (after === 'unseen' && (before === 'working' || before === 'needsYou' || before === 'background')) return 'finished';
  // A turn that ended while work runs on (a dev server for hours) finished all the same.
  if (after === 'background' && (before === 'working' || before === 'needsYou')) return 'finished';
  return undefined;
}
