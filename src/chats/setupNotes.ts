// What a session was opened without, in the user's words. The core keeps the facts (Session.leftOut,
// Session.instructionsNotTaken); the chat tells them when the session opens.
import * as vscode from 'vscode';
import type { LeftOutServer } from '../acp/sessionHandle';

/** The agents (by their running client) already told that they take no instructions: said once per agent run. */
const toldNoInstructions = new WeakSet<object>();

/**
 * One sentence per MCP server the agent could not take, one (once) when it takes no instructions, and one for an
 * agent on another machine, which gets no editor tools.
 */
export function setupNotes(session: {
  readonly leftOut: readonly LeftOutServer[];
  readonly instructionsNotTaken?: boolean;
  readonly client?: { readonly process: { readonly host?: string } };
}): string[] {
  const notes = session.leftOut.map((s) =>
    vscode.l10n.t('The MCP server "{0}" was left out: this agent does not support {1} MCP servers.', s.name, s.transport),
  );
  const host = session.client?.process.host;
  if (host !== undefined) {
    notes.push(
      vscode.l10n.t(
        'The editor tools and your MCP servers (acp.mcpServers) are not offered: the agent runs on {0}, and they are this machine’s.',
        host,
      ),
    );
  }
  if (session.instructionsNotTaken && session.client && !toldNoInstructions.has(session.client)) {
    toldNoInstructions.add(session.client);
    notes.push(vscode.l10n.t('Your instructions (acp.instructions) were not sent: this agent does not take instructions.'));
  }
  return notes;
}
