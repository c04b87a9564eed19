// The editor's tools for every session: the `vscode` MCP server entry a session opens with (HTTP to agents that take
// it, else the stdio bridge), its grant made for the session and revoked when the session closes or its agent ends, and what a call may do
// now (Restricted Mode and the settings are asked at each call, not only when the session opened).
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../acp/errors';
import type { OfferedMcpServer } from '../acp/capabilities';
import type { Logger } from '../acp/log';
import { McpOverAcp } from '../acp/mcpOverAcp';
import type * as S from '../acp/schema.gen';
import { settlePermission, type HostServices } from '../acp/clientHandler';
import type { Session, SessionOptions } from '../acp/sessionHandle';
import { readEditorToolsSettings } from '../settings/editorTools';
import { Grants, type Grant } from './grants';
import { loadMcp } from './mcpLoader';
import { EditorToolsPipe } from './pipe';
import { toolsOverAcp } from './overAcp';
import { EditorToolsServer } from './server';
import { TASK_TOOLS } from './tasks';
import type { AskedToRun } from './tools';
import { EDITOR_TOOLS } from './toolset';

/** The name of the server in `mcpServers`, as the agent lists its tools (`mcp__vscode__get_diagnostics`, say). */
const EDITOR_SERVER_NAME = 'vscode';

/** Shows `proposed` for `file` as a diff beside `current`, for `agent`, and waits for the user's decision. */
export type ReviewFile = (
  agent: string,
  file: string,
  current: string,
  proposed: string,
  signal: AbortSignal,
) => Promise<'accepted' | 'rejected' | 'closed' | 'withdrawn'>;

/** How an agent's permission requests are answered by the client (its rules and levels), and learnt from. */
export type PermissionPolicy = (agent: string) => Pick<HostServices, 'decidePermission' | 'permissionAnswered'>;

/** Every tool, in the order they are listed. */
const TOOLS = [...EDITOR_TOOLS, ...TASK_TOOLS];

/** The server entry for one session being opened, and its grant, which the opener binds to the session. */
export interface EditorServerForSession {
  readonly server: OfferedMcpServer;
  bind(session: Session): void;
  /** The session did not open: the grant ends now. */
  revoke(): void;
}

export class EditorTools implements vscode.Disposable {
  private readonly grants: Grants;
  private readonly http: EditorToolsServer;
  private readonly pipe: EditorToolsPipe;
  /** How each server over an ACP connection ends (its grant revoked, its registration released), for the window's close. */
  private readonly overAcpEnds = new Set<() => void>();

  constructor(
    /** The extension's folder, where the stdio bridge is (dist/mcp-stdio.js). */
    private readonly extensionPath: string,
    private readonly log: Logger,
    /** Tells the log's scrubber a new secret, so that an agent that prints its MCP configuration does not log it. */
    private readonly learnSecret: (secret: string) => void,
    /** Review before write (the editor's EditReviews): what a tool would change, shown as a diff to accept or reject. */
    private readonly review: ReviewFile,
    /** The permission rules and levels, for a tool that runs a command (run_task). */
    private readonly policy: PermissionPolicy,
  ) {
    this.grants = new Grants(log);
    this.http = new EditorToolsServer(this.grants, () => TOOLS, log);
    this.pipe = new EditorToolsPipe(this.grants, () => TOOLS, log);
  }

  /**
   * The `vscode` server for a session of `agent` working in `folders`, when the tools are on and the workspace is
   * trusted: `http` to an agent that takes it, else `stdio` (the bridge: every agent takes stdio), or through the ACP
   * connection (`acp`, its router) to an agent on another machine that takes MCP over ACP. Undefined when off, or when
   * no way could start (which is logged).
   */
  async forSession(agent: string, folders: readonly string[], way: 'http' | 'stdio' | McpOverAcp): Promise<EditorServerForSession | undefined> {
    if (!vscode.workspace.isTrusted || !readEditorToolsSettings().enabled) return undefined;
    let label = `${agent} (opening)`;
    let grant: Grant | undefined;
    let bound: Session | undefined;
    const context = {
      folders,
      allowed,
      review: (file: string, current: string, proposed: string, signal: AbortSignal) => this.review(agent, file, current, proposed, signal),
      askToRun: (title: string, rawInput: unknown, signal: AbortSignal) => this.askToRun(agent, bound, folders, title, rawInput, signal),
    };
    if (way instanceof McpOverAcp) {
      grant = this.grants.grant(() => label, context);
      return this.overAcp(way, grant, (session) => {
        label = `${agent} session ${session.sessionId}`;
        bound = session;
      });
    }
    const takesHttp = way === 'http';
    let server: S.McpServer;
    try {
      const where = takesHttp ? await this.http.url() : await this.pipe.address();
      grant = this.grants.grant(() => label, context);
      this.learnSecret(grant.secret);
      server = takesHttp
        ? { type: 'http', name: EDITOR_SERVER_NAME, url: where, headers: [{ name: 'Authorization', value: `Bearer ${grant.secret}` }] }
        : {
            name: EDITOR_SERVER_NAME,
            command: process.execPath,
            args: [path.join(this.extensionPath, 'dist', 'mcp-stdio.js')],
            env: [
              { name: 'ELECTRON_RUN_AS_NODE', value: '1' },
              { name: 'ACP_EDITOR_TOOLS_SOCKET', value: where },
              { name: 'ACP_EDITOR_TOOLS_SECRET', value: grant.secret },
            ],
          };
    } catch (error) {
      this.log.warn(`[editor-tools] not offered to ${agent}: ${errorMessage(error)}`);
      return undefined;
    }
    const granted = grant;
    return {
      server,
      bind: (session) => {
        label = `${agent} session ${session.sessionId}`;
        bound = session;
        endsWith(session, () => granted.revoke());
        warmMcp(this.log);
      },
      revoke: () => granted.revoke(),
    };
  }

