// "New Chat": choose the agent, start or reuse it, open a session in the first workspace folder, and show the panel.
// Every way this can fail ends in one sentence that says what to do, and the log has the details.
import * as vscode from 'vscode';
import { AgentStartFailure, type Session } from './acp/client';
import { CommandNotFoundError, errorMessage } from './acp/errors';
import type { Logger } from './acp/log';
import type { AgentManager } from './agents';
import { ChatPanel, type ChatActions } from './chat/panel';
import { openAgentSettings, readAgentSettings, type AgentConfig, type AgentSettings } from './config';
import type { FollowAgent } from './follow';
import type { Permissions } from './permissions';

export class Chats implements vscode.Disposable {
  private readonly open = new Set<ChatPanel>();

  constructor(
    private readonly agents: AgentManager,
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
    private readonly actions: ChatActions,
    private readonly permissions: Permissions,
    private readonly follow: FollowAgent,
  ) {}

  get all(): readonly ChatPanel[] {
    return [...this.open];
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
            return this.openPanel(session, agent.name);
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

  private openPanel(session: Session, agentName: string): ChatPanel {
    const panel = new ChatPanel(session, agentName, this.extensionUri, this.log, this.actions);
    const watchers = [
      this.permissions.watch(session, agentName, () => panel.reveal()),
      this.follow.watch(session, () => panel.viewColumn, (text) => panel.tell(text)),
    ];
    this.open.add(panel);
    panel.onDidDispose(() => {
      for (const watcher of watchers) watcher.dispose();
      this.open.delete(panel);
    });
    return panel;
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
    for (const problem of settings.problems) this.log.warn(`[settings] ${problem}`);
    void this.offerSettings(settings.problems.join(' '));
  }

  private reportFailure(agent: AgentConfig, error: unknown): void {
    const starting = error instanceof AgentStartFailure;
    const sentence = starting ? `Could not start ${agent.name}: ${error.message}.` : `${agent.name} could not open a chat: ${errorMessage(error)}.`;
    this.log.error(`[chat] ${sentence}`);
    if (starting && error.stderrTail.length > 0) this.log.error(`[chat] ${agent.name}'s last stderr lines:\n${error.stderrTail.slice(-20).join('\n')}`);
    const notFound = starting && error.cause instanceof CommandNotFoundError;
    const actions = notFound ? ['Open Settings', 'Show Log'] : ['Show Log', 'Open Settings'];
    void vscode.window.showErrorMessage(sentence, ...actions).then((pick) => {
      if (pick === 'Open Settings') void openAgentSettings();
      if (pick === 'Show Log') this.actions.showLog();
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
