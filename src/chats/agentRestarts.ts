// What happens to an agent's chats when the agent stops, restarts or drops: Restart Agent, Stop Agent, a chat brought
// back (after a reload, or once the workspace is trusted), and, for an agent at a URL whose connection dropped,
// reconnecting with backoff until it is back, the user stops it, or a failure comes that a retry cannot mend (a
// refused token, a certificate). Each chat gets its session back with `session/resume`, or `session/load` where that
// is all the agent offers (reopen.ts), and says which. Nothing is sent again: a turn the drop ended stays ended.
import * as vscode from 'vscode';
import { AgentDisconnectedError, type DisconnectReason } from '../acp/errors';
import type { Logger } from '../acp/log';
import { AgentStartFailure } from '../acp/startFailure';
import type { AgentManager } from '../agents/manager';
import { confirmEndingBackground } from '../chat/backgroundConfirm';
import type { ChatPanel } from '../chat/panel';
import { chatFolder, type ChatFolders } from '../common/chatFolders';
import { failureText, withdrawnText } from '../common/failureText';
import type { SessionTarget } from '../common/sessionTarget';
import { showFailure } from './failures';
import { reconnectNote, type Opened, type SessionOpener } from './reopen';

/** What the restarts need of the open chats. */
export interface RestartHost {
  readonly agents: AgentManager;
  readonly opener: SessionOpener;
  readonly folders: ChatFolders;
  readonly log: Logger;
  /** The open chats with `name`. */
  chatsOf(name: string): readonly ChatPanel[];
  /** Shows a session that was opened again in its chat, with `note`. */
  present(panel: ChatPanel, opened: Opened, note: string): void;
}

type Why = 'reload' | 'restart' | 'trust' | 'reconnect';

/** The drops a retry may mend: not a refused token, a certificate, a URL refused or an agent that broke the rules. */
const TRANSIENT: ReadonlySet<DisconnectReason> = new Set(['closed', 'unreachable', 'unresponsive', 'error']);
/** Attempts before giving up, the first delay, and the longest (the delays double). */
const MAX_ATTEMPTS = 8;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

interface Retrying {
  attempt: number;
  timer: NodeJS.Timeout | undefined;
  /** The drop (or the last failed attempt's), said in each chat. */
  end: AgentDisconnectedError;
  /** The chats that were on the dropped connection: only these are told and reconnected (not one opened since). */
  readonly panels: Set<ChatPanel>;
}

/** A connection that drops again within this long of coming back goes on counting attempts (a flapping server). */
const SETTLED_MS = 60_000;

/** A drop a retry may mend, from an agent's end or a failed start. */
function transientDrop(error: unknown): AgentDisconnectedError | undefined {
  const end = error instanceof AgentStartFailure ? error.cause : error;
  return end instanceof AgentDisconnectedError && !end.expected && TRANSIENT.has(end.reason) ? end : undefined;
}

export class AgentRestarts implements vscode.Disposable {
  private readonly retrying = new Map<string, Retrying>();
  /** When each agent's connection last came back, after how many attempts, and for which chats. */
  private readonly cameBack = new Map<string, { readonly attempt: number; readonly at: number; readonly panels: WeakSet<ChatPanel> }>();

  constructor(private readonly host: RestartHost) {}

  /** "Restart Agent" (asked first when its chats run background work): each chat gets its session back, saying how. */
  async restartAgent(name: string): Promise<void> {
    const chats = this.host.chatsOf(name);
    if (!(await confirmEndingBackground(chats, vscode.l10n.t('Restart Agent')))) return;
    this.forget(name);
    await this.host.agents.stop(name);
    await this.reconnectAll(name);
  }

  /** Reconnects the agent's chats, one after the other (the first may have to sign in), except `except`. */
  async reconnectAll(name: string, except?: ChatPanel, why: Why = 'restart'): Promise<void> {
    const panels = this.host.chatsOf(name).filter((p) => p !== except);
    if (why === 'restart') for (const panel of panels) panel.model.tell(vscode.l10n.t('Restarting {0}…', name));
    for (const panel of panels) await this.reconnect(panel, targetOf(panel), why);
  }

  /** "ACP: Stop Agent": its process ends, and its chats say so and offer Restart Agent. */
  async stopAgent(name: string): Promise<void> {
    this.forget(name);
    const panels = this.host.chatsOf(name);
    // Told before the exit arrives, so the chats do not take it for a crash.
    for (const panel of panels)
      panel.model.restoreLater = panel.model.session && { sessionId: panel.model.session.sessionId, cwd: panel.model.session.cwd };
    if (!(await this.host.agents.stop(name))) return;
    for (const panel of panels) panel.model.fail(vscode.l10n.t('You stopped {0}.', name), [], ['restart']);
  }

  /** Opens the chat's session again; the error when it could not (the chat has said why), else undefined. */
  async reconnect(
    panel: ChatPanel,
    previous: Omit<SessionTarget, 'agent'> | undefined,
    why: Why,
    /** Asked once the session is open: false when the user stopped meanwhile (the session is closed, not shown). */
    wanted: () => boolean = () => true,
  ): Promise<unknown> {
    const name = panel.agentName;
    const config = this.host.agents.catalog.find(name);
    if (!config) {
      const gone = vscode.l10n.t('"{0}" is no longer in the "acp.agents" setting or the presets, so this chat cannot continue', name);
      panel.model.fail(gone, [], ['openSettings']);
      return new Error(gone);
    }
    // The folder is the one the chat had, if it is still a workspace folder or its worktree.
    const cwd = chatFolder(this.host.folders, previous?.cwd);
    if (!cwd) {
      const none = vscode.l10n.t('Open a folder to chat with an agent: the agent works in the first folder of the workspace');
      panel.model.fail(none, []);
      return new Error(none);
    }
    try {
      const opened = await this.host.opener.open(config, cwd, previous?.sessionId, { transcript: why !== 'restart' && why !== 'reconnect', panel });
      if (!wanted()) {
        void opened.session.close();
        return new Error('stopped');
      }
      panel.model.restoreLater = undefined;
      this.host.present(panel, opened, reconnectNote(name, opened.how, why));
      return undefined;
    } catch (error) {
      if (!(why === 'reconnect' && transientDrop(error))) showFailure(panel, error, this.host.log);
      return error;
    }
  }

