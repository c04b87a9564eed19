// The client's requests and the agent's answers between the two wire versions: what the host asks in v1's terms goes
// out in v2's, and a v2 answer comes back in v1's, so that one session model and one host serve both. Pure.
import type { OfferedMcpServer } from '../capabilities';
import type * as S1 from '../schema.gen';
import type * as S from './schema.gen';

/** The protocol version the client asks for, and the ones it speaks. */
export const PROTOCOL_V1 = 1;
export const PROTOCOL_V2 = 2;

/** A v2 `initialize` answer as v1 says it: the capabilities the rest of the client asks about (capabilities.ts). */
export function initializeAnswer(answer: S.InitializeResponse): S1.InitializeResponse {
  const session = answer.capabilities?.session;
  const has = (value: unknown) => value != null;
  const sessionCapabilities: Record<string, unknown> = { list: {}, resume: {}, close: {} }; // v2's baseline
  if (has(session?.delete)) sessionCapabilities['delete'] = {};
  if (has(session?.additionalDirectories)) sessionCapabilities['additionalDirectories'] = {};
  return {
    protocolVersion: answer.protocolVersion,
    agentInfo: answer.info,
    authMethods: authMethods(answer.authMethods ?? []),
    ...(answer._meta != null && { _meta: answer._meta }),
    agentCapabilities: {
      loadSession: true, // v2's session/resume replays a session's history where asked (connection.ts loadSession)
      promptCapabilities: {
        image: has(session?.prompt?.image),
        audio: has(session?.prompt?.audio),
        embeddedContext: has(session?.prompt?.embeddedContext),
      },
      // `acp` (unstable, MCP over ACP) is a marker object in v2, a flag in v1.
      mcpCapabilities: { http: has(session?.mcp?.http), sse: false, acp: has((session?.mcp as { acp?: unknown } | null | undefined)?.acp) },
      sessionCapabilities: sessionCapabilities as S1.SessionCapabilities,
      // The draft quota RFD's marker, top-level in both versions (`quota/read` is not a session's).
      ...(has((answer.capabilities as { quota?: unknown } | null | undefined)?.quota) && { quota: {} }),
      ...(answer.capabilities?._meta != null && { _meta: answer.capabilities._meta }),
    },
  };
}

/** The client's capabilities as v2 says them: object markers; v2 has no files or terminals of the client's. */
export function clientCapabilities(v1: S1.ClientCapabilities): S.ClientCapabilities {
  const v1Auth = v1.auth as { terminal?: boolean } | null | undefined;
  return {
    ...(v1Auth?.terminal === true && { auth: { terminal: {} } }),
    ...(v1.elicitation != null && { elicitation: v1.elicitation as S.ClientCapabilities['elicitation'] }),
    ...(v1._meta != null && { _meta: v1._meta }),
  };
}

/** MCP servers as v2 takes them: each with its `type` (an `acp` one as it is); v2 has no SSE servers. */
export function mcpServers(servers: readonly OfferedMcpServer[] | undefined): S.McpServer[] | undefined {
  if (!servers) return undefined;
  const out: S.McpServer[] = [];
  for (const server of servers) {
    if ('type' in server && server.type === 'sse') continue;
    out.push(('type' in server ? server : { ...server, type: 'stdio' }) as S.McpServer);
  }
  return out;
}

/** A v2 session's commands (`type: "command"`; a later kind is not offered), in v1's terms. */
export function commandsOf(commands: readonly S.AvailableCommand[] | null | undefined): { availableCommands?: S1.AvailableCommand[] } {
  return commands ? { availableCommands: commands.filter((c) => c.type === 'command') as unknown as S1.AvailableCommand[] } : {};
}

/** v2's sign-in methods as v1's: `methodId` is v1's `id`, a terminal method's `env` a record; later kinds are left out. */
function authMethods(methods: readonly S.AuthMethod[]): S1.AuthMethod[] {
  const out: S1.AuthMethod[] = [];
  for (const method of methods) {
    const m = method as { type: string; methodId?: string; name?: string; description?: string | null; args?: string[]; env?: S.EnvVariable[] };
    if ((m.type !== 'agent' && m.type !== 'terminal') || typeof m.methodId !== 'string' || typeof m.name !== 'string') continue;
    const base = { id: m.methodId, name: m.name, ...(m.description != null && { description: m.description }) };
    if (m.type === 'agent') out.push(base);
    else
      out.push({
        ...base,
        type: 'terminal',
        ...(m.args && { args: m.args }),
        ...(m.env && { env: Object.fromEntries(m.env.map((v) => [v.name, v.value])) }),
      });
  }
  return out;
}

/**
 * v2's config options as v1 says them (`configId` is v1's `id`, a group's `groupId` its `group`), for v1's schema to
 * read: what it cannot show (a kind of a later version) it drops.
 */
export function configOptions(options: unknown): unknown {
  if (!Array.isArray(options)) return options;
  return options.map((option: unknown) => {
    if (typeof option !== 'object' || option === null) return option;
    const { configId, options: values, ...rest } = option as { configId?: unknown; options?: unknown };
    const groups = Array.isArray(values)
      ? values.map((v: unknown) => {
          if (typeof v !== 'object' || v === null || !('groupId' in v)) return v;
          const { groupId, ...group } = v as { groupId: unknown };
          return { ...group, group: groupId };
        })
      : values;
    return { ...rest, id: configId, ...(values !== undefined && { options: groups }) };
  });
}
