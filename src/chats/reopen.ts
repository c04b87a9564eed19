// How a chat gets its session: a new one, or an earlier one reopened (replayed by `session/load`, or continued by
// `session/resume`), else a new one in its place. Unless the agent replayed it, the transcript kept on this computer
// shows the earlier messages above the session. The agent may ask the user to sign in first; each chat says in one
// line which of these happened.
import * as vscode from 'vscode';
import type { AgentClient, AgentSession } from '../acp/agentClient';
import { AcpError, errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { SessionOptions } from '../acp/sessionHandle';
import type { AgentManager } from '../agents/manager';
import type { SignIn } from '../agents/signIn';
import type { ChatPanel } from '../chat/panel';
import { entryView } from '../chat/view';
import { policyFolders, type ChatFolders } from '../common/chatFolders';
import { workspaceRoots } from '../common/workspace';
import { replayTranscript, type Transcript } from '../history/format';
import type { TranscriptStore } from '../history/transcripts';
import { readMcpServers, SECTION, type AgentConfig } from '../settings/config';
import { additionalDirectories } from '../settings/mcpConfig';
import type { Carried } from './chatSession';
import type { KeptSessions } from './closedChat';
import { SignInNeeded } from './failures';
import { readInstructions } from '../settings/instructions';
import { withEditorServer, type EditorTools } from '../editorTools/editorTools';

/**
 * How the session came: `new` (none was asked for), `load` (replayed), `resume` (continued without its earlier
 * messages), or a new one in place of the one asked for, because the agent `cannot` reopen sessions or `failed` to.
 */
export type Reopened = 'new' | 'load' | 'resume' | 'cannot' | 'failed';

export interface Opened {
  readonly session: AgentSession;
  readonly how: Reopened;
  /** The transcript kept of the session asked for, when it was not replayed and has anything to show. */
  readonly stored: Transcript | undefined;
  /** The session asked for, if any (the new one may be another). */
  readonly previous: string | undefined;
}

export class SessionOpener {
  private reportedMcpProblems = '';

  constructor(
    private readonly agents: AgentManager,
    private readonly signIn: SignIn,
    private readonly deps: {
      readonly transcripts: TranscriptStore;
      readonly folders: ChatFolders;
      readonly editorTools?: EditorTools;
      readonly kept: KeptSessions;
    },
    private readonly log: Logger,
    /** After a sign-in in a terminal restarted the agent: its other chats come back (all but `except`). */
    private readonly reconnectOthers: (agent: string, except?: ChatPanel) => Promise<void>,
  ) {}

  /**
   * A session of `config` in `cwd`: `previous` reopened when the agent can, else a new one. With `transcript`, what
   * this computer kept of `previous` is read while the agent starts, for the chat to show when it was not replayed.
   * `panel` is the chat that waits for it, if it is open already.
   */
  async open(
    config: AgentConfig,
    cwd: string,
    previous: string | undefined,
    options: { transcript?: boolean; panel?: ChatPanel } = {},
  ): Promise<Opened> {
    // Read while the agent starts, so that the panel's turn to show it does not wait for the disk.
    const kept = options.transcript && previous !== undefined ? this.storedTranscript(config.name, previous) : Promise.resolve(undefined);
    // From the history (no chat waits for it): it may be archived, here or by the agent, and opening brings it back.
    const fromHistory = options.panel === undefined;
    const { session, how } = await this.withSignIn(
      config,
      cwd,
      (client) => this.reopenOrNew(client, config.name, cwd, previous, fromHistory),
      options.panel,
    );
    return { session, how, stored: how === 'load' ? undefined : await kept, previous };
  }

  private async reopenOrNew(
    client: AgentClient,
    name: string,
    cwd: string,
    previous: string | undefined,
    fromHistory: boolean,
  ): Promise<{ session: AgentSession; how: Reopened }> {
    // Still open since its chat closed, for what it runs in the background: the chat takes it back, live.
    const kept = previous === undefined ? undefined : this.deps.kept.adopt(client, previous);
    if (kept) return { session: kept, how: 'load' };
    if (previous !== undefined) await this.unarchive(client, name, previous, fromHistory);
    // Asked first where the agent can say (session/status): load or resume as it answers, or neither.
    const way = previous === undefined ? undefined : await client.reopenWay(previous);
    if (previous !== undefined && (way === 'load' || way === 'resume')) {
      try {
        return { session: await this.withOptions(client, name, cwd, (options) => client.reopenSession(previous, cwd, way, options)), how: way };
      } catch (error) {
        if (error instanceof AcpError && error.isAuthRequired) throw error;
        this.log.warn(`[chat] ${name} could not reopen session ${previous}: ${errorMessage(error)}`);
      }
    }
    if (way === 'gone') this.log.warn(`[chat] ${name} no longer knows session ${previous} (session/status), so a new one is opened`);
    return {
      session: await this.withOptions(client, name, cwd, (options) => client.newSession(cwd, options)),
      how: previous === undefined ? 'new' : way ? 'failed' : 'cannot',
    };
  }

  /**
   * `open` with the options of a session in `cwd`, the editor's tools among its MCP servers when they are offered
   * to this agent: their grant lives as long as the session that opens, and ends at once when none does. The agent
   * is held meanwhile (a fork, say, whose source chat closes as it starts).
   */
  async withOptions(
    client: AgentClient,
    agent: string,
    cwd: string,
    open: (options: SessionOptions) => Promise<AgentSession>,
  ): Promise<AgentSession> {
    const held = this.agents.hold(client);
    try {
      return await this.openWithTools(client, agent, cwd, open);
    } finally {
      held.dispose();
    }
  }

  private async openWithTools(
    client: AgentClient,
    agent: string,
    cwd: string,
    open: (options: SessionOptions) => Promise<AgentSession>,
  ): Promise<AgentSession> {
    // Never to an agent on another machine: the MCP servers of acp.mcpServers are this machine's (their commands, paths,
    // and the secrets in their env and headers), and the editor tools' server listens on this machine's loopback only.
    // Such an agent gets the editor tools through the ACP connection, where it takes MCP over ACP (mcpCapabilities.acp).
    const local = client.process.host === undefined;
    const options = local ? this.sessionOptions(cwd) : { ...this.sessionOptions(cwd), mcpServers: [] };
    const folders = options.workspace ?? workspaceRoots();
    const way = local
      ? client.capabilities.supports('mcpHttp')
        ? 'http'
        : 'stdio'
      : client.capabilities.supports('mcpAcp')
        ? client.mcp
        : undefined;
    let editor = way ? await this.deps.editorTools?.forSession(agent, folders, way) : undefined;
    const withTools = editor ? withEditorServer(options, editor.server, this.log) : options;
    if (editor && withTools === options) {
      editor.revoke();
      editor = undefined;
    }
    try {
      const session = await open(withTools);
      editor?.bind(session);
      return session;
    } catch (error) {
      editor?.revoke();
      throw error;
    }
  }

  /**
   * An archived chat that is opened again is archived no more: here, and at the agent (before it is loaded, as the
   * schema asks) when the agent archives sessions. A session opened from the history may be archived by the agent
   * alone (by another client, or while it was not running here): it is unarchived there too, which is harmless if not.
   */
  private async unarchive(client: AgentClient, name: string, sessionId: string, fromHistory: boolean): Promise<void> {
    const summary = (await this.deps.transcripts.list()).find((s) => s.agent === name && s.sessionId === sessionId);
    if (!summary?.archived && !fromHistory) return;
    if (summary?.archived) await this.deps.transcripts.setArchived(name, sessionId, false);
    try {
      if (await client.setArchived(sessionId, false)) this.log.info(`[history] ${name} unarchived session ${sessionId} as it was opened again`);
    } catch (error) {
      this.log.warn(`[history] ${name} could not unarchive session ${sessionId}: ${errorMessage(error)}`);
    }
  }

  /**
   * Runs `open` with the agent's client. When the agent answers that the user must sign in (-32000), the user signs
   * in and `open` runs once more (with a new process after a sign-in in a terminal). The client is held until then,
   * so that another chat of the agent's that closes while this session starts does not stop the agent under it; a
   * client that ends up with no session is stopped.
   */
  private async withSignIn<T>(config: AgentConfig, cwd: string, open: (client: AgentClient) => Promise<T>, panel?: ChatPanel): Promise<T> {
    let client = await this.agents.connect(config, cwd);
    let held = this.agents.hold(client);
    try {
      try {
        return await open(client);
      } catch (error) {
        if (!(error instanceof AcpError && error.isAuthRequired)) throw error;
        const signedIn = await this.signIn.run(config, client, cwd);
        if (!signedIn) throw new SignInNeeded(config.name);
        if (signedIn === 'signedIn') return await open(client);
        // Signed in from a terminal: only a new process sees it. The agent's other chats come back after this one.
        held.dispose();
        await this.agents.stop(config.name);
        client = await this.agents.connect(config, cwd);
        held = this.agents.hold(client);
        const opened = await open(client);
        void this.reconnectOthers(config.name, panel);
        return opened;
      }
    } finally {
      held.dispose(); // stops the agent, unless a chat uses it
    }
  }

  /** The transcript kept on this computer for an agent's session, if it has anything to show. */
  private async storedTranscript(agentName: string, sessionId: string): Promise<Transcript | undefined> {
    const stored = await this.deps.transcripts.read(agentName, sessionId);
    return stored && stored.entries.length > 0 ? stored : undefined;
  }

  private reportedInstructions: string | undefined;

  /** What sessions open with: the MCP servers of `acp.mcpServers`, the other workspace folders, `acp.instructions`. */
  sessionOptions(cwd: string): SessionOptions {
    const { servers, problems } = readMcpServers();
    const reported = problems.join('\n');
    if (reported !== this.reportedMcpProblems) {
      this.reportedMcpProblems = reported;
      for (const problem of problems) this.log.warn(`[settings] ${problem}`);
      if (problems.length > 0) {
        const open = vscode.l10n.t('Open Settings');
        void vscode.window.showWarningMessage(problems.join(' '), open).then((pick) => {
          if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.mcpServers`);
        });
      }
    }
    const instructions = readInstructions();
    if (instructions.problem && instructions.problem !== this.reportedInstructions) {
      this.log.warn(`[settings] ${instructions.problem}`);
      void vscode.window.showWarningMessage(instructions.problem);
    }
    this.reportedInstructions = instructions.problem;
    // A chat in a worktree works there alone: the workspace's other folders are not its to change.
    const workspace = policyFolders(this.deps.folders, cwd);
    return {
      mcpServers: servers,
      additionalDirectories: workspace ? [] : additionalDirectories(workspaceRoots(), cwd),
      ...(instructions.text ? { instructions: instructions.text } : {}),
      ...(workspace ? { workspace } : {}),
    };
  }
}

/** Shows a kept transcript above the chat's session; what the chat then carries on. */
export function showTranscript(panel: ChatPanel, stored: Transcript): Carried {
  const model = replayTranscript(stored);
  const views = model.entries.map((entry) => entryView(entry, stored.cwd, model.terminals));
  model.dispose();
  const divider = stored.dropped
    ? vscode.l10n.t('Earlier messages, kept on this computer ({0} older ones were not kept)', stored.dropped)
    : vscode.l10n.t('Earlier messages, kept on this computer');
  panel.model.showEarlier(views, divider);
  return { entries: stored.entries, dropped: stored.dropped ?? 0, title: stored.title, replaces: stored.sessionId };
}

/** What a chat brought back after a reload, a restart or a grant of trust says about its session. */
export function reconnectNote(name: string, how: Reopened, why: 'reload' | 'restart' | 'trust' | 'reconnect'): string {
  if (why === 'reconnect' && (how === 'load' || how === 'resume')) {
    return vscode.l10n.t('Reconnected to {0}: it continues this conversation. A turn the drop ended was not sent again.', name);
  }
  switch (how) {
    case 'load':
      return why === 'restart' ? vscode.l10n.t('{0} restarted and reopened this conversation.', name) : '';
    case 'resume':
      return why === 'restart'
        ? vscode.l10n.t('{0} restarted and continues this conversation, but cannot show its earlier messages.', name)
        : vscode.l10n.t('{0} reconnected and continues this conversation, but cannot show its earlier messages.', name);
    case 'new':
      return vscode.l10n.t('{0} started a new session.', name);
    default:
      return vscode.l10n.t('{0} could not reopen this conversation, so this is a new session: the agent does not remember earlier messages.', name);
  }
}

/** What a chat opened from the history says about its session, with or without a kept transcript above it. */
export function previousNote(name: string, how: Reopened, kept: boolean): string {
  if (how === 'load') return '';
  if (how === 'resume') {
    return kept
      ? vscode.l10n.t('{0} continues this conversation; the earlier messages above are kept on this computer.', name)
      : vscode.l10n.t('{0} continues this conversation, but cannot show its earlier messages.', name);
  }
  const cannot =
    how === 'failed'
      ? vscode.l10n.t('{0} could not reopen this conversation, so this is a new session', name)
      : vscode.l10n.t('{0} cannot reopen earlier sessions, so this is a new session', name);
  return kept ? vscode.l10n.t('{0}: the agent does not remember the messages above.', cannot) : `${cannot}.`;
}
