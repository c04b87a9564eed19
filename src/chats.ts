// The open chats. "New Chat" chooses the agent, starts or reuses it, opens a session in the first workspace folder
// and shows the panel; a panel restored after a reload, or whose agent is restarted, gets its session back
// (replayed by `session/load` when the agent can) or a new one, and says which. Every way this can fail ends in
// one sentence that says what to do, and the log has the details.
import * as vscode from 'vscode';
import { AgentStartFailure, type Session } from './acp/client';
import { AgentExitError, CommandNotFoundError, errorMessage } from './acp/errors';
import type { Logger } from './acp/log';
import type { AgentManager } from './agents';
import { z } from 'zod';
import { ChatPanel, type ChatDeps } from './chat/panel';
import type { NewAttachment } from './chat/prompt';
import { openAgentSettings, readAgentSettings, type AgentConfig, type AgentSettings } from './config';
import { workspaceRoots } from './files';
import type { FollowAgent } from './follow';
import type { Permissions } from './permissions';

/** What the chat view keeps for a reload: which chat to bring back. */
const RestoreState = z.object({ restore: z.object({ agent: z.string(), sessionId: z.string(), cwd: z.string() }) });

export class Chats implements vscode.Disposable {
  private readonly open = new Set<ChatPanel>();
  /** The chats by when they were last active, the latest last. */
  private recent: ChatPanel[] = [];
  /** Each panel's watchers of its current session (connection lifetime). */
  private readonly watchers = new Map<ChatPanel, vscode.Disposable[]>();

  constructor(
    private readonly agents: AgentManager,
    private readonly deps: ChatDeps,
    private readonly permissions: Permissions,
    private readonly follow: FollowAgent,
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
            const session = await client.newSession(cwd);
            const panel = this.track(ChatPanel.open(agent.name, this.deps));
            this.attach(panel, session, false);
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
          reopened = await client.reopenSession(previous.sessionId, cwd, how);
          replayed = how === 'load';
        } catch (error) {
          log.warn(`[chat] ${name} could not reopen session ${previous.sessionId}: ${errorMessage(error)}`);
        }
      }
      if (reopened && replayed) note = why === 'reload' ? '' : `${name} restarted and reopened this conversation.`;
      else if (reopened) note = `${name} ${why === 'reload' ? 'reconnected' : 'restarted'} and continues this conversation, but cannot show its earlier messages.`;
      else {
        reopened = await client.newSession(cwd);
        note = previous
          ? `${name} could not reopen this conversation, so this is a new session: the agent does not remember earlier messages.`
          : `${name} started a new session.`;
      }
      // A replayed session shows the whole conversation again; otherwise the earlier messages stay above it.
      this.attach(panel, reopened, !replayed);
      panel.tell(note);
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
    ];
    panel.onDidDispose(() => {
      for (const d of [...subscriptions, ...(this.watchers.get(panel) ?? [])]) d.dispose();
      this.watchers.delete(panel);
      this.open.delete(panel);
      this.recent = this.recent.filter((p) => p !== panel);
    });
    return panel;
  }

  /** Shows `session` in `panel`, with permissions and following watching it. */
  private attach(panel: ChatPanel, session: Session, keepEarlier: boolean): void {
    for (const d of this.watchers.get(panel) ?? []) d.dispose();
    panel.attach(session, keepEarlier);
    this.watchers.set(panel, [
      this.permissions.watch(session, panel.agentName, () => panel.reveal()),
      this.follow.watch(session, () => panel.viewColumn, (text) => panel.tell(text)),
    ]);
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
  }
}
