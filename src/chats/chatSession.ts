// What lives as long as one session is attached to a chat: the panel's subscriptions to it, the permission prompts
// and the following of the agent that watch it, and the recorder that keeps its transcript. The registry creates
// one when a session attaches to a panel and disposes it when the session is replaced or the chat closes; its one
// dispose() releases all of it and closes the session.
import * as vscode from 'vscode';
import type { ChatFolders } from '../common/chatFolders';
import type { AgentSession } from '../acp/agentClient';
import type { CheckpointRequest } from '../chat/owner';
import type { ChatPanel } from '../chat/panel';
import type { PermissionLevelName } from '../chat/protocol';
import { countDiffLines } from '../chat/view';
import { noteToolDiffs, type Checkpoints } from '../checkpoints/checkpoints';
import { openChange, reviewChanges } from '../checkpoints/review';
import type { FollowAgent } from '../editor/follow';
import type { StoredEntry } from '../history/format';
import { TranscriptRecorder } from '../history/recorder';
import type { TranscriptStore } from '../history/transcripts';
import { PERMISSION_LEVELS } from '../permissions/levels';
import type { Permissions } from '../permissions/permissions';
import { DisposableStore, disposeAll } from '../common/disposables';
import type { ChatChoices, ChoicesFrom } from './chatChoices';
import type { EditorTools } from '../editorTools/editorTools';
import { failureText } from '../common/failureText';
import { backgroundCommands, type KeptSessions } from './closedChat';

/** An earlier transcript a chat shows above its session and keeps in front of the session's own. */
export interface Carried {
  readonly entries: readonly StoredEntry[];
  readonly dropped: number;
  readonly title?: string | undefined;
  /** The session the transcript was kept for, whose own transcript this chat's replaces. */
  readonly replaces: string;
}

/** The chats' checkpoints, and Send Feedback (the comments the user wrote on a chat's changes). */
export interface SessionCheckpointing {
  readonly checkpoints: Checkpoints;
  /** Sends the comments held for the chat named by its key (`chatKey`). */
  sendFeedback(key: string): Promise<void>;
}

export interface ChatSessionDeps {
  readonly transcripts: TranscriptStore;
  readonly permissions: Permissions;
  readonly choices: ChatChoices;
  readonly follow: FollowAgent;
  readonly checkpointing: SessionCheckpointing;
  /** The worktrees made for chats: a chat in one works there, held to it. */
  readonly folders: ChatFolders;
  /** The editor's tools, offered to each session as the `vscode` MCP server. */
  readonly editorTools?: EditorTools;
  /** Sessions kept open after their chats closed, for their background commands (closedChat.ts). */
  readonly kept: KeptSessions;
}

/** How long a first message waits for the chat's level to reach the agent's own mode. */
const LEVEL_APPLY_TIMEOUT_MS = 15_000;

export class ChatSession implements vscode.Disposable {
  /** The panel's subscriptions to the session. */
  private readonly shown: vscode.Disposable;
  private readonly recorder: TranscriptRecorder;
  private readonly watchers: DisposableStore;
  private disposed = false;
  /** The session outlives the chat, for its background commands (closedWithPanel). */
  private keepOpen = false;
  private readonly kept: KeptSessions;
  /** The chat showed a conversation kept on this computer above the session's own (a resumed or carried one). */
  private readonly carriedAbove: boolean;
  /** Restores the files to before the user's message `turn`; undefined when there is no checkpoint there. */
  restoreBefore: (turn: number) => Promise<'restored' | 'unchanged' | 'declined' | 'none'> | undefined = () => undefined;
  /** Acts on what the user asked of the chat's changes (the chat's owner port); a failure is told in the chat. */
  checkpoint: (request: CheckpointRequest) => Promise<void> = () => Promise.resolve();
  /** Sets the permission level the user picked for the chat (the chat's owner port). */
  chooseLevel: (level: PermissionLevelName) => Promise<void> = () => Promise.resolve();

