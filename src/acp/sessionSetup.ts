// What goes into session/new, load, resume and fork: the MCP servers the agent can use, the additional folders when
// it accepts them, and the user's instructions when it takes them (unstable `systemPrompt`, in `append` mode, the
// one every such agent takes). What is left out is logged (by name only: env and header values can hold secrets),
// and kept on the session for the chat to say.
import { capabilityName, mcpFeature, mcpTransport, supports, type AgentCapabilities, type OfferedMcpServer } from './capabilities';
import { NotSupportedError } from './errors';
import type { Logger } from './log';
import type * as S from './schema.gen';
import type { LeftOutServer, SessionOptions } from './sessionHandle';

interface SystemPrompt {
  readonly mode: 'append';
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
}

export interface SessionSetup {
  readonly params: { mcpServers: S.McpServer[]; additionalDirectories?: string[]; systemPrompt?: SystemPrompt };
  readonly leftOut: LeftOutServer[];
  /** Instructions were given, and the agent does not take them. */
  readonly instructionsNotTaken: boolean;
}

export function sessionSetup(options: SessionOptions, caps: AgentCapabilities, log: Logger): SessionSetup {
  const { params, leftOut } = serversAndFolders(options, caps, log);
  const instructions = options.instructions?.trim() ? options.instructions : undefined;
  if (!instructions) return { params, leftOut, instructionsNotTaken: false };
  if (!caps.supports('systemPrompt')) {
    log.info(`instructions not sent: the agent does not advertise ${capabilityName('systemPrompt')}`);
    return { params, leftOut, instructionsNotTaken: true };
  }
  return {
    params: { ...params, systemPrompt: { mode: 'append', content: [{ type: 'text', text: instructions }] } },
    leftOut,
    instructionsNotTaken: false,
  };
}

/**
 * Refuses, before anything is sent, what the agent did not advertise in a session's setup: folders beside the working
 * one, and MCP servers over a transport it does not take.
 */
export function checkSessionSetup(
  caps: S.AgentCapabilities | undefined,
  params: { additionalDirectories?: readonly string[] | undefined; mcpServers?: readonly OfferedMcpServer[] | undefined },
): void {
  if (params.additionalDirectories?.length && !supports(caps, 'additionalDirectories'))
    throw new NotSupportedError({ what: 'additionalDirectories' });
  for (const server of params.mcpServers ?? []) {
    const needs = mcpFeature(server);
    if (needs && !supports(caps, needs))
      throw new NotSupportedError({ what: 'mcpTransport', transport: mcpTransport(server) ?? 'unknown', server: server.name });
  }
}

function serversAndFolders(options: SessionOptions, caps: AgentCapabilities, log: Logger): Omit<SessionSetup, 'instructionsNotTaken'> {
  const mcpServers: S.McpServer[] = [];
  const leftOut: LeftOutServer[] = [];
  for (const server of options.mcpServers ?? []) {
    const needs = mcpFeature(server);
    const transport = mcpTransport(server);
    if (needs && transport && !caps.supports(needs)) {
      log.warn(`MCP server "${server.name}" left out: the agent does not advertise ${capabilityName(needs)}`);
      leftOut.push({ name: server.name, transport });
      continue;
    }
    // An `acp` server (unstable) goes in v1's list as it is: the stable schema's union has no such kind.
    mcpServers.push(server as S.McpServer);
  }
  const directories = options.additionalDirectories ?? [];
  if (directories.length > 0 && !caps.supports('additionalDirectories')) {
    log.info(
      `${directories.length} additional workspace folder(s) not sent: the agent does not advertise ${capabilityName('additionalDirectories')}`,
    );
    return { params: { mcpServers }, leftOut };
  }
  return { params: directories.length > 0 ? { mcpServers, additionalDirectories: [...directories] } : { mcpServers }, leftOut };
}