  /**
   * A chat's agent ended. The connection to an agent at a URL that dropped is tried again with backoff, and every
   * chat that was on it says so, with Stop Reconnecting. True when that is what happens (the chat says nothing more).
   */
  reconnectAfter(panel: ChatPanel, end: unknown): boolean {
    const drop = transientDrop(end);
    if (!drop) return false;
    const name = panel.agentName;
    let state = this.retrying.get(name);
    if (!state) {
      this.host.log.info(`[chat] ${name}: ${drop.message}; reconnecting`);
      // A connection that came back a moment ago and dropped again does not start over at the first attempt; a chat
      // opened since (on a new connection, after the others closed) does.
      const back = this.cameBack.get(name);
      const flapping = back && back.panels.has(panel) && Date.now() - back.at < SETTLED_MS;
      const attempt = flapping ? Math.min(back.attempt, MAX_ATTEMPTS - 1) : 0;
      state = { attempt, timer: undefined, end: drop, panels: new Set() };
      this.retrying.set(name, state);
      queueMicrotask(() => this.schedule(name, state!));
    }
    state.panels.add(panel);
    return true;
  }

  /** Stop Reconnecting: the chats say so, and offer Restart Agent. */
  stopReconnecting(name: string): void {
    const state = this.retrying.get(name);
    if (!state || !this.forget(name)) return;
    this.host.log.info(`[chat] ${name}: the user stopped reconnecting`);
    for (const panel of this.waiting(name, state))
      panel.model.fail(vscode.l10n.t('You stopped reconnecting to {0}.', name), [], ['restart', 'showLog']);
  }

  /** The chats of `state` still open. */
  private waiting(name: string, state: Retrying): ChatPanel[] {
    return this.host.chatsOf(name).filter((p) => state.panels.has(p));
  }

  private schedule(name: string, state: Retrying): void {
    if (this.retrying.get(name) !== state) return;
    const panels = this.waiting(name, state);
    if (panels.length === 0) return void this.forget(name, false);
    state.attempt++;
    if (state.attempt > MAX_ATTEMPTS) {
      this.forget(name, false);
      const why = vscode.l10n.t('{0}; {1} attempts to reconnect failed', capitalized(failureText(state.end)), MAX_ATTEMPTS);
      for (const panel of panels) panel.model.fail(why, [], ['restart', 'showLog']);
      return;
    }
    const ms = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (state.attempt - 1));
    const said = vscode.l10n.t(
      '{0}. Reconnecting in {1} s (attempt {2} of {3})…',
      capitalized(failureText(state.end)),
      Math.ceil(ms / 1000),
      state.attempt,
      MAX_ATTEMPTS,
    );
    for (const panel of panels) {
      const withdrawn = withdrawnText(panel.model.session?.withdrawn ?? 0);
      panel.model.fail(withdrawn ? `${said} ${withdrawn}` : said, [], ['stopReconnecting', 'showLog']);
    }
    state.timer = setTimeout(() => void this.attempt(name, state), ms);
  }

  private async attempt(name: string, state: Retrying): Promise<void> {
    const wanted = () => this.retrying.get(name) === state;
    const [first, ...rest] = this.waiting(name, state);
    if (!wanted()) return;
    if (!first) return void this.forget(name, false);
    const error = await this.reconnect(first, targetOf(first), 'reconnect', wanted);
    if (!wanted()) return; // stopped, or restarted, meanwhile
    const drop = error === undefined ? undefined : transientDrop(error);
    if (drop) {
      state.end = drop;
      return this.schedule(name, state);
    }
    this.forget(name, false);
    if (error !== undefined) {
      // A failure no retry mends (a refused token, say): every chat that waited says it, with what to do.
      for (const panel of rest) showFailure(panel, error, this.host.log);
      return;
    }
    this.cameBack.set(name, { attempt: state.attempt, at: Date.now(), panels: new WeakSet(state.panels) });
    this.host.log.info(`[chat] ${name}: reconnected after ${state.attempt} attempt(s)`);
    for (const panel of rest) {
      const failed = await this.reconnect(panel, targetOf(panel), 'reconnect');
      // Dropped again meanwhile: this chat waits for the next retry (the reconnect said nothing of it); any other
      // failure the reconnect has said.
      if (transientDrop(failed)) this.reconnectAfter(panel, failed);
    }
  }

  /** Ends the retrying for `name` (and forgets when it last came back: the user acted); false when there was none. */
  private forget(name: string, user = true): boolean {
    if (user) this.cameBack.delete(name);
    const state = this.retrying.get(name);
    if (!state) return false;
    clearTimeout(state.timer);
    this.retrying.delete(name);
    return true;
  }

  dispose(): void {
    for (const name of [...this.retrying.keys()]) this.forget(name);
  }
}

/** The session a chat had (or is to get back), to open again. */
function targetOf(panel: ChatPanel): Omit<SessionTarget, 'agent'> | undefined {
  const previous = panel.model.session;
  return previous ? { sessionId: previous.sessionId, cwd: previous.cwd } : panel.model.restoreLater;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
