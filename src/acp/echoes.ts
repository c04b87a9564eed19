// Agents echo the user's prompt back as `user_message_chunk`s at the start of a turn (Gemini CLI and Codex without a
// message id, Claude with one). An echo adds nothing to the message the user sent; anything else in a user chunk is
// the agent's own record (a link the user never attached, say), kept apart from what the user sent.
import type * as S from './schema.gen';
import type { Entry } from './sessionState';

/** The echo under way: of the sent message at `at`, its text so far. */
export class Echoes {
  private at = -1;
  /** The sent message's text, joined once, and how much of it has been echoed. */
  private typed = '';
  private echoed = 0;

  /** Whether `block`, a user chunk of the agent's, only echoes the last of `entries`, a message the user sent. */
  swallows(entries: readonly Entry[], block: S.ContentBlock): boolean {
    const index = entries.length - 1;
    const last = entries[index];
    if (last?.type !== 'message' || !last.sent) return false;
    if (this.at !== index) {
      [this.at, this.typed, this.echoed] = [index, last.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''), 0];
    }
    const echoed = echoOf(last.content, this.typed, this.echoed, block);
    if (echoed === undefined) return false;
    this.echoed = echoed;
    return true;
  }
}

/**
 * Whether `block`, a user chunk of the agent's right after the user's `sent` message, only echoes it: its text goes
 * on with the sent text (`typed`, of which `echoed` characters came back so far), or it is a link, a resource or an
 * image the user sent. Returns how much of the text has come back with it, or undefined when it is not an echo.
 * Linear in the chunk: an agent that echoes a long prompt a character at a time costs no more than the prompt.
 */
function echoOf(sent: readonly S.ContentBlock[], typed: string, echoed: number, block: S.ContentBlock): number | undefined {
  if (block.type === 'text') return typed.startsWith(block.text, echoed) ? echoed + block.text.length : undefined;
  const key = identity(block);
  return key !== undefined && sent.some((b) => identity(b) === key) ? echoed : undefined;
}

function identity(block: S.ContentBlock): string | undefined {
  switch (block.type) {
    case 'resource_link':
      return `link ${block.uri}`;
    case 'resource':
      return `resource ${block.resource.uri}`;
    case 'image':
      return `image ${block.uri ?? ''} ${block.data.length} ${block.data.slice(0, 64)}`;
    default:
      return undefined;
  }
}
