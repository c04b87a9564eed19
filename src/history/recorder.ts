// The recorder: keeps one open session's transcript up to date in the store while the session changes.
import type { SessionModel } from '../acp/sessionModel';
import type { SessionChange } from '../acp/sessionState';
import { storedEntries, type StoredEntry, type Transcript } from './format';
import type { TranscriptStore } from './transcripts';
import type { SessionTarget } from '../common/sessionTarget';

export interface RecorderOptions {
  /** Entries shown above the session (an earlier transcript this chat continues), kept in front of its own. */
  readonly prefix?: readonly StoredEntry[];
  /** Entries dropped from the prefix before. */
  readonly dropped?: number;
  /** The carried transcript's title, kept until the session has its own. */
  readonly title?: string;
  /** A session whose transcript this one carries on: its own is removed once this one is saved. */
  readonly replaces?: string;
  /** Wait before a write after a change (default 1 s). */
  readonly delayMs?: number;
  readonly now?: () => Date;
}

const RECORDED: ReadonlySet<SessionChange['type']> = new Set(['entry', 'plan', 'info']);

/** Keeps one open session's transcript up to date: written at most once per `delayMs` while it changes, and on dispose. */
export class TranscriptRecorder {
  private timer: NodeJS.Timeout | undefined;
  private dirty: boolean;
  private replaces: string | undefined;
  private readonly subscription: { dispose(): void };
  private readonly now: () => Date;

  constructor(
    private readonly store: TranscriptStore,
    readonly meta: SessionTarget,
    private readonly model: SessionModel,
    private readonly options: RecorderOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.replaces = options.replaces !== meta.sessionId ? options.replaces : undefined;
    // A chat that carries an earlier transcript on keeps it even if nothing is said in it.
    this.dirty = (options.prefix?.length ?? 0) > 0;
    this.subscription = model.onDidChange((change) => {
      if (!RECORDED.has(change.type)) return;
      this.dirty = true;
      this.timer ??= setTimeout(() => void this.flush(), options.delayMs ?? 1000);
    });
  }

  /** What this chat's transcript holds now: the carried entries, then the session's own. */
  entries(): StoredEntry[] {
    return [...(this.options.prefix ?? []), ...storedEntries(this.model)];
  }

  get dropped(): number {
    return this.options.dropped ?? 0;
  }

  /** The session's title, or the carried transcript's. */
  get title(): string | undefined {
    return this.model.title ?? this.options.title;
  }

  /**
   * Asks the store to write now if anything changed since the last write; resolves when it is on disk. A session
   * without any entry is not kept.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty) return Promise.resolve();
    this.dirty = false;
    const entries = this.entries();
    if (entries.length === 0) return Promise.resolve();
    const replaces = this.replaces;
    this.replaces = undefined;
    return this.store.save(
      sessionTranscript(this.meta, this.model, { entries, title: this.title, updatedAt: this.now(), dropped: this.dropped }),
      replaces,
    );
  }

  /** Stops recording, and asks the store to write what is not written yet (the store's `flush()` waits for it). */
  dispose(): void {
    this.subscription.dispose();
    void this.flush();
  }
}

/** A session's transcript as it is kept: the entries given (carried ones, then its own), its title and its plan. */
export function sessionTranscript(
  meta: SessionTarget,
  model: SessionModel,
  kept: { readonly entries: StoredEntry[]; readonly title: string | undefined; readonly updatedAt: Date; readonly dropped?: number },
): Transcript {
  return {
    v: 1,
    agent: meta.agent,
    sessionId: meta.sessionId,
    cwd: meta.cwd,
    ...(kept.title ? { title: kept.title } : {}),
    updatedAt: kept.updatedAt.toISOString(),
    entries: kept.entries,
    ...(model.plan.length > 0 ? { plan: model.plan.map((p) => ({ content: p.content, status: p.status, priority: p.priority })) } : {}),
    ...((kept.dropped ?? 0) > 0 ? { dropped: kept.dropped } : {}),
  };
}
