// The client's requests and the agent's answers between the two wire versions: what the host asks in v1's terms goes
// out in v2's, and a v2 answer comes back in v1's, so that one session model and one host serve both. Pure.
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
    authMethods: (answer.authMethods ?? []) as S1.AuthMethod[],
    ...(answer._meta != null && { _meta: answer._meta }),
    agentCapabilities: {
      loadSession: true, // v2's session/resume replays a session's history where asked (connection.ts loadSession)
      promptCapabilities: {
        image: has(session?.prompt?.image),
        audio: has(session?.prompt?.audio),
        embeddedContext: has(session?.prompt?.embeddedContext),
      },
      mcpCapabilities: { http: has(session?.mcp?.http), sse: false },
      sessionCapabilities: sessionCapabilities as S1.SessionCapabilities,
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

/** MCP servers as v2 takes them: each with its `type`; v2 has no SSE servers. */
export function mcpServers(servers: readonly S1.McpServer[] | undefined): S.McpServer[] | undefined {
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
