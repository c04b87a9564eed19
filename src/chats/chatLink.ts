// What a link to a chat asks for: `vscode://acp-client.acp-client/chat?agent=<name>&prompt=<text>` opens a new chat
// with the agent and the prompt in its composer, never sent by itself. Plain Node: the link is read here, bounded.

/** The most of a link's prompt that goes into the composer. */
export const MAX_LINK_PROMPT = 10_000;
const MAX_AGENT_NAME = 200;

/** `removed`: how many invisible characters were taken out of the prompt. */
export type ChatLink =
  { readonly agent: string | undefined; readonly prompt: string; readonly cut: boolean; readonly removed: number } | { readonly error: string };

/**
 * What a reader cannot see but a model reads: format characters (zero-width spaces and joiners, bidi controls, Unicode
 * tag characters, which spell hidden ASCII) and control characters but the line feed and the tab.
 */
const INVISIBLE = /[\p{Cf}\p{Cc}\u{E0000}-\u{E007F}]/gu;

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
  // Invisible text is taken out (and counted); a run of blank lines is one: what the box shows is what is sent.
  let removed = 0;
  const visible = (whole ?? '').replace(/\r\n?/g, '\n').replace(INVISIBLE, (c) => (c === '\n' || c === '\t' ? c : (removed++, '')));
  // Leading blank lines would put the words below what the message box shows.
  const text = visible.replace(/\n[ \t]*(?:\n[ \t]*){2,}/g, '\n\n').replace(/^\s+/, '');
  const cut = text.length > MAX_LINK_PROMPT;
  // Never in the middle of a surrogate pair.
  let end = Math.min(text.length, MAX_LINK_PROMPT);
  if (cut && /[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return { agent, prompt: text.slice(0, end), cut, removed };
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
