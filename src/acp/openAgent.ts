// What starts an agent: a subprocess for a command (process.ts), or a connection for a URL (WebSocket, socket.ts;
// Streamable HTTP, httpLink.ts). Each is an AgentLink; a URL that cannot be used ends the link with the reason said.
import { readAgentUrl, type AgentRemote } from './agentUrl';
import type { ConnectionOptions } from './connection';
import { AgentHttp } from './httpLink';
import type { ClientHandler } from './inbound';
import { tagged, type Logger } from './log';
import type { LineTracer } from './ndjsonWriter';
import { AgentProcess, type AgentCommand, type AgentLink } from './process';
import { AgentSocket } from './socket';

/** Spawns the agent for a command, or connects to it for a URL. */
export function openAgent(
  target: AgentCommand | AgentRemote,
  handler: ClientHandler,
  connection: ConnectionOptions,
  options: { readonly log: Logger; readonly trace: LineTracer | undefined; readonly killGraceMs: number | undefined },
): AgentLink {
  if ('url' in target) {
    const read = readAgentUrl(target.url);
    if ('url' in read && read.transport === 'http') {
      return AgentHttp.connect(read.url, read.host, target, handler, connection, { log: tagged(options.log, 'http'), trace: options.trace });
    }
    return AgentSocket.connect(target, handler, connection, { log: tagged(options.log, 'socket'), trace: options.trace });
  }
  return AgentProcess.spawn(target, handler, connection, {
    log: tagged(options.log, 'process'),
    trace: options.trace,
    killGraceMs: options.killGraceMs,
  });
}