  /** The server through the ACP connection: registered on its router under an id of its own, released with the grant. */
  private overAcp(router: McpOverAcp, grant: Grant, named: (session: Session) => void): EditorServerForSession {
    const serverId = `${EDITOR_SERVER_NAME}-${randomUUID()}`;
    // Nothing but this connection can reach the server: the secret is never sent.
    const tools = toolsOverAcp(() => TOOLS, grant.live, this.log);
    const registration = router.register(serverId, tools.serve);
    const end = () => {
      this.overAcpEnds.delete(end);
      grant.revoke();
      registration.release();
      tools.close();
    };
    this.overAcpEnds.add(end);
    return {
      server: { type: 'acp', name: EDITOR_SERVER_NAME, serverId },
      bind: (session) => {
        named(session);
        endsWith(session, end);
        warmMcp(this.log);
      },
      revoke: end,
    };
  }

  /**
   * Asks, in `session`, to run a command for a tool, as the agent's own commands are asked: a tool call of kind
   * `execute` with its permission request, answered by the rules and the chat's level, else by the user. The card
   * then shows how the command ended.
   */
  private async askToRun(
    agent: string,
    session: Session | undefined,
    folders: readonly string[],
    title: string,
    rawInput: unknown,
    signal: AbortSignal,
  ): Promise<AskedToRun> {
    if (!session || session.isClosed || session.ended) return { allowed: false, why: 'cancelled' };
    // Not guessable: the agent's own tool_call_update for this id would change the card (and what a rule learns).
    const toolCallId = `vscode-editor-tool-${randomUUID()}`;
    const outcome = await settlePermission(
      this.policy(agent),
      session.model,
      { sessionId: session.sessionId, chatSessionId: session.sessionId, cwd: session.cwd, workspace: folders },
      {
        sessionId: session.sessionId,
        toolCall: { toolCallId, title, kind: 'execute', status: 'pending', rawInput },
        options: [
          { optionId: 'allow', name: vscode.l10n.t('Allow'), kind: 'allow_once' },
          { optionId: 'always', name: vscode.l10n.t('Always Allow'), kind: 'allow_always' },
          { optionId: 'reject', name: vscode.l10n.t('Reject'), kind: 'reject_once' },
        ],
      },
      signal,
    );
    const model = session.model;
    if (outcome.outcome === 'cancelled' || outcome.optionId === 'reject') {
      model.noteToolCall({ toolCallId, status: 'failed' });
      return { allowed: false, why: outcome.outcome === 'cancelled' ? 'cancelled' : 'rejected' };
    }
    model.noteToolCall({ toolCallId, status: 'in_progress' });
    return {
      allowed: true,
      finish: (ok, output) =>
        model.noteToolCall({
          toolCallId,
          status: ok ? 'completed' : 'failed',
          content: [{ type: 'content', content: { type: 'text', text: output } }],
        }),
    };
  }

  /** For Export Diagnostics: where the servers listen, and how many sessions hold a secret. */
  facts(): { http: string | undefined; bridge: boolean; sessions: number } {
    return { http: this.http.address(), bridge: this.pipe.started, sessions: this.grants.size };
  }

  dispose(): void {
    for (const end of [...this.overAcpEnds]) end();
    this.grants.clear();
    this.http.dispose();
    this.pipe.dispose();
  }
}

/**
 * The session opened, and its agent may call a tool at once: the MCP SDKs (mcp.ts) load now, once what opened the
 * session has gone on, rather than with the first request. A load that fails is tried again by each request.
 */
function warmMcp(log: Logger): void {
  setImmediate(() =>
    loadMcp().catch((error: unknown) => log.error(`[editor-tools] could not load the MCP SDKs (dist/editor-tools-mcp.js): ${errorMessage(error)}`)),
  );
}

/** Runs `end` when the session closes or its agent ends, or now when it already has (it ended as it opened). */
function endsWith(session: Session, end: () => void): void {
  if (session.isClosed || session.ended) end();
  session.onDidClose(end);
  session.onDidEndAgent(end);
}

/** `options` with `server` among its MCP servers; a server of the user's of the same name keeps the name. */
export function withEditorServer(options: SessionOptions, server: OfferedMcpServer, log: Logger): SessionOptions {
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
