// What lives as long as one session is attached to a chat: the panel's subscriptions to it, the permission prompts
// and the following of the agent that watch it, and the recorder that keeps its transcript. The registry creates
// one when a session attaches to a panel and disposes it when the session is replaced or the chat closes; its one
// dispose() releases all of it and closes the session.
import type * as vscode from 'vscode';
import type { AgentSession } from '../acp/agentClient';
import type { ChatPanel } from '../chat/panel';
import type { FollowAgent } from '../editor/follow';
import type { StoredEntry } from '../history/format';
import { TranscriptRecorder } from '../history/recorder';
import type { TranscriptStore } from '../history/transcripts';
import type { Permissions } from '../permissions/permissions';

/** An earlier transcript a chat shows above its session and keeps in front of the session's own. */
export interface Carried {
  readonly entries: readonly StoredEntry[];
  readonly dropped: number;
  readonly title?: string | undefined;
  /** The session the transcript was kept for, whose own transcript this chat's replaces. */
  readonly replaces: string;
}

export interface ChatSessionDeps {
  readonly transcripts: TranscriptStore;
  readonly permissions: Permissions;
  readonly follow: FollowAgent;
}

export class ChatSession implements vscode.Disposable {
  /** The panel's subscriptions to the session. */
  private readonly shown: vscode.Disposable;
  private readonly recorder: TranscriptRecorder;
  private readonly watchers: vscode.Disposable[];
  private disposed = false;

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
  ) {
    this.shown = panel.attach(session, keepEarlier);
    this.recorder = new TranscriptRecorder(
      deps.transcripts,
      { agent: panel.agentName, sessionId: session.sessionId, cwd: session.cwd },
      session.model,
      carried ? { prefix: carried.entries, dropped: carried.dropped, title: carried.title, replaces: carried.replaces } : {},
    );
    this.watchers = [
      deps.permissions.watch(session, panel.agentName, () => panel.reveal()),
      deps.follow.watch(
        session,
        () => panel.viewColumn,
        (text) => panel.tell(text),
      ),
      session.onDidEndAgent(onDidEndAgent),
    ];
  }

  /** What a chat that keeps this conversation above its next session carries on. */
  carried(): Carried {
    const recorder = this.recorder;
    return { entries: recorder.entries(), dropped: recorder.dropped, title: recorder.title, replaces: recorder.meta.sessionId };
  }

  /**
   * Closes the session and lets go of everything that watched it. The panel stops listening first; the prompts, the
   * following and the recorder see the session close (a running turn cancelled), and the recorder writes what is left.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.shown.dispose();
    void this.session.close();
    this.recorder.dispose();
    for (const d of this.watchers) d.dispose();
  }
}
