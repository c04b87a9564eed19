// The open chats. "New Chat" chooses the agent, starts or reuses it, opens a session in the first workspace folder
// and shows the panel; a panel restored after a reload, or whose agent is restarted, gets its session back
// (replayed by `session/load` when the agent can) or a new one, and says which. Every way this can fail ends in
// one sentence that says what to do, and the log has the details. Each chat's conversation is kept on this computer
// (see transcripts.ts), so a chat the agent cannot replay still shows its earlier messages.
import * as vscode from 'vscode';
import { z } from 'zod';
import { AgentStartFailure, type AgentClient, type AgentSession } from '../acp/agentClient';
import type { SessionOptions } from '../acp/sessionHandle';
import { AcpError, AgentExitError, CommandNotFoundError, errorMessage } from '../acp/errors';
import { agentItems } from '../agents/pickers';
import { UntrustedWorkspaceError, type AgentManager } from '../agents/manager';
import type { SignIn } from '../agents/signIn';
import { ChatPanel, type ChatDeps } from '../chat/panel';
import type { ErrorAction } from '../chat/protocol';
import type { NewAttachment } from '../chat/prompt';
import { entryView } from '../chat/view';
import { openAgentSettings, readAgentSettings, readMcpServers, SECTION, type AgentConfig, type AgentSettings } from '../settings/config';
import { workspaceRoots } from '../common/workspace';
import type { FollowAgent } from '../editor/follow';
import { additionalDirectories } from '../settings/mcpConfig';
import type { Permissions } from '../permissions/permissions';
import { replayTranscript, type StoredEntry, type Transcript } from '../history/format';
import { TranscriptRecorder } from '../history/recorder';
import type { TranscriptStore } from '../history/transcripts';

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
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Each panel's transcript recorder (the session's lifetime). */
  private readonly recorders = new Map<ChatPanel, TranscriptRecorder>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** A chat opened or closed, became active, got a new session or a new title, or its agent started or stopped. */
  readonly onDidChange = this.changeEmitter.event;
  private reportedMcpProblems = '';

  constructor(
    private readonly agents: AgentManager,
    private readonly deps: ChatDeps,
    private readonly permissions: Permissions,
    private readonly follow: FollowAgent,
    private readonly signIn: SignIn,
    private readonly transcripts: TranscriptStore,
  ) {
    // Chats opened in Restricted Mode wait for trust, and connect once it is granted.
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        for (const panel of this.all) if (!panel.session) void this.reconnect(panel, panel.restoreLater, 'trust');
      }),
    );
  }

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
      void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace.'));
      return undefined;
    }
    const cwd = folder.uri.fsPath;
    if (!vscode.workspace.isTrusted) {
      // The chat opens anyway and says why nothing runs; granting trust connects it.
      const panel = this.track(ChatPanel.open(agent.name, this.deps));
      this.explainRestricted(panel);
      return panel;
    }
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting {0}…', agent.name) },
        async () => {
          const session = await this.withSignIn(agent, cwd, (client) => client.newSession(cwd, this.sessionOptions(cwd)));
          const panel = this.track(ChatPanel.open(agent.name, this.deps));
          this.attach(panel, session, false);
          if (session.setupNotes.length > 0) panel.tell(session.setupNotes.join(' '));
          return panel;
        },
      );
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  /**
   * Runs `open` with the agent's client. When the agent answers that the user must sign in (-32000), the user signs
   * in and `open` runs once more (with a new process after a sign-in in a terminal). A client that ends up with no
   * session is stopped.
   */
  private async withSignIn<T>(config: AgentConfig, cwd: string, open: (client: AgentClient) => Promise<T>, panel?: ChatPanel): Promise<T> {
    let client = await this.agents.connect(config, cwd);
    try {
      try {
        return await open(client);
      } catch (error) {
        if (!(error instanceof AcpError && error.isAuthRequired)) throw error;
        const signedIn = await this.signIn.run(config, client, cwd);
        if (!signedIn) throw new SignInNeeded(config.name);
        if (signedIn === 'signedIn') return await open(client);
        // Signed in from a terminal: only a new process sees it. The agent's other chats come back after this one.
        await this.agents.stop(config.name);
        client = await this.agents.connect(config, cwd);
        const opened = await open(client);
        void this.reconnectAll(config.name, panel);
        return opened;
      }
    } catch (error) {
      void this.agents.release(client); // unless a chat uses it
      throw error;
    }
  }

  /** Sign In, from a chat whose agent refused a message until the user signs in. */
  private async signInFrom(panel: ChatPanel): Promise<void> {
    const name = panel.agentName;
    const config = readAgentSettings().agents.find((a) => a.name === name);
    const client = panel.session?.client;
    if (!config || !client || client.hasExited) {
      await this.restartAgent(name);
      return;
    }
    const signedIn = await this.signIn.run(config, client, panel.session?.cwd ?? workspaceRoots()[0] ?? '');
    if (signedIn === 'restartAgent') await this.restartAgent(name);
    if (signedIn) panel.tell(vscode.l10n.t('Signed in to {0}. Send your message again.', name));
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
    panel.restoreLater = { sessionId, cwd };
    if (!vscode.workspace.isTrusted) {
      this.explainRestricted(panel);
      return;
    }
    panel.tell(vscode.l10n.t('Reconnecting to {0}…', agent));
    await this.reconnect(panel, { sessionId, cwd }, 'reload');
  }

  /**
   * "Restart Agent": a new process for the agent, and every open chat with it gets its session back (replayed,
   * resumed, or a new one, as the agent can), each saying which.
   */
  async restartAgent(name: string): Promise<void> {
    await this.agents.stop(name);
    await this.reconnectAll(name);
  }

  /** Reconnects the agent's chats, one after the other (the first may have to sign in), except `except`. */
  private async reconnectAll(name: string, except?: ChatPanel): Promise<void> {
    const panels = this.all.filter((p) => p.agentName === name && p !== except);
    for (const panel of panels) panel.tell(vscode.l10n.t('Restarting {0}…', name));
    for (const panel of panels) {
      const previous = panel.session;
      await this.reconnect(panel, previous ? { sessionId: previous.sessionId, cwd: previous.cwd } : panel.restoreLater, 'restart');
    }
  }

  /** "ACP: Stop Agent": its process ends, and its chats say so and offer Restart Agent. */
  async stopAgent(name: string): Promise<void> {
    const panels = this.all.filter((p) => p.agentName === name);
    // Told before the exit arrives, so the chats do not take it for a crash.
    for (const panel of panels) panel.restoreLater = panel.session && { sessionId: panel.session.sessionId, cwd: panel.session.cwd };
    if (!(await this.agents.stop(name))) return;
    for (const panel of panels) panel.fail(vscode.l10n.t('You stopped {0}.', name), [], ['restart']);
  }

  private explainRestricted(panel: ChatPanel): void {
    panel.fail(
      vscode.l10n.t('{0} was not started: this workspace is in Restricted Mode, and agents run commands and edit files. Trust the workspace to chat here.', panel.agentName),
      [],
      ['manageTrust'],
    );
  }

  private async reconnect(panel: ChatPanel, previous: { sessionId: string; cwd: string } | undefined, why: 'reload' | 'restart' | 'trust'): Promise<void> {
    const name = panel.agentName;
    const config = readAgentSettings().agents.find((a) => a.name === name);
    if (!config) {
      panel.fail(vscode.l10n.t('"{0}" is no longer in the "acp.agents" setting or the presets, so this chat cannot continue', name), [], ['openSettings']);
      return;
    }
    const roots = workspaceRoots();
    // The folder is the one the chat had, if it is still a workspace folder.
    const cwd = previous && roots.includes(previous.cwd) ? previous.cwd : roots[0];
    if (!cwd) {
      panel.fail(vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace'), []);
      return;
    }
    // Read while the agent starts, so that the panel's turn to show it does not wait for the disk.
    const kept = why !== 'restart' && previous ? this.storedTranscript(name, previous.sessionId) : Promise.resolve(undefined);
    try {
      const log = this.deps.log;
      const { session, note, replayed } = await this.withSignIn(
        config,
        cwd,
        async (client) => {
        const how = client.reopens.load ? 'load' : client.reopens.resume ? 'resume' : undefined;
        if (previous && how) {
          try {
            const reopened = await client.reopenSession(previous.sessionId, cwd, how, this.sessionOptions(cwd));
            if (how === 'load') return { session: reopened, replayed: true, note: why === 'restart' ? vscode.l10n.t('{0} restarted and reopened this conversation.', name) : '' };
            return {
              session: reopened,
              replayed: false,
              note:
                why === 'restart'
                  ? vscode.l10n.t('{0} restarted and continues this conversation, but cannot show its earlier messages.', name)
                  : vscode.l10n.t('{0} reconnected and continues this conversation, but cannot show its earlier messages.', name),
            };
          } catch (error) {
            if (error instanceof AcpError && error.isAuthRequired) throw error;
            log.warn(`[chat] ${name} could not reopen session ${previous.sessionId}: ${errorMessage(error)}`);
          }
        }
        return {
          session: await client.newSession(cwd, this.sessionOptions(cwd)),
          replayed: false,
          note: previous
            ? vscode.l10n.t('{0} could not reopen this conversation, so this is a new session: the agent does not remember earlier messages.', name)
            : vscode.l10n.t('{0} started a new session.', name),
        };
        },
        panel,
      );
      // A replayed session shows the whole conversation again; otherwise the earlier messages stay above it (after a
      // reload, from the transcript kept on this computer).
      panel.restoreLater = undefined;
      const stored = replayed ? undefined : await kept;
      const carried = stored ? this.showTranscript(panel, stored) : undefined;
      this.attach(panel, session, !replayed, carried);
      panel.tell(withNotes(note, session));
    } catch (error) {
      const message = this.describeFailure(name, error);
      this.deps.log.error(`[chat] ${message}`);
      panel.tell('');
      if (error instanceof SignInNeeded) panel.fail(message, [], ['signIn']);
      else if (error instanceof UntrustedWorkspaceError) this.explainRestricted(panel);
      else panel.fail(message, error instanceof AgentStartFailure ? error.stderrTail : error instanceof AgentExitError ? error.stderrTail : [], failureActions(error));
    }
  }

  private track(panel: ChatPanel): ChatPanel {
    this.open.add(panel);
    this.recent.push(panel);
    const subscriptions = [
      panel.onDidBecomeActive(() => {
        this.recent = [...this.recent.filter((p) => p !== panel), panel];
        this.changeEmitter.fire();
      }),
      panel.onDidRequestAction((action) => void (action === 'restart' ? this.restartAgent(panel.agentName) : this.signInFrom(panel))),
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
  private attach(panel: ChatPanel, session: AgentSession, keepEarlier: boolean, carried?: Carried): void {
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
        const { session, how } = await this.withSignIn(agent, cwd, async (client) => {
          const options = this.sessionOptions(cwd);
          const how = client.reopens.load ? 'load' : client.reopens.resume ? 'resume' : undefined;
          if (how) {
            try {
              return { session: await client.reopenSession(target.sessionId, cwd, how, options), how };
            } catch (error) {
              if (error instanceof AcpError && error.isAuthRequired) throw error;
              log.warn(`[chat] ${agentName} could not reopen session ${target.sessionId}: ${errorMessage(error)}`);
            }
          }
          return { session: await client.newSession(cwd, options), how: how && ('failed' as const) };
        });
        const replayed = how === 'load';
        const stored = replayed ? undefined : await this.storedTranscript(agentName, target.sessionId);
        let note: string;
        if (how === 'load') note = '';
        else if (how === 'resume') {
          note = stored
            ? vscode.l10n.t('{0} continues this conversation; the earlier messages above are kept on this computer.', agentName)
            : vscode.l10n.t('{0} continues this conversation, but cannot show its earlier messages.', agentName);
        } else {
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
      });
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  /** The transcript kept on this computer for an agent's session, if it has anything to show. */
  private async storedTranscript(agentName: string, sessionId: string): Promise<Transcript | undefined> {
    const stored = await this.transcripts.read(agentName, sessionId);
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
      if (!found) void this.offerSettings(vscode.l10n.t('There is no agent named "{0}" in the "acp.agents" setting.', requested));
      return found;
    }
    if (defaultAgent !== undefined) {
      const found = agents.find((a) => a.name === defaultAgent);
      if (found) return found;
      void vscode.window.showWarningMessage(vscode.l10n.t('"acp.defaultAgent" names "{0}", which is neither in "acp.agents" nor a preset; choose an agent for this chat.', defaultAgent));
    }
    if (agents.length === 1) return agents[0];
    const pick = await vscode.window.showQuickPick(agentItems(agents), {
      title: vscode.l10n.t('New Chat'),
      placeHolder: vscode.l10n.t('Choose the agent for this chat ("ACP: Select Agent…" sets the one New Chat uses)'),
    });
    return pick?.agent;
  }

  private reportProblems(settings: AgentSettings): void {
    if (settings.problems.length === 0) return;
    for (const problem of settings.problems) this.deps.log.warn(`[settings] ${problem}`);
    void this.offerSettings(settings.problems.join(' '));
  }

  private describeFailure(name: string, error: unknown): string {
    if (error instanceof AgentStartFailure) return vscode.l10n.t('Could not start {0}: {1}', name, error.message);
    if (error instanceof SignInNeeded || error instanceof UntrustedWorkspaceError) return error.message;
    return vscode.l10n.t('{0} could not open a chat: {1}', name, errorMessage(error));
  }

  private reportFailure(agent: AgentConfig, error: unknown): void {
    const sentence = `${this.describeFailure(agent.name, error)}.`;
    this.deps.log.error(`[chat] ${sentence}`);
    if (error instanceof AgentStartFailure && error.stderrTail.length > 0) {
      this.deps.log.error(`[chat] ${agent.name}'s last stderr lines:\n${error.stderrTail.slice(-20).join('\n')}`);
    }
    const signIn = vscode.l10n.t('Sign In');
    const settings = vscode.l10n.t('Open Settings');
    const log = vscode.l10n.t('Show Log');
    const actions = error instanceof SignInNeeded ? [signIn] : failureActions(error).includes('openSettings') ? [settings, log] : [log, settings];
    void vscode.window.showErrorMessage(sentence, ...actions).then((pick) => {
      if (pick === signIn) void this.newChat(agent.name);
      if (pick === settings) void openAgentSettings();
      if (pick === log) this.deps.actions.showLog();
    });
  }

  private async offerSettings(message: string): Promise<void> {
    const open = vscode.l10n.t('Open Settings');
    const pick = await vscode.window.showErrorMessage(message, open);
    if (pick === open) await openAgentSettings();
  }

  dispose(): void {
    for (const panel of [...this.open]) panel.dispose();
    for (const d of this.subscriptions) d.dispose();
    this.changeEmitter.dispose();
  }
}

/** The user did not sign in when the agent asked: the chat offers Sign In. */
class SignInNeeded extends Error {
  override readonly name = 'SignInNeeded';
  constructor(agent: string) {
    super(vscode.l10n.t('{0} needs you to sign in before it can open a chat', agent));
  }
}

/** A missing command is fixed in the settings; anything else is worth a restart first. */
function failureActions(error: unknown): ErrorAction[] {
  const notFound = error instanceof AgentStartFailure && error.cause instanceof CommandNotFoundError;
  return notFound ? ['openSettings', 'restart', 'showLog'] : ['restart', 'showLog', 'openSettings'];
}

/** A chat's note, with what the session was opened without (MCP servers the agent cannot use). */
function withNotes(note: string, session: AgentSession): string {
  return [note, ...session.setupNotes].filter((n) => n !== '').join(' ');
}
