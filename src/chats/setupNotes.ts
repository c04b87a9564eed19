// What a session was opened without, in the user's words. The core keeps the facts (Session.leftOut,
// Session.instructionsNotTaken); the chat tells them when the session opens.
import * as vscode from 'vscode';
import type { LeftOutServer } from '../acp/sessionHandle';
import { readEditorToolsSettings } from '../settings/editorTools';

/** The agents (by their running client) already told that they take no instructions: said once per agent run. */
const toldNoInstructions = new WeakSet<object>();

/**
 * One sentence per MCP server the agent could not take, one (once) when it takes no instructions, and for an agent on
 * another machine, that it gets none of this machine's MCP servers, and the editor tools only through the ACP
 * connection (MCP over ACP), where it takes them so.
 */
export function setupNotes(session: {
  readonly leftOut: readonly LeftOutServer[];
  readonly instructionsNotTaken?: boolean;
  readonly client?: { readonly process: { readonly host?: string }; readonly capabilities: { supports(feature: 'mcpAcp'): boolean } };
}): string[] {
  const notes = session.leftOut.map((s) =>
    vscode.l10n.t('The MCP server "{0}" was left out: this agent does not support {1} MCP servers.', s.name, s.transport),
  );
  const host = session.client?.process.host;
  if (host !== undefined) {
    notes.push(
      session.client?.capabilities.supports('mcpAcp')
        ? vscode.l10n.t('Your MCP servers (acp.mcpServers) are not offered: the agent runs on {0}, and they are this machine’s.', host) +
            (vscode.workspace.isTrusted && readEditorToolsSettings().enabled
              ? ' ' + vscode.l10n.t('The editor tools reach it through the ACP connection.')
              : '')
        : vscode.l10n.t(
            'The editor tools and your MCP servers (acp.mcpServers) are not offered: the agent runs on {0}, and they are this machine’s; it does not take MCP servers through the ACP connection (mcpCapabilities.acp).',
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
