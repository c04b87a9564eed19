// What a link to a chat asks for: `vscode://acp-client.acp-client/chat?agent=<name>&prompt=<text>` opens a new chat
// with the agent and the prompt in its composer, never sent by itself. Plain Node: the link is read here, bounded.

/** The most of a link's prompt that goes into the composer. */
export const MAX_LINK_PROMPT = 10_000;
const MAX_AGENT_NAME = 200;

export type ChatLink = { readonly agent: string | undefined; readonly prompt: string; readonly cut: boolean } | { readonly error: string };

/**
 * The chat a link's path and query ask for, or why the link is not one. `query` is as VS Code gives it to the
 * extension: already percent-decoded, so a `&` or `=` of the prompt is no longer told apart from the separators. The
 * prompt therefore runs to the end of the query (or to an `&agent=` after it), and `+` stays a plus.
 */
export function parseChatLink(path: string, query: string): ChatLink {
  let pathEnd = path.length;
  while (pathEnd > 0 && path.charCodeAt(pathEnd - 1) === 0x2f) pathEnd--;
  if (path.slice(0, pathEnd) !== '/chat') return { error: `the link's path ${JSON.stringify(path.slice(0, 100))} is not /chat` };
  const { agent: named, prompt: whole } = fields(query);
  const agent = named?.trim() || undefined;
  if (agent !== undefined && agent.length > MAX_AGENT_NAME) return { error: 'the agent name in the link is too long' };
  // Leading blank lines would put the words below what the message box shows.
  const text = (whole ?? '').replace(/^\s+/, '');
  const cut = text.length > MAX_LINK_PROMPT;
  // Never in the middle of a surrogate pair.
  let end = Math.min(text.length, MAX_LINK_PROMPT);
  if (cut && /[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return { agent, prompt: text.slice(0, end), cut };
}

/** `agent` (up to the next `&`) and `prompt` (to the end, or to a last `&agent=` after it) of a decoded query. */
function fields(query: string): { agent?: string; prompt?: string } {
  const named = (text: string) => /(?:^|&)agent=([^&]*)/.exec(text)?.[1];
  const promptAt = query.startsWith('prompt=') ? 0 : query.includes('&prompt=') ? query.indexOf('&prompt=') + 1 : -1;
  if (promptAt < 0) {
    const agent = named(query);
    return agent === undefined ? {} : { agent };
  }
  const before = named(query.slice(0, promptAt));
  const rest = query.slice(promptAt + 'prompt='.length);
  if (before !== undefined) return { agent: before, prompt: rest };
  // An agent after the prompt: the last `&agent=`, whose value has no `&` (the prompt's own text may say "&agent=").
  const last = rest.lastIndexOf('&agent=');
  const after = last < 0 ? undefined : rest.slice(last + '&agent='.length);
  return after === undefined || after.includes('&') ? { prompt: rest } : { agent: after, prompt: rest.slice(0, last) };
}
