// The commands about agents rather than chats: Select Agent (the one New Chat uses; presets can be copied into the
// settings), Test Agent Connection (start, initialize, report, stop), Sign Out, and Stop Agent.
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { AgentClient } from '../acp/agentClient';
import { AgentStartFailure } from '../acp/startFailure';
import { confirmEndingBackground } from '../chat/backgroundConfirm';
import { connectionReport } from './connectionReport';
import { agentItems, type AgentItem } from './pickers';
import { errorMessage } from '../acp/errors';
import { tagged, type Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import { presetEntry } from '../settings/agentConfig';
import { UntrustedWorkspaceError, type AgentManager } from './manager';
import { tokenProblem } from './tokens';
import type { Chats } from '../chats/chats';
import { askedProtocol, openAgentSettings, SECTION, type AgentConfig } from '../settings/config';
import { workspaceRoots } from '../common/workspace';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';

/** The agent a command is about: a name (from another extension or a test), or an agent in the Sessions view. */
export function agentNameOf(argument: unknown): string | undefined {
  if (typeof argument === 'string') return argument;
  if (
    argument &&
    typeof argument === 'object' &&
    'kind' in argument &&
    argument.kind === 'agent' &&
    'name' in argument &&
    typeof argument.name === 'string'
  )
    return argument.name;
  return undefined;
}

/** Where a test or sign-out process runs when no folder is open. */
function someFolder(): string {
  return workspaceRoots()[0] ?? homedir();
}

export class AgentCommands implements vscode.Disposable {
  private readonly reports = new Map<string, string>();
  private readonly reportChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: DisposableStore;

  constructor(
    private readonly agents: AgentManager,
    private readonly chats: Chats,
    private readonly clientInfo: S.Implementation,
    private readonly log: Logger,
  ) {
    this.disposables = new DisposableStore(
      this.reportChanged,
      // Connection reports are read-only documents, kept while the extension runs.
      vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
        onDidChange: this.reportChanged.event,
        provideTextDocumentContent: (uri) => this.reports.get(uri.toString()) ?? '',
      }),
    );
  }

  /** "ACP: Select Agent…": sets `acp.defaultAgent`; a preset can be copied into the settings to edit it. */
  async selectAgent(): Promise<string | undefined> {
    const { agents, defaultAgent } = this.agents.catalog.read();
    const copy: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: vscode.l10n.t('Copy to Settings for Editing') };
    const edit: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('gear'), tooltip: vscode.l10n.t('Edit in Settings') };
    const quickPick = vscode.window.createQuickPick<AgentItem>();
    quickPick.title = vscode.l10n.t('Select Agent');
    quickPick.ignoreFocusOut = true;
    quickPick.placeholder = vscode.l10n.t('The agent that New Chat uses');
    quickPick.items = agentItems(agents, defaultAgent, (name) => this.agents.account(name)).map((item) =>
      item.agent ? { ...item, buttons: [item.agent.preset || item.agent.installed ? copy : edit] } : item,
    );
    const chosen = await new Promise<AgentItem | undefined>((resolve) => {
      quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0]));
      quickPick.onDidHide(() => resolve(undefined));
      quickPick.onDidTriggerItemButton((event) => {
        const agent = event.item.agent;
        quickPick.hide();
        if (agent?.preset || agent?.installed) void this.copyPreset(agent);
        else void openAgentSettings();
      });
      quickPick.show();
    });
    quickPick.dispose();
    const agent = chosen?.agent;
    if (!agent) return undefined;
    await vscode.workspace.getConfiguration(SECTION).update('defaultAgent', agent.name, vscode.ConfigurationTarget.Global);
    this.log.info(`[agents] new chats use ${agent.name}`);
    if (agent.preset) {
      const copyAction = vscode.l10n.t('Copy to Settings');
      const pick = await vscode.window.showInformationMessage(
        vscode.l10n.t(
          'New chats use {0}, a built-in preset that runs "{1}". Copy it to your settings to change its command, arguments or environment.',
          agent.name,
          [agent.command, ...agent.args].join(' '),
        ),
        copyAction,
      );
      if (pick === copyAction) await this.copyPreset(agent);
    }
    return agent.name;
  }

  /** Writes the preset into the user's `acp.agents`, where it can be edited, and shows it there. */
  private async copyPreset(preset: AgentConfig): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const current = config.inspect<unknown>('agents')?.globalValue;
    const entries = current && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
    if (!(preset.name in entries)) {
      await config.update('agents', { ...entries, [preset.name]: presetEntry(preset) }, vscode.ConfigurationTarget.Global);
      this.log.info(`[agents] copied the preset ${preset.name} into acp.agents`);
    }
    await openAgentSettings();
  }

  private async pick(title: string, agents: readonly AgentConfig[], requested: string | undefined): Promise<AgentConfig | undefined> {
    if (requested !== undefined) {
      const found = agents.find((a) => a.name === requested);
      if (!found) void vscode.window.showErrorMessage(vscode.l10n.t('There is no agent named "{0}".', requested));
      return found;
    }
    if (agents.length === 1) return agents[0];
    const pick = await vscode.window.showQuickPick(
      agentItems(agents, this.agents.catalog.read().defaultAgent, (name) => this.agents.account(name)),
      { title, ignoreFocusOut: true },
    );
    return pick?.agent;
  }

  /**
   * "ACP: Test Agent Connection…": starts the agent apart from any chat, initializes it, shows what it said (or why
   * it failed, with its stderr) in a read-only document, and stops it. Resolves to the report's URI.
   */
  async testConnection(requested?: string): Promise<vscode.Uri | undefined> {
    const picked = await this.pick(vscode.l10n.t('Test Agent Connection'), this.agents.catalog.read().agents, requested);
    if (!picked) return undefined;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage(new UntrustedWorkspaceError().message);
      return undefined;
    }
    const agent = await this.agents.catalog.consent.approve(picked);
    const started = Date.now();
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Testing {0}…', agent.name) },
      async () => {
        try {
          const client = await this.startApart(agent);
          const elapsed = Date.now() - started;
          const stderr = client.process.stderrTail();
          await client.dispose();
          return connectionReport(agent, { client, elapsed, stderr });
        } catch (error) {
          return connectionReport(agent, { error, stderr: error instanceof AgentStartFailure ? error.stderrTail : [] });
        }
      },
    );
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${agent.name.replace(/[^\w.-]+/g, '-')}-connection.md`, query: String(Date.now()) });
    this.reports.set(uri.toString(), report.text);
    this.reportChanged.fire(uri);
    await vscode.window.showTextDocument(uri, { preview: true });
    if (!report.ok) void vscode.window.showErrorMessage(vscode.l10n.t('{0} did not connect; the report says why.', agent.name));
    return uri;
  }

  /** "ACP: Sign Out…": `logout` with the running agent, or with one started for it. */
  async signOut(requested?: string): Promise<void> {
    const agent = await this.pick(vscode.l10n.t('Sign Out'), this.agents.catalog.read().agents, requested);
    if (!agent) return;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage(new UntrustedWorkspaceError().message);
      return;
    }
    const running = this.agents.client(agent.name);
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing out of {0}…', agent.name) },
        async () => {
          const client = running ?? (await this.startApart(await this.agents.catalog.consent.approve(agent)));
          try {
            if (!client.capabilities.supports('logout')) {
              void vscode.window.showInformationMessage(
                vscode.l10n.t('{0} does not offer signing out from here. Use its own command line tool to sign out.', agent.name),
              );
              return;
            }
            await client.logout();
            this.log.info(`[auth] signed out of ${agent.name}`);
            void vscode.window.showInformationMessage(vscode.l10n.t('Signed out of {0}.', agent.name));
          } finally {
            if (!running) await client.dispose();
          }
        },
      );
    } catch (error) {
      this.log.warn(`[auth] signing out of ${agent.name} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Signing out of {0} did not work: {1}.', agent.name, failureText(error)));
    }
  }

  /** "ACP: Stop Agent…": ends a running agent's process; its chats offer Restart Agent. */
  async stopAgent(requested?: string): Promise<void> {
    const running = this.agents.catalog.read().agents.filter((a) => this.agents.status(a.name).phase === 'running');
    if (requested !== undefined && !running.some((a) => a.name === requested)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} is not running.', requested));
      return;
    }
    if (running.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No agent is running.'));
      return;
    }
    const agent = await this.pick(vscode.l10n.t('Stop Agent'), running, requested);
    if (!agent) return;
    const chats = this.chats.all.filter((panel) => panel.agentName === agent.name);
    if (await confirmEndingBackground(chats, vscode.l10n.t('Stop Agent'))) await this.chats.stopAgent(agent.name);
  }

  /** A process of the agent for a command (or a connection, for an agent at a URL), apart from the one the chats share. */
  private async startApart(agent: AgentConfig): Promise<AgentClient> {
    return AgentClient.start(
      await this.agents.tokens.target(agent, someFolder()),
      {},
      {
        clientInfo: this.clientInfo,
        log: tagged(this.log, `${agent.name} (test)`),
        terminals: false,
        terminalAuth: agent.url === undefined,
        protocol: askedProtocol(agent),
      },
    );
  }

  /** "ACP: Set Agent Token…": the token sent to an agent at a URL, kept in SecretStorage; `token` given, not asked. */
  async setAgentToken(requested?: string, token?: string): Promise<boolean> {
    const remote = this.agents.catalog.read().agents.filter((a) => a.url !== undefined);
    if (remote.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No agent has a "url" in "acp.agents": a token is for an agent on another machine.'));
      return false;
    }
    const agent = await this.pick(vscode.l10n.t('Set Agent Token'), remote, requested);
    if (!agent) return false;
    if (token === undefined) return this.agents.tokens.ask(agent);
    const problem = tokenProblem(token);
    if (problem) throw new Error(problem);
    await this.agents.tokens.set(agent, token.trim());
    return true;
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

const REPORT_SCHEME = 'acp-report';
