// The open chats. "New Chat" chooses the agent, starts or reuses it, opens a session in the first workspace folder
// and shows the panel; a panel restored after a reload, or whose agent is restarted, gets its session back
// (replayed by `session/load` when the agent can) or a new one, and says which (reopen.ts). Every way this can fail
// ends in one sentence that says what to do, and the log has the details (failures.ts). Each chat's conversation is
// kept on this computer (see history/), so a chat the agent cannot replay still shows its earlier messages. What
// lives as long as one attached session is its ChatSession, created here on attach and disposed on detach.
import { MAX_QUEUED } from '../chat/queue';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { AgentSession } from '../acp/agentClient';
import type { Attention } from '../chat/attention';
import type { AgentManager } from '../agents/manager';
import type { SignIn } from '../agents/signIn';
import type { ChatOwner } from '../chat/owner';
import { ChatPanel, type ChatDeps } from '../chat/panel';
import type { NewAttachment } from '../composer/prompt';
import { readChatLocation, type AgentConfig } from '../settings/config';
import { chatFolder } from '../common/chatFolders';
import { ChatSession, type Carried, type ChatSessionDeps } from './chatSession';
import type { ChoicesFrom } from './chatChoices';
import { explainRestricted, reportFailure, withNotes } from './failures';
import { previousNote, SessionOpener, showTranscript, type Opened } from './reopen';
import { AgentRestarts } from './agentRestarts';
import { SessionTarget } from '../common/sessionTarget';
import { setupNotes } from './setupNotes';
import { adoptTab, editorTab, type ChatLocation, type ChatSurface } from '../chat/surface';
import type { SideBarChatView } from './sideBar';
import { chatKey } from '../checkpoints/checkpoints';
import { chatMarkdown, renameChat, sendAfterTurn, sendPlanFeedback } from './operations';
import type { PlanUnderReview } from '../plans/planReviews';
import { forkChat, resendEdited, type BranchHost } from './branches';
import { chooseAgent, offerSettings, reportProblems } from './agentChoice';
import { DisposableStore } from '../common/disposables';
import { failureText } from '../common/failureText';

/** What the chat view keeps for a reload: which chat to bring back. */
const RestoreState = z.object({
  restore: SessionTarget,
  /** The texts of the messages that were queued when the window closed (their attachments are not kept). */
  queued: z.array(z.string().max(1_000_000)).max(MAX_QUEUED).optional().catch(undefined),
});

/** An earlier session to open again: from the agent's `session/list`, or from the local history. */
export interface PreviousSession {
  readonly sessionId: string;
  readonly cwd?: string;
}

export class Chats implements vscode.Disposable {
  private readonly open = new Set<ChatPanel>();
  /** The chats by when they were last active, the latest last. */
  private recent: ChatPanel[] = [];
  /** What lives as long as each panel's current session. */
  private readonly sessions = new Map<ChatPanel, ChatSession>();
  private readonly subscriptions = new DisposableStore();
  private readonly opener: SessionOpener;
  /** Restart Agent, Stop Agent, a chat brought back, and reconnecting after a drop. */
  private readonly restarts: AgentRestarts;
  /** Fork from Here, and Edit and Resend. */
  private readonly branches: BranchHost;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** A chat opened or closed, became active, got a new session or a new title, or its agent started or stopped. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly attentionEmitter = new vscode.EventEmitter<{ readonly panel: ChatPanel; readonly before: Attention; readonly after: Attention }>();
  /** What a chat asks of its user changed (see chat/attention.ts). */
  readonly onDidChangeAttention = this.attentionEmitter.event;

