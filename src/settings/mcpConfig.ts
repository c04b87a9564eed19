// The parser of `acp.mcpServers`: the MCP servers every session is opened with. No `vscode` import: unit-tested in
// plain Node. A bad entry is reported by name and skipped; the others still go to the agent.
import { z } from 'zod';
import type * as S from '../acp/schema.gen';
import { eachEntry } from './keyedSetting';

const ARGS = 'its "args" must be a list of strings';
const ENV = 'its "env" must map names to string values';
const HEADERS = 'its "headers" must map names to string values';

/** The message for keys the setting does not have (a typo, or a field of another kind of server). */
function unknownKeys(issue: { code?: string; keys?: readonly string[] }): string | undefined {
  return issue.code === 'unrecognized_keys' ? `it has unknown keys: ${(issue.keys ?? []).join(', ')}` : undefined;
}

const Stdio = z.strictObject(
  {
    type: z.literal('stdio').optional(),
    command: z.string('it needs a "command" (or a "type" of "http" or "sse" with a "url")').trim().min(1, 'its "command" is empty'),
    args: z.array(z.string(ARGS), ARGS).optional(),
    env: z.record(z.string(), z.string(ENV), ENV).optional(),
  },
  { error: unknownKeys },
);

const Remote = z.strictObject(
  {
    type: z.enum(['http', 'sse'], 'its "type" must be "stdio", "http" or "sse"'),
    url: z
      .string('it needs a "url"')
      .trim()
      .refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url), 'its "url" must be an http:// or https:// address'),
    headers: z.record(z.string(), z.string(HEADERS), HEADERS).optional(),
  },
  { error: unknownKeys },
);

const pairs = (record: Record<string, string> | undefined) => Object.entries(record ?? {}).map(([name, value]) => ({ name, value }));

/** Parses the value of `acp.mcpServers` into ACP's McpServer entries, keyed by name in the setting. */
export function parseMcpServers(value: unknown): { servers: S.McpServer[]; problems: string[] } {
  const servers: S.McpServer[] = [];
  const names = {
    setting: 'acp.mcpServers',
    keys: 'server names',
    anEntry: 'An MCP server',
    theEntry: 'The MCP server',
    shape: 'an object with a "command", or a "type" and a "url"',
  };
  const problems = eachEntry(value, names, (name, entry) => {
    const type = (entry as { type?: unknown }).type;
    const remote = type !== undefined && type !== 'stdio';
    const parsed = remote ? Remote.safeParse(entry) : Stdio.safeParse(entry);
    if (!parsed.success) return `The MCP server "${name}" in "acp.mcpServers" was skipped: ${parsed.error.issues[0]?.message ?? 'it is invalid'}.`;
    const server = parsed.data;
    if ('url' in server) servers.push({ type: server.type, name, url: server.url, headers: pairs(server.headers) });
    else servers.push({ name, command: server.command, args: server.args ?? [], env: pairs(server.env) });
    return undefined;
  });
  return { servers, problems };
}

/** The other workspace folders, for a session in `cwd`: local folders only, each once. */
export function additionalDirectories(folders: readonly string[], cwd: string): string[] {
  return [...new Set(folders)].filter((folder) => folder !== cwd);
}
