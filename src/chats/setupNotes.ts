// What a session was opened without, in the user's words. The core keeps the facts (Session.leftOut); the chat
// tells them when the session opens.
import * as vscode from 'vscode';
import type { LeftOutServer } from '../acp/sessionHandle';

/** One sentence per MCP server the agent could not take. */
export function setupNotes(session: { readonly leftOut: readonly LeftOutServer[] }): string[] {
  return session.leftOut.map((s) =>
    vscode.l10n.t('The MCP server "{0}" was left out: this agent does not support {1} MCP servers.', s.name, s.transport),
  );
}