  constructor(
    private readonly agents: AgentManager,
    private readonly deps: ChatDeps,
    /** What each attached session's ChatSession needs. */
    private readonly sessionDeps: ChatSessionDeps,
    private readonly signIn: SignIn,
    private readonly sideBar: SideBarChatView,
  ) {
    this.opener = new SessionOpener(agents, signIn, sessionDeps, deps.log, (name, except) => this.restarts.reconnectAll(name, except));
    this.restarts = new AgentRestarts({
      agents,
      opener: this.opener,
      folders: sessionDeps.folders,
      log: deps.log,
      chatsOf: (name) => this.all.filter((p) => p.agentName === name),
      present: (panel, opened, note) => this.present(panel, opened, note),
    });
    this.branches = {
      opener: this.opener,
      log: deps.log,
      storage: deps.storage,
      config: (name) => agents.catalog.find(name),
      carried: (panel) => this.sessions.get(panel)?.carried(),
      newPanel: async (name) => this.track(await this.openPanel(name, 'editor')),
      attach: (panel, session, keepEarlier, carried, from) => this.attach(panel, session, keepEarlier, carried, from),
      isOpen: (panel) => this.open.has(panel),
      resending: new Set(),
      restoreBefore: (panel, entryId) => this.sessions.get(panel)?.restoreBefore(entryId),
    };
    // Chats opened in Restricted Mode wait for trust, and connect once it is granted.
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        for (const panel of this.all) if (!panel.model.session) void this.restarts.reconnect(panel, panel.model.restoreLater, 'trust');
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

  /**
   * Opens a chat with `agentName`, or with the default agent, or with the one the user picks, in the first workspace
   * folder or in `folder` (a worktree made for chats).
   */
  async newChat(agentName?: string, location: ChatLocation = readChatLocation(), folder?: string): Promise<ChatPanel | undefined> {
    const settings = this.agents.catalog.read();
    reportProblems(settings, this.deps.log);
    const agent = await chooseAgent(settings, agentName);
    if (!agent) return undefined;
    const cwd = chatFolder(this.sessionDeps.folders, folder);
    if (!cwd) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace.'),
      );
      return undefined;
    }
    if (!vscode.workspace.isTrusted) {
      // The chat opens anyway and says why nothing runs; granting trust connects it.
      const panel = this.track(await this.openPanel(agent.name, location));
      explainRestricted(panel);
      return panel;
    }
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting {0}…', agent.name) },
        async () => {
          const { session } = await this.opener.open(agent, cwd, undefined);
          const panel = this.track(await this.openPanel(agent.name, location));
          this.attach(panel, session, false, undefined, { defaults: true });
          const notes = setupNotes(session);
          if (notes.length > 0) panel.model.tell(notes.join(' '));
          return panel;
        },
      );
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  /** Sign In, from a chat whose agent refused a message until the user signs in. */
  private async signInFrom(panel: ChatPanel): Promise<void> {
    const name = panel.agentName;
    const config = this.agents.catalog.find(name);
    const client = panel.model.session?.client;
    if (!config || !client || client.hasExited) {
      await this.restartAgent(name);
      return;
    }
    const signedIn = await this.signIn.run(config, client, panel.model.session?.cwd ?? chatFolder(this.sessionDeps.folders, undefined) ?? '');
    if (signedIn === 'restartAgent') await this.restartAgent(name);
    if (signedIn) panel.model.tell(vscode.l10n.t('Signed in to {0}. Send your message again.', name));
  }

  /** Adds context to the target chat, opening a chat first when there is none. */
  async addToChat(attachment: NewAttachment): Promise<void> {
    const panel = this.target ?? (await this.newChat());
    panel?.addAttachment(attachment);
  }

  /** A new chat's panel, in an editor tab or in the side bar (whose chat, if any, moves to an editor tab). */
  private async openPanel(agentName: string, location: ChatLocation): Promise<ChatPanel> {
    if (location === 'editor') return this.panelIn(editorTab(this.deps.extensionUri, agentName), agentName);
    this.vacateSideBar();
    return this.panelIn(await this.sideBar.take(), agentName);
  }

  /** A chat with `agentName` shown in `surface`, owned by the registry. */
  private panelIn(surface: ChatSurface, agentName: string): ChatPanel {
    const panel: ChatPanel = new ChatPanel(
      surface,
      agentName,
      this.deps,
      this.ownerOf(() => panel),
    );
    return panel;
  }

  /** What a chat asks of the registry: the acts that reach past it (see chat/owner.ts). */
  private ownerOf(chat: () => ChatPanel): ChatOwner {
    return {
      restart: () => this.restartAgent(chat().agentName),
      reconnectAfter: (end) => this.restarts.reconnectAfter(chat(), end),
      stopReconnecting: () => this.restarts.stopReconnecting(chat().agentName),
      signIn: () => this.signInFrom(chat()),
      fork: async (entryId) => void (await this.fork(chat(), entryId)),
      openBranch: async (branch) => void (await this.openPrevious(branch.agent, branch)),
      resend: (entryId, text) =>
        resendEdited(this.branches, chat(), entryId, text).catch((error: unknown) => {
          chat().model.tell(vscode.l10n.t('The message was not resent: {0}', failureText(error)));
          return undefined;
        }),
      checkpoint: (request) => this.sessions.get(chat())?.checkpoint(request) ?? Promise.resolve(),
      setPermissionLevel: (level) => this.sessions.get(chat())?.chooseLevel(level) ?? Promise.resolve(),
    };
  }

  /** The side bar's chat, if there is one, moves to an editor tab: nothing is closed to make room. */
  private vacateSideBar(): void {
    const occupant = this.all.find((p) => p.location === 'sideBar');
    if (occupant) occupant.moveTo(editorTab(this.deps.extensionUri, occupant.title));
  }

  /** Move Chat to Side Bar: the conversation, the draft and a running turn go along. */
  async moveToSideBar(panel: ChatPanel): Promise<void> {
    if (panel.location === 'sideBar' || !this.open.has(panel)) return;
    this.vacateSideBar();
    panel.moveTo(await this.sideBar.take());
  }

  /** Move Chat to Editor: the side bar's chat goes to an editor tab beside the editor. */
  moveToEditor(panel: ChatPanel): void {
    if (panel.location === 'editor' || !this.open.has(panel)) return;
    panel.moveTo(editorTab(this.deps.extensionUri, panel.title));
  }

  /** The chat in the side bar, if one is there. */
  get inSideBar(): ChatPanel | undefined {
    return this.all.find((p) => p.location === 'sideBar');
  }

  /** VS Code resolved the side bar's chat view: after a reload, the chat that was there comes back. */
  async resolveSideBar(view: vscode.WebviewView, state: unknown): Promise<void> {
    this.sideBar.resolved(view);
    // A view resolved again while a chat held it had been closed: that chat closed with it.
    if (!RestoreState.safeParse(state).success || this.inSideBar) return;
    await this.restore(await this.sideBar.take(), state);
  }

  /** Brings back a chat VS Code restored after a reload: the same agent, and its session when the agent can. */
  async restoreTab(webviewPanel: vscode.WebviewPanel, state: unknown): Promise<void> {
    if (!RestoreState.safeParse(state).success) {
      // A chat closed before its session opened has nothing to come back to.
      webviewPanel.dispose();
      return;
    }
    await this.restore(adoptTab(webviewPanel, this.deps.extensionUri), state);
  }

  private async restore(surface: ChatSurface, state: unknown): Promise<void> {
    const saved = RestoreState.safeParse(state);
    if (!saved.success) return;
    const { agent, sessionId, cwd } = saved.data.restore;
    // One chat per session: a chat that moved between a tab and the side bar may have left its state in both.
    if (this.all.some((p) => p.agentName === agent && (p.model.session?.sessionId === sessionId || p.model.restoreLater?.sessionId === sessionId))) {
      surface.release();
      return;
    }
    const panel = this.track(this.panelIn(surface, agent));
    panel.model.restoreLater = { sessionId, cwd };
    if (saved.data.queued?.length) panel.restoreQueued(saved.data.queued);
    if (!vscode.workspace.isTrusted) {
      explainRestricted(panel);
      return;
    }
    panel.model.tell(vscode.l10n.t('Reconnecting to {0}…', agent));
    await this.restarts.reconnect(panel, { sessionId, cwd }, 'reload');
  }

  /** "Restart Agent" (asked first when its chats run background work): each chat gets its session back, saying how. */
  restartAgent(name: string): Promise<void> {
    return this.restarts.restartAgent(name);
  }

  /** "ACP: Stop Agent": its process ends, and its chats say so and offer Restart Agent. */
  stopAgent(name: string): Promise<void> {
    return this.restarts.stopAgent(name);
  }

  private track(panel: ChatPanel): ChatPanel {
    this.open.add(panel);
    this.recent.push(panel);
    const subscriptions = new DisposableStore(
      panel.onDidBecomeActive(() => {
        this.recent = [...this.recent.filter((p) => p !== panel), panel];
        this.changeEmitter.fire();
      }),
      panel.onDidChangeTitle(() => this.changeEmitter.fire()),
      panel.onDidChangeAttention(({ before, after }) => {
        this.changeEmitter.fire();
        this.attentionEmitter.fire({ panel, before, after });
      }),
    );
    panel.onDidDispose(() => {
      subscriptions.dispose();
      this.sessions.get(panel)?.closedWithPanel();
      this.sessions.delete(panel);
      this.open.delete(panel);
      this.recent = this.recent.filter((p) => p !== panel);
      this.changeEmitter.fire();
    });
    this.changeEmitter.fire();
    return panel;
  }

  /**
   * Shows an opened session in `panel`. A replayed session shows the whole conversation again; otherwise the earlier
   * messages stay above it (after a reload or from the history, from the transcript kept on this computer).
   */
  private present(panel: ChatPanel, { session, how, stored, previous }: Opened, note: string): void {
    const carried = stored ? showTranscript(panel, stored) : undefined;
    this.attach(panel, session, how !== 'load', carried, previous === undefined ? { defaults: true } : { sessionId: previous });
    panel.model.tell(withNotes(note, session));
  }

  /**
   * Attaches `session` to `panel` with what lives as long as it (a new ChatSession), and lets go of the previous
   * one's. What the panel shows above the session is kept in front of its transcript: `carried` (a stored
   * transcript), or with `keepEarlier` the panel's previous conversation.
   */
  private attach(panel: ChatPanel, session: AgentSession, keepEarlier: boolean, carried?: Carried, choices?: ChoicesFrom): void {
    const previous = this.sessions.get(panel);
    const carry = carried ?? (keepEarlier ? previous?.carried() : undefined);
    this.sessions.set(panel, new ChatSession(panel, session, keepEarlier, carry, this.sessionDeps, () => this.changeEmitter.fire(), choices));
    previous?.dispose();
    this.changeEmitter.fire();
  }

  /** Fork from Here (see branches.ts). */
  fork(panel: ChatPanel, entryId?: number): Promise<ChatPanel | undefined> {
    return forkChat(this.branches, panel, entryId);
  }

  /** Rename Chat: kept on this computer, and given to the agent when it stores titles (unstable `session/set_title`). */
  rename(panel: ChatPanel, title: string): Promise<void> {
    return renameChat(panel, title, this.deps.log);
  }

  /** Writes every open chat's transcript now, if it changed since its last write: a search then sees all of it. */
  async saveTranscripts(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.saveTranscript()));
  }

  /** Export Chat as Markdown: the conversation kept above the session (if any), then the session's own. */
  exportMarkdown(panel: ChatPanel): string {
    return chatMarkdown(panel, this.sessions.get(panel)?.carried());
  }

  /** The chat that shows this session of this agent, if one does. */
  showing(agentName: string, sessionId: string): ChatPanel | undefined {
    return this.all.find((p) => p.agentName === agentName && p.model.session?.sessionId === sessionId);
  }

  /** Send Feedback on Plan (plans/planReviews.ts): false when the plan's chat is closed. */
  async planFeedback(plan: PlanUnderReview, feedback: string): Promise<boolean> {
    const panel = this.all.find((p) => p.agentName === plan.agent && p.model.session?.sessionId === plan.sessionId);
    if (!panel)
      void vscode.window.showWarningMessage(vscode.l10n.t('The chat of this plan is closed: the feedback was not sent, and your comments are kept.'));
    else await sendPlanFeedback(panel, plan.approval, feedback);
    return panel !== undefined;
  }

  /**
   * Sends a message with its own context (Send Feedback) in the chat named by `key` (`chatKey`: its agent and
   * session), once the turn running there has ended. Resolves when the message has been sent; a chat that is gone
   * or refuses it rejects with the reason.
   */
  sendContext(key: string, text: string, context: readonly NewAttachment[]): Promise<void> {
    return sendAfterTurn(
      this.all.find((p) => p.model.session && chatKey(p.agentName, p.model.session.sessionId) === key),
      text,
      context,
    );
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
    const agent = this.agents.catalog.find(agentName);
    if (!agent) {
      void offerSettings(vscode.l10n.t('There is no agent named "{0}" in the "acp.agents" setting.', agentName));
      return undefined;
    }
    const cwd = chatFolder(this.sessionDeps.folders, target.cwd);
    if (!cwd) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace.'),
      );
      return undefined;
    }
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Opening the session with {0}…', agentName) },
        async () => {
          const opened = await this.opener.open(agent, cwd, target.sessionId, { transcript: true });
          const panel = this.track(await this.openPanel(agentName, readChatLocation()));
          this.present(panel, opened, previousNote(agentName, opened.how, opened.stored !== undefined));
          return panel;
        },
      );
    } catch (error) {
      this.reportFailure(agent, error);
      return undefined;
    }
  }

  private reportFailure(agent: AgentConfig, error: unknown): void {
    reportFailure(agent, error, this.deps.log, { signIn: () => void this.newChat(agent.name), showLog: () => this.deps.actions.showLog() });
  }

  dispose(): void {
    for (const panel of [...this.open]) panel.closeAgreed(); // shutting down is no tab the user closed: nothing is asked
    this.restarts.dispose();
    this.subscriptions.dispose();
    this.changeEmitter.dispose();
    this.attentionEmitter.dispose();
  }
}