  /**
   * Shows `session` in `panel`, with permissions and following watching it and its transcript kept. What the panel
   * shows above the session is kept in front of its transcript: `carried` (a stored transcript, or the panel's
   * previous conversation with `keepEarlier`). `onDidEndAgent` hears when the session's agent ends.
   */
  constructor(
    readonly panel: ChatPanel,
    readonly session: AgentSession,
    keepEarlier: boolean,
    carried: Carried | undefined,
    deps: ChatSessionDeps,
    onDidEndAgent: () => void,
    /** Where the session's choices of mode, model and options come from (chatChoices.ts). */
    choicesFrom?: ChoicesFrom,
  ) {
    this.shown = panel.model.attach(session, keepEarlier);
    this.kept = deps.kept;
    this.carriedAbove = (carried?.entries.length ?? 0) > 0 || panel.model.earlier.length > 0;
    // A reopened session's diffs are counted while its page loads, not when the page asks for the state.
    const counting = new AbortController();
    // Only ahead of time: a diff it could not count is counted when the page asks, as before.
    if (session.model.entries.length > 0) countDiffLines(session.model.entries, counting.signal).catch(() => undefined);
    this.recorder = new TranscriptRecorder(
      deps.transcripts,
      { agent: panel.agentName, sessionId: session.sessionId, cwd: session.cwd },
      session.model,
      carried ? { prefix: carried.entries, dropped: carried.dropped, title: carried.title, replaces: carried.replaces } : {},
    );
    this.watchers = new DisposableStore(
      { dispose: () => counting.abort() },
      deps.permissions.watch(session, panel.agentName, () => panel.reveal(), session.client.process.host),
      deps.follow.watch(
        session,
        () => panel.viewColumn,
        (text) => panel.model.tell(text),
      ),
      session.onDidEndAgent(onDidEndAgent),
      this.watchSubagents(session, deps, panel),
      ...this.trackChanges(deps.checkpointing),
    );
    const choices = deps.choices.watch(session, panel.agentName, choicesFrom, (text) => panel.model.tell(text));
    this.watchers.push(choices.subscription, ...this.trackLevel(deps.permissions, choices.ready, choicesFrom));
  }

