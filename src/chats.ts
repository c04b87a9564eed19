// The open chats. "New Chat" chooses the agent, starts or reuses it, opens a session in the first workspace folder
// and shows the panel; a panel restored after a reload, or whose agent is restarted, gets its session back
// (replayed by `session/load` when the agent can) or a new one, and says which. Every way this can fail ends in
// one sentence that says what to do, and the log has the details. Each chat's conversation is kept on this computer
// (see transcripts.ts), so a chat the agent cannot replay still shows its earlier messages.
import * as vscode from 'vscode';
import { AgentStartFailure, type Session, type SessionOptions } from './acp/client';
import { AgentExitError, CommandNotFoundError, errorMessage } from './acp/errors';
import type { Logger } from './acp/log';
import type { AgentManager } from './agents';
import { z } from 'zod';
import { ChatPanel, type ChatDeps } from './chat/panel';
import type { NewAttachment } from './chat/prompt';
import { entryView } from './chat/view';
import { openAgentSettings, readAgentSettings, readMcpServers, SECTION, type AgentConfig, type AgentSettings } from './config';
import { workspaceRoots } from './files';
import type { FollowAgent } from './follow';
import { additionalDirectories } from './mcpConfig';
import type { Permissions } from './permissions';
import { replayTranscript, TranscriptRecorder, type StoredEntry, type Transcript, type TranscriptStore } from './transcripts';

/** What the chat view keeps for a reload: which chat to bring back. */
const RestoreState = z.object({ restore: z.object({ agent: z.string(), sessionId: z.string(), cwd: z.string() }) });

/** An earlier session to open again: from the agent's `session/list`, or from the local history. */
export interface PreviousSession {
  readonly sessionId: string;
  readonly cwd?: string;
}

/** An earlier transcript a chat shows above its session and keeps in front of the session's own. */
interface Carried {
  readonly entries: readonly StoredEntry[];
  readonly dropped: number;
  readonly title?: string | undefined;
  /** The session the transcript was kept for, whose own transcript this chat's replaces. */
  readonly replaces: string;
}

export class Chats implements vscode.Disposable {
  private readonly open = new Set<ChatPanel>();
  /** The chats by when they were last active, the latest last. */
  private recent: ChatPanel[] = [];
  /** Each panel's watchers of its current session (connection lifetime). */
  private readonly watchers = new Map<ChatPanel, vscode.Disposable[]>();
  /** Each panel's transcript recorder (the session's lifetime). */
  private readonly recorders = new Map<ChatPanel, TranscriptRecorder>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** A chat opened or closed, its title changed, or its agent started or stopped. */
  readonly onDidChange = this.changeEmitter.event;
  private reportedMcpProblems = '';

  constructor(
    private readonly agents: AgentManager,
    private readonly deps: ChatDeps,
    private readonly permissions: Permissions,
    private readonly follow: FollowAgent,
    private readonly transcripts: TranscriptStore,
  ) {}

  get all(): readonly ChatPanel[] {
    return [...this.open];
  }

  /** The chat that editor commands add to: the active one, else the one last active. */
  get target(): ChatPanel | undefined {
    return this.all.find((p) => p.active) ?? this.recent[this.recent.length - 1];
  }

