// The editor's tools for every session: the `vscode` MCP server entry a session opens with (HTTP, to agents that take
// it), its grant made for the session and revoked when the session closes or its agent ends, and what a call may do
// now (Restricted Mode and the settings are asked at each call, not only when the session opened).
import * as vscode from 'vscode';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import type { Session, SessionOptions } from '../acp/sessionHandle';
import { readEditorToolsSettings } from '../settings/editorTools';
import { EditorToolsServer, type Grant } from './server';
import { EDITOR_TOOLS } from './toolset';

/** The name of the server in `mcpServers`, as the agent lists its tools (`mcp__vscode__get_diagnostics`, say). */
const EDITOR_SERVER_NAME = 'vscode';

/** The server entry for one session being opened, and its grant, which the opener binds to the session. */
export interface EditorServerForSession {
  readonly server: S.McpServer;
  bind(session: Session): void;
  /** The session did not open: the grant ends now. */
  revoke(): void;
}

export class EditorTools implements vscode.Disposable {
  private readonly server: EditorToolsServer;

  constructor(private readonly log: Logger) {
    this.server = new EditorToolsServer(() => EDITOR_TOOLS, log);
  }

  /**
   * The `vscode` server for a session of `agent` working in `folders`, when the tools are on, the workspace is
   * trusted and the agent takes MCP over HTTP; else undefined (and nothing is started).
   */
  async forSession(agent: string, folders: readonly string[], takesHttp: boolean): Promise<EditorServerForSession | undefined> {
    if (!vscode.workspace.isTrusted || !readEditorToolsSettings().enabled) return undefined;
    if (!takesHttp) {
      this.log.debug(`[editor-tools] not offered to ${agent}: it does not advertise mcpCapabilities.http`);
      return undefined;
    }
    let url: string;
    try {
      url = await this.server.url();
    } catch (error) {
      this.log.warn(`[editor-tools] the server could not start: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    let label = `${agent} (opening)`;
    const grant: Grant = this.server.grant(() => label, { folders, allowed });
    return {
      server: { type: 'http', name: EDITOR_SERVER_NAME, url, headers: [{ name: 'Authorization', value: `Bearer ${grant.secret}` }] },
      bind: (session) => {
        label = `${agent} session ${session.sessionId}`;
        session.onDidClose(() => grant.revoke());
        session.onDidEndAgent(() => grant.revoke());
      },
      revoke: () => grant.revoke(),
    };
  }

  dispose(): void {
    this.server.dispose();
  }
}

/** `options` with `server` among its MCP servers; a server of the user's of the same name keeps the name. */
export function withEditorServer(options: SessionOptions, server: S.McpServer, log: Logger): SessionOptions {
  const mine = options.mcpServers ?? [];
  if (mine.some((s) => s.name === server.name)) {
    log.info(`[editor-tools] not added: acp.mcpServers has a server named "${server.name}" already`);
    return options;
  }
  return { ...options, mcpServers: [...mine, server] };
}

/** Why `tool` may not run now, if it may not. */
function allowed(tool: string): string | undefined {
  if (!vscode.workspace.isTrusted) return vscode.l10n.t("This workspace is in Restricted Mode, so the editor's tools are off.");
  const settings = readEditorToolsSettings();
  if (!settings.enabled) return vscode.l10n.t("The editor's tools are turned off (acp.editorTools.enabled).");
  if (settings.tools && !settings.tools.has(tool)) return vscode.l10n.t('{0} is not in the setting acp.editorTools.tools.', tool);
  return undefined;
}
