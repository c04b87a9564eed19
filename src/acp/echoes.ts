// Agents echo the user's prompt back as `user_message_chunk`s at the start of a turn (Gemini CLI and Codex without a
// message id, Claude with one). An echo adds nothing to the message the user sent; anything else in a user chunk is
// the agent's own record (a link the user never attached, say), kept apart from what the user sent.
import type * as S from './schema.gen';
import type { Entry } from './sessionState';

/** The echo under way: of the sent message at `at`, its text so far. */
export class Echoes {
  private at = -1;
  private text = '';

  /** Whether `block`, a user chunk of the agent's, only echoes the last of `entries`, a message the user sent. */
  swallows(entries: readonly Entry[], block: S.ContentBlock): boolean {
    const index = entries.length - 1;
    const last = entries[index];
    if (last?.type !== 'message' || !last.sent) return false;
    const echoed = echoOf(last.content, this.at === index ? this.text : '', block);
    if (echoed === undefined) return false;
    [this.at, this.text] = [index, echoed];
    return true;
  }
}

/**
 * Whether `block`, a user chunk of the agent's right after the user's `sent` message, only echoes it: its text goes
 * on with the sent text (`echoed` is the text echoed so far), or it is a link, a resource or an image the user sent.
 * Returns the text echoed so far with it, or undefined when it is not an echo.
 */
function echoOf(sent: readonly S.ContentBlock[], echoed: string, block: S.ContentBlock): string | undefined {
  if (block.type === 'text') {
    const text = echoed + block.text;
    const typed = sent.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    return typed.startsWith(text) ? text : undefined;
  }
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