  /** Opens a chat with `agentName`, or with the default agent, or with the one the user picks. */
  async newChat(agentName?: string): Promise<ChatPanel | undefined> {
    const settings = readAgentSettings();
    this.reportProblems(settings);
    const agent = await this.chooseAgent(settings, agentName);
    if (!agent) return undefined;
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    if (!folder) {
      void vscode.window.showErrorMessage('Open a folder to chat with an agent: the agent works in the first folder of the workspace.');
      return undefined;
    }
    const cwd = folder.uri.fsPath;
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Starting ${agent.name}…` },
        async () => {
          const client = await this.agents.connect(agent, cwd);
          try {
            const session = await client.newSession(cwd, this.sessionOptions(cwd));
            const panel = this.track(ChatPanel.open(agent.name, this.deps));
            this.attach(panel, session, false);
            if (session.setupNotes.length > 0) panel.tell(session.setupNotes.join(' '));
            return panel;
          } catch (error) {
            if (client.openSessions.length === 0) void client.dispose();
            throw error;
          }
        },
      );
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  /** Adds context to the target chat, opening a chat first when there is none. */
  async addToChat(attachment: NewAttachment): Promise<void> {
    const panel = this.target ?? (await this.newChat());
    panel?.addAttachment(attachment);
  }

  /** Brings back a chat VS Code restored after a reload: the same agent, and its session when the agent can. */
  async restore(webviewPanel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = RestoreState.safeParse(state);
    if (!saved.success) {
      // A chat closed before its session opened has nothing to come back to.
      webviewPanel.dispose();
      return;
    }
    const { agent, sessionId, cwd } = saved.data.restore;
    const panel = this.track(new ChatPanel(webviewPanel, agent, this.deps));
    panel.tell(`Reconnecting to ${agent}…`);
    await this.reconnect(panel, { sessionId, cwd }, 'reload');
  }

  /** "Restart Agent" in a chat whose agent stopped. */
  async restart(panel: ChatPanel): Promise<void> {
    const previous = panel.session;
    panel.tell(`Restarting ${panel.agentName}…`);
    await this.reconnect(panel, previous && { sessionId: previous.sessionId, cwd: previous.cwd }, 'restart');
  }

  private async reconnect(panel: ChatPanel, previous: { sessionId: string; cwd: string } | undefined, why: 'reload' | 'restart'): Promise<void> {
    const name = panel.agentName;
    const config = readAgentSettings().agents.find((a) => a.name === name);
    if (!config) {
      panel.fail(`"${name}" is no longer in the "acp.agents" setting, so this chat cannot continue`, []);
      return;
    }
    const roots = workspaceRoots();
    // The folder is the one the chat had, if it is still a workspace folder.
    const cwd = previous && roots.includes(previous.cwd) ? previous.cwd : roots[0];
    if (!cwd) {
      panel.fail('Open a folder to chat with an agent: the agent works in the first folder of the workspace', []);
      return;
    }
    try {
      const client = await this.agents.connect(config, cwd);
      const log = this.deps.log;
      let reopened: Session | undefined;
      let note: string;
      let replayed = false;
      const how = client.reopens.load ? 'load' : client.reopens.resume ? 'resume' : undefined;
      if (previous && how) {
        try {
          reopened = await client.reopenSession(previous.sessionId, cwd, how, this.sessionOptions(cwd));
          replayed = how === 'load';
        } catch (error) {
          log.warn(`[chat] ${name} could not reopen session ${previous.sessionId}: ${errorMessage(error)}`);
        }
      }
      if (reopened && replayed) note = why === 'reload' ? '' : `${name} restarted and reopened this conversation.`;
      else if (reopened) note = `${name} ${why === 'reload' ? 'reconnected' : 'restarted'} and continues this conversation, but cannot show its earlier messages.`;
      else {
        reopened = await client.newSession(cwd, this.sessionOptions(cwd));
        note = previous
          ? `${name} could not reopen this conversation, so this is a new session: the agent does not remember earlier messages.`
          : `${name} started a new session.`;
      }
      // A replayed session shows the whole conversation again; otherwise the earlier messages stay above it (after a
      // reload, from the transcript kept on this computer).
      const stored = !replayed && why === 'reload' && previous ? this.storedTranscript(name, previous.sessionId) : undefined;
      const carried = stored ? this.showTranscript(panel, stored) : undefined;
      this.attach(panel, reopened, !replayed, carried);
      panel.tell(withNotes(note, reopened));
    } catch (error) {
      const message = error instanceof AgentStartFailure ? `Could not start ${name}: ${error.message}` : `${name} could not open a chat: ${errorMessage(error)}`;
      this.deps.log.error(`[chat] ${message}`);
      panel.tell('');
      panel.fail(message, error instanceof AgentStartFailure ? error.stderrTail : error instanceof AgentExitError ? error.stderrTail : []);
    }
  }

  private track(panel: ChatPanel): ChatPanel {
    this.open.add(panel);
    this.recent.push(panel);
    const subscriptions = [
      panel.onDidBecomeActive(() => {
        this.recent = [...this.recent.filter((p) => p !== panel), panel];
      }),
      panel.onDidRequestRestart(() => void this.restart(panel)),
      panel.onDidChangeTitle(() => this.changeEmitter.fire()),
    ];
    panel.onDidDispose(() => {
      for (const d of [...subscriptions, ...(this.watchers.get(panel) ?? [])]) d.dispose();
      this.watchers.delete(panel);
      this.recorders.get(panel)?.dispose();
      this.recorders.delete(panel);
      this.open.delete(panel);
      this.recent = this.recent.filter((p) => p !== panel);
      this.changeEmitter.fire();
    });
    this.changeEmitter.fire();
    return panel;
  }

  /**
   * Shows `session` in `panel`, with permissions and following watching it and its transcript kept. What the panel
   * shows above the session is kept in front of its transcript: `carried` (a stored transcript), or with
   * `keepEarlier` the panel's previous conversation.
   */
  private attach(panel: ChatPanel, session: Session, keepEarlier: boolean, carried?: Carried): void {
    for (const d of this.watchers.get(panel) ?? []) d.dispose();
    const previous = this.recorders.get(panel);
    const carry: Carried | undefined =
      carried ?? (keepEarlier && previous ? { entries: previous.entries(), dropped: previous.dropped, title: previous.title, replaces: previous.meta.sessionId } : undefined);
    previous?.dispose();
    panel.attach(session, keepEarlier);
    this.recorders.set(
      panel,
      new TranscriptRecorder(
        this.transcripts,
        { agent: panel.agentName, sessionId: session.sessionId, cwd: session.cwd },
        session.model,
        carry ? { prefix: carry.entries, dropped: carry.dropped, title: carry.title, replaces: carry.replaces } : {},
      ),
    );
    this.watchers.set(panel, [
      this.permissions.watch(session, panel.agentName, () => panel.reveal()),
      this.follow.watch(session, () => panel.viewColumn, (text) => panel.tell(text)),
      session.onDidEndAgent(() => this.changeEmitter.fire()),
    ]);
    this.changeEmitter.fire();
  }

  /** Whether one of the agent's chats has it running. */
  isRunning(agentName: string): boolean {
    return this.all.some((p) => p.agentName === agentName && p.session !== undefined && !p.session.client.hasExited);
  }

  /** The chat that shows this session of this agent, if one does. */
  showing(agentName: string, sessionId: string): ChatPanel | undefined {
    return this.all.find((p) => p.agentName === agentName && p.session?.sessionId === sessionId);
  }

  /**
   * Opens an earlier session in a new chat, or brings forward the chat that shows it. The agent replays it
   * (`session/load`) or continues it (`session/resume`, below the transcript kept on this computer, if any); an
   * agent that can do neither gets a new session below the kept transcript, and the chat says so.
   */
  async openPrevious(agentName: string, target: PreviousSession): Promise<ChatPanel | undefined> {
    const shown = this.showing(agentName, target.sessionId);
    if (shown) {
      shown.reveal();
      return shown;
    }
    const agent = readAgentSettings().agents.find((a) => a.name === agentName);
    if (!agent) {
      void this.offerSettings(vscode.l10n.t('There is no agent named "{0}" in the "acp.agents" setting.', agentName));
      return undefined;
    }
    const roots = workspaceRoots();
    const cwd = target.cwd !== undefined && roots.includes(target.cwd) ? target.cwd : roots[0];
    if (!cwd) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace.'));
      return undefined;
    }
    const log = this.deps.log;
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Opening the session with {0}…', agentName) }, async () => {
        const client = await this.agents.connect(agent, cwd);
        try {
          const options = this.sessionOptions(cwd);
          const how = client.reopens.load ? 'load' : client.reopens.resume ? 'resume' : undefined;
          let session: Session | undefined;
          if (how) {
            try {
              session = await client.reopenSession(target.sessionId, cwd, how, options);
            } catch (error) {
              log.warn(`[chat] ${agentName} could not reopen session ${target.sessionId}: ${errorMessage(error)}`);
            }
          }
          const replayed = session !== undefined && how === 'load';
          const stored = replayed ? undefined : this.storedTranscript(agentName, target.sessionId);
          let note: string;
          if (session) {
            if (replayed) note = '';
            else if (stored) note = vscode.l10n.t('{0} continues this conversation; the earlier messages above are kept on this computer.', agentName);
            else note = vscode.l10n.t('{0} continues this conversation, but cannot show its earlier messages.', agentName);
          } else {
            session = await client.newSession(cwd, options);
            const cannot = how
              ? vscode.l10n.t('{0} could not reopen this conversation, so this is a new session', agentName)
              : vscode.l10n.t('{0} cannot reopen earlier sessions, so this is a new session', agentName);
            note = stored ? vscode.l10n.t('{0}: the agent does not remember the messages above.', cannot) : `${cannot}.`;
          }
          const panel = this.track(ChatPanel.open(agentName, this.deps));
          const carried = stored ? this.showTranscript(panel, stored) : undefined;
          this.attach(panel, session, !replayed, carried);
          panel.tell(withNotes(note, session));
          return panel;
        } catch (error) {
          void this.agents.release(client);
          throw error;
        }
      });
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  /** The transcript kept on this computer for an agent's session, if it has anything to show. */
  private storedTranscript(agentName: string, sessionId: string): Transcript | undefined {
    const stored = this.transcripts.read(agentName, sessionId);
    return stored && stored.entries.length > 0 ? stored : undefined;
  }

  /** Shows a kept transcript above the chat's session; what the chat then carries on. */
  private showTranscript(panel: ChatPanel, stored: Transcript): Carried {
    const model = replayTranscript(stored);
    const views = model.entries.map((entry) => entryView(entry, stored.cwd, model.terminals));
    model.dispose();
    const divider = stored.dropped
      ? vscode.l10n.t('Earlier messages, kept on this computer ({0} older ones were not kept)', stored.dropped)
      : vscode.l10n.t('Earlier messages, kept on this computer');
    panel.showEarlier(views, divider);
    return { entries: stored.entries, dropped: stored.dropped ?? 0, title: stored.title, replaces: stored.sessionId };
  }

  /** What sessions open with: the MCP servers of `acp.mcpServers`, and the other workspace folders. */
  private sessionOptions(cwd: string): SessionOptions {
    const { servers, problems } = readMcpServers();
    const reported = problems.join('\n');
    if (reported !== this.reportedMcpProblems) {
      this.reportedMcpProblems = reported;
      for (const problem of problems) this.deps.log.warn(`[settings] ${problem}`);
      if (problems.length > 0) {
        const open = vscode.l10n.t('Open Settings');
        void vscode.window.showWarningMessage(problems.join(' '), open).then((pick) => {
          if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.mcpServers`);
        });
      }
    }
    return { mcpServers: servers, additionalDirectories: additionalDirectories(workspaceRoots(), cwd) };
  }

  private async chooseAgent(settings: AgentSettings, requested: string | undefined): Promise<AgentConfig | undefined> {
    const { agents, defaultAgent } = settings;
    if (requested !== undefined) {
      const found = agents.find((a) => a.name === requested);
      if (!found) void this.offerSettings(`There is no agent named "${requested}" in the "acp.agents" setting.`);
      return found;
    }
    if (agents.length === 0) {
      void this.offerSettings('No agents are configured. Add one to the "acp.agents" setting, for example Gemini CLI: {"command": "npx", "args": ["-y", "@google/gemini-cli", "--acp"]}.');
      return undefined;
    }
    if (defaultAgent !== undefined) {
      const found = agents.find((a) => a.name === defaultAgent);
      if (found) return found;
      void vscode.window.showWarningMessage(`"acp.defaultAgent" names "${defaultAgent}", which is not in "acp.agents"; choose an agent for this chat.`);
    }
    if (agents.length === 1) return agents[0];
    const pick = await vscode.window.showQuickPick(
      agents.map((agent) => ({ label: agent.name, description: [agent.command, ...agent.args].join(' '), agent })),
      { title: 'New Chat', placeHolder: 'Choose the agent for this chat' },
    );
    return pick?.agent;
  }

  private reportProblems(settings: AgentSettings): void {
    if (settings.problems.length === 0) return;
    for (const problem of settings.problems) this.deps.log.warn(`[settings] ${problem}`);
    void this.offerSettings(settings.problems.join(' '));
  }

  private reportFailure(agent: AgentConfig, error: unknown): void {
    const starting = error instanceof AgentStartFailure;
    const sentence = starting ? `Could not start ${agent.name}: ${error.message}.` : `${agent.name} could not open a chat: ${errorMessage(error)}.`;
    this.deps.log.error(`[chat] ${sentence}`);
    if (starting && error.stderrTail.length > 0) this.deps.log.error(`[chat] ${agent.name}'s last stderr lines:\n${error.stderrTail.slice(-20).join('\n')}`);
    const notFound = starting && error.cause instanceof CommandNotFoundError;
    const actions = notFound ? ['Open Settings', 'Show Log'] : ['Show Log', 'Open Settings'];
    void vscode.window.showErrorMessage(sentence, ...actions).then((pick) => {
      if (pick === 'Open Settings') void openAgentSettings();
      if (pick === 'Show Log') this.deps.actions.showLog();
    });
  }

  private async offerSettings(message: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(message, 'Open Settings');
    if (pick === 'Open Settings') await openAgentSettings();
  }

  dispose(): void {
    for (const panel of [...this.open]) panel.dispose();
    this.changeEmitter.dispose();
  }
}

/** A chat's note, with what the session was opened without (MCP servers the agent cannot use). */
function withNotes(note: string, session: Session): string {
  return [note, ...session.setupNotes].filter((n) => n !== '').join(' ');
}