  /** The chat's permission level: its own (kept across a reload), or the default for a new one; set from the header. */
  private trackLevel(permissions: Permissions, choicesApplied: Promise<void>, from: ChoicesFrom | undefined): vscode.Disposable[] {
    const { panel, session } = this;
    const levels = permissions.levels;
    const key = { agent: panel.agentName, sessionId: session.sessionId };
    // A chat reopened in a new session keeps its level, as it keeps its choices.
    const started = from && 'sessionId' in from ? levels.carry({ agent: key.agent, sessionId: from.sessionId }, key) : Promise.resolve();
    // Agents with a mode of their own for the level run in it, so that they ask exactly when the level says; a mode the
    // user picks that approves more raises the level (see permissions/levelModes.ts).
    this.chooseLevel = async (level) => void (await levels.choose(key, level));
    const agentLevel = permissions.agentLevel(session, panel.agentName, {
      tell: (text) => panel.model.tell(text),
      raise: (level, because) => {
        if (this.disposed) return;
        panel.model.tell(because);
        void levels.set(key, level);
      },
    });
    const show = () => {
      const modes = agentLevel.modeNames();
      panel.model.show('permissionLevel', {
        level: levels.get(key),
        offered: levels.available ? PERMISSION_LEVELS.filter((l) => agentLevel.offers(l)) : ['ask'],
        ...(Object.keys(modes).length > 0 ? { modes } : {}),
      });
    };
    const tell = () => {
      if (!this.disposed) void agentLevel.tell(levels.get(key));
    };
    show();
    // After the chat's choices: the level's own mode for the agent comes last, and stays.
    const applied = started
      .then(() => Promise.all([levels.started(key), choicesApplied]))
      .then(async ([level]) => {
        if (this.disposed) return;
        // A default of Agent decides, for an agent without such a mode, is Ask.
        if (!agentLevel.offers(level)) await levels.set(key, 'ask');
        show();
        if (!this.disposed) await agentLevel.tell(levels.get(key));
      });
    // A message sent at once waits for the level's mode: the adapters start in modes that ask nothing. Bounded, for an
    // agent that never answers; the level then shows what the agent runs in (levelModes.ts raises it on a refusal).
    let settled = false;
    const settle = () => (settled = true);
    void applied.then(settle, settle);
    const levelApplied = () =>
      settled ? Promise.resolve() : Promise.race([applied, new Promise<void>((resolve) => setTimeout(resolve, LEVEL_APPLY_TIMEOUT_MS).unref())]);
    return [
      session.gatePrompts(levelApplied),
      session.model.onDidChange((change) => {
        if (change.type === 'mode' || change.type === 'config') agentLevel.settingChanged();
      }),
      levels.onDidChange((changed) => {
        if (changed.agent !== key.agent || changed.sessionId !== key.sessionId) return;
        show();
        tell();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(show),
    ];
  }

  /** A subagent's permission requests reach the user like the chat's own, labelled with its name. */
  private watchSubagents(session: AgentSession, deps: ChatSessionDeps, panel: ChatPanel): vscode.Disposable {
    const watched = new Map<string, vscode.Disposable>();
    const look = () => {
      for (const { info, model } of session.model.subagents) {
        if (watched.has(info.sessionId)) continue;
        const name = `${panel.agentName} \u203a ${info.title ?? info.sessionId.slice(0, 40)}`;
        watched.set(
          info.sessionId,
          deps.permissions.watch({ model, sessionId: info.sessionId }, name, () => panel.reveal(), session.client.process.host),
        );
      }
    };
    const subscription = session.model.onDidChange((change) => {
      if (change.type === 'subagent') look();
    });
    return new vscode.Disposable(() => {
      subscription.dispose();
      disposeAll(watched.values());
    });
  }

  /**
   * A checkpoint before each prompt and one when its turn ends, however it ends; the chat shows each turn's changes
   * and acts on the user's clicks on them.
   */
  private trackChanges({ checkpoints, sendFeedback }: SessionCheckpointing): vscode.Disposable[] {
    const { panel, session } = this;
    const tracked = checkpoints.track(panel.agentName, session.sessionId, () => panel.title, userMessages(session.model), session.workspace);
    const tracker = tracked.tracker;
    panel.model.show('checkpoints', tracker.view());
    this.restoreBefore = (turn) => (tracker.view().restorable.includes(turn) ? tracker.restore(turn) : undefined);
    this.checkpoint = (request) =>
      act(request).then(
        () => undefined,
        (error: unknown) => panel.model.tell(vscode.l10n.t('The files were not changed: {0}', failureText(error))),
      );
    const act = (request: CheckpointRequest): Promise<unknown> => {
      if (request.type === 'openChange') return openChange(checkpoints, tracked.key, request.turn, request.index, panel.viewColumn);
      if (request.type === 'restoreCheckpoint') return tracker.restore(request.turn);
      if (request.type === 'redoRestore') return tracker.redoRestore();
      if (request.type === 'checkpointAnswer') return Promise.resolve(tracker.answer(request.id, request.answer));
      switch (request.action) {
        case 'review':
          return reviewChanges(checkpoints, tracked.key, request.turn, panel.title, panel.viewColumn);
        case 'undo':
          return tracker.undo(request.turn);
        case 'redo':
          return tracker.redo(request.turn);
        case 'keep':
          tracker.keep(request.turn);
          return Promise.resolve();
        case 'feedback':
          return sendFeedback(tracked.key);
      }
    };
    return [
      tracked,
      session.gatePrompts((turn) => tracker.beforeTurn(turn, userMessages(session.model).length - 1)),
      session.model.onDidChange((change) => {
        if (change.type !== 'turn' || session.model.turn.phase !== 'idle') return;
        void tracker.afterTurn((snapshotter) => noteToolDiffs(snapshotter, session.model));
      }),
      tracker.onDidChange(() => panel.model.show('checkpoints', tracker.view())),
    ];
  }

  /** Writes the transcript now if it changed since the last write (a search must see what was just said). */
  saveTranscript(): Promise<void> {
    return this.recorder.flush();
  }

  /** What a chat that keeps this conversation above its next session carries on. */
  carried(): Carried {
    const recorder = this.recorder;
    return { entries: recorder.entries(), dropped: recorder.dropped, title: recorder.title, replaces: recorder.meta.sessionId };
  }

  /**
   * The chat's tab closed. VS Code cannot ask before a tab closes: a session whose commands still run in the background
   * stays open with them (its running turn stopped) until the user says what becomes of them (closedChat.ts).
   */
  closedWithPanel(): void {
    if (this.panel.closedAgreed || this.session.ended || backgroundCommands(this.session).length === 0) return this.dispose();
    void this.session.cancel();
    this.keepOpen = true;
    this.dispose();
    void this.kept.closeAfterAsking(this.session, this.panel.title, !this.carriedAbove);
  }

  /**
   * Closes the session and lets go of everything that watched it. The panel stops listening first; the prompts, the
   * following and the recorder see the session close (a running turn cancelled), and the recorder writes what is left.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.shown.dispose();
    if (!this.keepOpen) void this.session.close();
    this.recorder.dispose();
    this.watchers.dispose();
  }
}

/**
 * The ids of a session's user messages that began turns, oldest first: a replayed session's, then those sent from
 * this chat. A user-role record of the agent's among the sent ones (a link it put there) began no turn, and an agent
 * replays the session with one message a turn: counting it would put later turns' cards on the wrong messages.
 */
function userMessages(model: AgentSession['model']): number[] {
  let sentSeen = false;
  return model.entries.flatMap((e) => {
    if (e.type !== 'message' || e.role !== 'user') return [];
    sentSeen ||= e.sent === true;
    return e.sent || !sentSeen ? [e.id] : [];
  });
}
