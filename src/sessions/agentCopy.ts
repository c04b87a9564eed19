// The agent's own copy of a chat that is not open: deleting it needs the agent's process, which is started for it
// when it is not running, and stopped again once nothing uses it. Only in a trusted workspace. (Archiving does not
// start an agent: see archive.ts.)
import * as vscode from 'vscode';
import type { AgentClient } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { AgentManager } from '../agents/manager';
import { workspaceRoots } from '../common/workspace';

/** How it went: `act`'s value, or which step failed. Undefined when the agent is unknown or may not run here. */
export type AgentCopyResult<T> = { readonly value: T } | { readonly failed: 'start' | 'call'; readonly error: unknown } | undefined;

export async function withAgentCopy<T>(
  agents: AgentManager,
  log: Logger,
  agentName: string,
  cwd: string | undefined,
  what: string,
  act: (client: AgentClient) => Promise<T>,
): Promise<AgentCopyResult<T>> {
  const config = agents.catalog.find(agentName);
  const folder = cwd ?? workspaceRoots()[0];
  if (!config || !folder || !vscode.workspace.isTrusted) return undefined;
  let client: AgentClient;
  try {
    client = await agents.connect(config, folder);
  } catch (error) {
    log.warn(`[history] could not start ${agentName} to ${what}: ${errorMessage(error)}`);
    return { failed: 'start', error };
  }
  // Held while it acts: a chat of the agent's that closes meanwhile does not stop it under the call.
  const held = agents.hold(client);
  try {
    return { value: await act(client) };
  } catch (error) {
    log.warn(`[history] ${agentName} could not ${what}: ${errorMessage(error)}`);
    return { failed: 'call', error };
  } finally {
    held.dispose(); // stops it, unless a chat uses it
  }
}
