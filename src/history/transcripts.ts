// The local transcripts: every session's conversation kept on this computer, so a chat reopened after a reload (or
// from the history) shows its earlier messages even when the agent cannot replay them. No `vscode` import: the
// extension gives it a folder (in its global storage, one per workspace), and it is unit-tested in plain Node.
//
// What is kept, compactly: the user's and the agent's messages and thoughts as text (chunks already joined by the
// session model; attachments as links, never their content), tool calls by title, kind and status (no raw input or
// output), the latest plan, the title and when the session last changed. Bounds: at most 100 sessions per workspace
// (the least recently updated go first) and 1 MiB per transcript (its oldest entries go first). Files are written
// whole to a temporary name and renamed, and everything read back is validated; a file that does not validate is
// skipped with a log line. All of it asynchronous: a streaming chat saves up to once a second, and the extension host
// thread must never wait for the disk.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type * as S from '../acp/schema.gen';
import { SessionModel, type SessionChange } from '../acp/sessionModel';

export interface TranscriptLimits {
  /** Sessions kept per workspace. */
  readonly sessions: number;
  /** Bytes of one transcript file. */
  readonly bytes: number;
}

export const TRANSCRIPT_LIMITS: TranscriptLimits = { sessions: 100, bytes: 1024 * 1024 };

const Link = z.object({ uri: z.string(), name: z.string() });

export const StoredEntry = z.discriminatedUnion('t', [
  z.object({ t: z.enum(['user', 'agent', 'thought']), text: z.string(), links: z.array(Link).optional() }),
  z.object({ t: z.literal('tool'), id: z.string(), title: z.string(), kind: z.string(), status: z.string() }),
]);
export type StoredEntry = z.infer<typeof StoredEntry>;

const PlanItem = z.object({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  priority: z.enum(['high', 'medium', 'low']),
});

export const Transcript = z.object({
  v: z.literal(1),
  agent: z.string(),
  sessionId: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  /** When the session last changed here (ISO 8601). */
  updatedAt: z.string(),
  entries: z.array(StoredEntry),
  plan: z.array(PlanItem).optional(),
  /** How many of the oldest entries were dropped to keep the transcript within its bound. */
  dropped: z.number().int().nonnegative().optional(),
});
export type Transcript = z.infer<typeof Transcript>;

/** One session in the history: what a list shows, without reading the transcript. */
export const TranscriptSummary = z.object({
  agent: z.string(),
  sessionId: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  /** The start of the first message, for a session without a title. */
  preview: z.string().optional(),
  updatedAt: z.string(),
});
export type TranscriptSummary = z.infer<typeof TranscriptSummary>;

const Index = z.object({ v: z.literal(1), sessions: z.array(TranscriptSummary) });

const INDEX_FILE = 'index.json';
const PREVIEW_CHARS = 80;

/** The folder name for a workspace: a hash of its identity (the workspace file, or the single folder's URI). */
export function workspaceKey(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 24);
}

function fileName(agent: string, sessionId: string): string {
  return `${createHash('sha256').update(`${agent}\0${sessionId}`).digest('hex').slice(0, 32)}.json`;
}

/** What a history list shows for a session: its title, or the start of its first message. */
export function summaryLabel(summary: Pick<TranscriptSummary, 'title' | 'preview'>): string {
  return summary.title?.trim() || summary.preview || 'Untitled session';
}

/** A write the store has been asked for and has not finished: the latest one per file wins. */
type Pending =
  | { readonly kind: 'save'; readonly transcript: Transcript; readonly text: string; readonly replaces: string | undefined }
  | { readonly kind: 'remove' }
  /** A transcript that does not validate: left on disk, dropped from the index. */
  | { readonly kind: 'forget' };

/**
 * The transcripts of one workspace. Never blocks the extension host thread: everything on disk is asynchronous.
 * One writer runs at a time and takes what is pending, the latest request per file, so writes never interleave, a
 * later save replaces an earlier one that has not started, and what waits is at most one transcript per session.
 * Reads and lists see what was asked before them. `flush()` resolves when everything asked so far is on disk.
 */
export class TranscriptStore {
  /** The index once read; only the writer changes it after that. */
  private index: Promise<TranscriptSummary[]> | undefined;
  private readonly pending = new Map<string, Pending>();
  private writing: Promise<void> | undefined;
  private readonly changeEmitter = new Emitter<void>();
  /** Fires when a transcript is saved or removed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    /** This workspace's folder; created on the first save. */
    readonly dir: string,
    private readonly log: Logger,
    readonly limits: TranscriptLimits = TRANSCRIPT_LIMITS,
  ) {}

  /** Every kept session, the most recently updated first, with the saves and removals asked for so far. */
  async list(): Promise<readonly TranscriptSummary[]> {
    // The writer takes every request made before it ends: one wait covers what was asked before this call, and
    // a chat that keeps streaming cannot keep a list waiting.
    if (this.writing) await this.writing;
    return [...(await this.loadIndex())];
  }

  /** The transcript of a session, or undefined when none is kept or it does not validate (logged). */
  async read(agent: string, sessionId: string): Promise<Transcript | undefined> {
    const name = fileName(agent, sessionId);
    const waiting = this.pending.get(name);
    if (waiting) return waiting.kind === 'save' ? waiting.transcript : undefined;
    const transcript = await this.parseFile(join(this.dir, name));
    if (transcript && (transcript.agent !== agent || transcript.sessionId !== sessionId)) {
      this.log.warn(`skipped the transcript ${name}: it belongs to another session`);
      return undefined;
    }
    if (transcript === null) this.enqueue(name, { kind: 'forget' });
    return transcript ?? undefined;
  }

  /**
   * Keeps `transcript` (bounded), and drops the least recently updated sessions beyond the limit. With `replaces`,
   * that session's transcript is removed once this one is written. Resolves when it is on disk (or failed, logged).
   */
  save(transcript: Transcript, replaces?: string): Promise<void> {
    let text = JSON.stringify(transcript);
    let bounded = transcript;
    if (Buffer.byteLength(text) > this.limits.bytes) {
      bounded = boundTranscript(transcript, this.limits.bytes);
      text = JSON.stringify(bounded);
    }
    return this.enqueue(fileName(bounded.agent, bounded.sessionId), { kind: 'save', transcript: bounded, text, replaces });
  }

  remove(agent: string, sessionId: string): Promise<void> {
    return this.enqueue(fileName(agent, sessionId), { kind: 'remove' });
  }

  /** Resolves when every write asked for so far (and any asked for meanwhile) is done. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Stops the change events. Pending writes still finish; `flush()` waits for them. */
  dispose(): void {
    this.changeEmitter.dispose();
  }

  private enqueue(name: string, request: Pending): Promise<void> {
    this.pending.delete(name); // the latest request goes last, after what was asked before it
    this.pending.set(name, request);
    this.writing ??= this.write();
    return this.writing;
  }

  /**
   * The one writer: runs until nothing is pending. Never rejects; failures are logged. It lets go of `writing` in
   * the same tick as it finds nothing pending, so a request is never left to a writer that has finished.
   */
  private async write(): Promise<void> {
    try {
      let sessions = await this.loadIndex();
      while (this.pending.size > 0) {
        for (const [name, request] of [...this.pending]) {
          sessions = await this.apply(name, request, sessions);
          // A newer request for the same file stays for the next round.
          if (this.pending.get(name) === request) this.pending.delete(name);
        }
        sessions.sort(newestFirst);
        for (const old of sessions.splice(this.limits.sessions)) await this.removeFile(fileName(old.agent, old.sessionId));
        this.index = Promise.resolve(sessions);
        await this.writeIndex(sessions);
      }
    } catch (error) {
      this.log.error(`the transcripts were not all written: ${errorMessage(error)}`);
      this.pending.clear();
    }
    this.writing = undefined;
  }

  /** Carries out one request on disk; returns the index after it. */
  private async apply(name: string, request: Pending, sessions: TranscriptSummary[]): Promise<TranscriptSummary[]> {
    const others = sessions.filter((s) => fileName(s.agent, s.sessionId) !== name);
    switch (request.kind) {
      case 'forget':
        return others;
      case 'remove':
        await this.removeFile(name);
        return others;
      case 'save': {
        const { transcript } = request;
        try {
          await mkdir(this.dir, { recursive: true });
          await writeAtomic(join(this.dir, name), request.text);
        } catch (error) {
          this.log.warn(`could not keep the transcript of session ${transcript.sessionId}: ${errorMessage(error)}`);
          return sessions;
        }
        let kept = [summarize(transcript), ...others];
        if (request.replaces !== undefined && request.replaces !== transcript.sessionId) {
          const replaced = fileName(transcript.agent, request.replaces);
          await this.removeFile(replaced);
          kept = kept.filter((s) => fileName(s.agent, s.sessionId) !== replaced);
        }
        return kept;
      }
    }
  }

  private async removeFile(name: string): Promise<void> {
    try {
      await rm(join(this.dir, name), { force: true });
    } catch (error) {
      this.log.warn(`could not remove the transcript ${name}: ${errorMessage(error)}`);
    }
  }

  private async writeIndex(sessions: TranscriptSummary[]): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true });
      await writeAtomic(join(this.dir, INDEX_FILE), JSON.stringify({ v: 1, sessions }));
    } catch (error) {
      this.log.warn(`could not write the history index: ${errorMessage(error)}`);
    }
    this.changeEmitter.fire();
  }

  /** The index, read once; rebuilt from the transcripts when it is missing or does not validate. */
  private loadIndex(): Promise<TranscriptSummary[]> {
    return (this.index ??= this.readIndex());
  }

  private async readIndex(): Promise<TranscriptSummary[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, INDEX_FILE), 'utf8');
    } catch (error) {
      if (!isMissing(error)) this.log.warn(`could not read the history index (${errorMessage(error)}); rebuilding it from the transcripts`);
      return this.rebuildIndex(!isMissing(error));
    }
    try {
      const parsed = Index.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.sessions.sort(newestFirst);
      this.log.warn(`the history index does not validate (${parsed.error.issues[0]?.message ?? 'invalid'}); rebuilding it from the transcripts`);
    } catch (error) {
      this.log.warn(`could not read the history index (${errorMessage(error)}); rebuilding it from the transcripts`);
    }
    return this.rebuildIndex(true);
  }

  /** The index from the transcripts themselves; written back when there was a bad one or anything was found. */
  private async rebuildIndex(hadIndex: boolean): Promise<TranscriptSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (!isMissing(error)) this.log.warn(`could not list the transcripts: ${errorMessage(error)}`);
      return [];
    }
    const sessions: TranscriptSummary[] = [];
    for (const name of names) {
      if (!/^[0-9a-f]{32}\.json$/.test(name)) continue;
      const transcript = await this.parseFile(join(this.dir, name));
      if (transcript) sessions.push(summarize(transcript));
    }
    sessions.sort(newestFirst);
    // Not through the writer, which waits for this index: the index is not shared with anyone yet.
    if (hadIndex || sessions.length > 0) await this.writeIndex(sessions);
    return sessions;
  }

  /** The validated transcript; undefined when there is no file, null (logged) when it does not validate. */
  private async parseFile(file: string): Promise<Transcript | null | undefined> {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      if (isMissing(error)) return undefined;
      this.log.warn(`skipped the transcript ${basename(file)}: it is not readable JSON (${errorMessage(error)})`);
      return null;
    }
    const parsed = Transcript.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    this.log.warn(`skipped the transcript ${basename(file)}: ${issue ? `${issue.path.join('.') || 'its value'}: ${issue.message}` : 'it does not validate'}`);
    return null;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function newestFirst(a: TranscriptSummary, b: TranscriptSummary): number {
  return b.updatedAt.localeCompare(a.updatedAt);
}

function summarize(t: Transcript): TranscriptSummary {
  const first = t.entries.find((e) => e.t === 'user' && e.text.trim() !== '');
  const preview = first && 'text' in first ? oneLine(first.text) : undefined;
  return {
    agent: t.agent,
    sessionId: t.sessionId,
    cwd: t.cwd,
    ...(t.title ? { title: t.title } : {}),
    ...(preview ? { preview } : {}),
    updatedAt: t.updatedAt,
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

/** Whole or not at all: a crash mid-write leaves the previous file. One writer per store, so one temporary name. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * Fits a transcript in `limit` bytes: the oldest entries go first; a single entry that is still too large keeps
 * the end of its text. The result says how many entries were dropped.
 */
export function boundTranscript(transcript: Transcript, limit: number): Transcript {
  if (byteSize(transcript) <= limit) return transcript;
  // Keep the newest entries that fit (measured once each, from the end), then check the whole and trim further.
  const margin = 64; // the `dropped` count grows by a few bytes
  let budget = limit - margin - byteSize({ ...transcript, entries: [] });
  let keep = 0;
  for (let i = transcript.entries.length - 1; i >= 0; i--) {
    budget -= byteSize(transcript.entries[i]) + 1;
    if (budget < 0 && keep > 0) break;
    keep++;
  }
  const entries = transcript.entries.slice(transcript.entries.length - keep);
  const dropped = (transcript.dropped ?? 0) + transcript.entries.length - keep;
  let result: Transcript = { ...transcript, entries, dropped };
  for (let size = byteSize(result); size > limit; size = byteSize(result)) {
    const first = result.entries[0];
    if (first && 'text' in first && first.text.length > 0) {
      // Keep the end of the text: cut the excess bytes off its start, and the pieces of a character cut in two.
      const bytes = Buffer.from(first.text);
      const kept = bytes.subarray(Math.min(bytes.length, size - limit + margin)).toString('utf8').replace(/^\ufffd+/, '');
      result = { ...result, entries: [{ ...first, text: kept === '' ? '' : `…${kept}` }, ...result.entries.slice(1)] };
    } else if (result.entries.length > 0) {
      result = { ...result, entries: result.entries.slice(1), dropped: (result.dropped ?? 0) + 1 };
    } else {
      // Only the plan and the title are left: keep neither rather than a transcript over its bound.
      const { plan: _plan, ...rest } = result;
      void _plan;
      result = { ...rest, ...(rest.title ? { title: rest.title.slice(0, 200) } : {}) };
      break;
    }
  }
  return result;
}

/** The compact entries of a session model: messages as text and links, tool calls by title, kind and status. */
export function storedEntries(model: SessionModel): StoredEntry[] {
  const stored: StoredEntry[] = [];
  for (const entry of model.entries) {
    if (entry.type === 'tool') {
      const call = entry.call;
      stored.push({ t: 'tool', id: call.toolCallId, title: call.title, kind: call.kind, status: call.status });
      continue;
    }
    let text = '';
    const links: z.infer<typeof Link>[] = [];
    for (const block of entry.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'resource_link') links.push({ uri: block.uri, name: block.title ?? block.name });
      else if (block.type === 'resource') links.push({ uri: block.resource.uri, name: nameOf(block.resource.uri) });
      else if (block.type === 'image' && block.uri) links.push({ uri: block.uri, name: nameOf(block.uri) });
    }
    if (text === '' && links.length === 0) continue;
    stored.push(links.length > 0 ? { t: entry.role, text, links } : { t: entry.role, text });
  }
  return stored;
}

/** The last segment of a URI's path ("a.ts" for file:///w/src/a.ts#L3), or the URI itself. */
function nameOf(uri: string): string {
  const path = uri.replace(/[?#].*$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || uri;
  } catch {
    return last || uri;
  }
}

const TOOL_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const TOOL_STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'failed']);

/**
 * A read-only session model holding a stored transcript, built by replaying it as session updates: what the chat
 * shows as earlier messages. The caller disposes it.
 */
export function replayTranscript(transcript: Pick<Transcript, 'sessionId' | 'entries' | 'title' | 'plan'>): SessionModel {
  const model = new SessionModel(transcript.sessionId);
  transcript.entries.forEach((entry, i) => {
    if (entry.t === 'tool') {
      const status = TOOL_STATUSES.has(entry.status) ? (entry.status as S.ToolCallStatus) : 'in_progress';
      const kind = TOOL_KINDS.has(entry.kind) ? (entry.kind as S.ToolKind) : 'other';
      model.apply({ sessionUpdate: 'tool_call', toolCallId: entry.id, title: entry.title, kind, status });
      const call = model.toolCall(entry.id);
      if (call && entry.status === 'cancelled') call.status = 'cancelled';
      return;
    }
    const sessionUpdate = entry.t === 'user' ? 'user_message_chunk' : entry.t === 'agent' ? 'agent_message_chunk' : 'agent_thought_chunk';
    // A message id per entry keeps two messages in a row apart, as they were.
    const messageId = `stored-${i}`;
    if (entry.text !== '') model.apply({ sessionUpdate, messageId, content: { type: 'text', text: entry.text } });
    for (const link of entry.links ?? []) model.apply({ sessionUpdate, messageId, content: { type: 'resource_link', uri: link.uri, name: link.name } });
  });
  if (transcript.plan) model.apply({ sessionUpdate: 'plan', entries: transcript.plan });
  if (transcript.title) model.apply({ sessionUpdate: 'session_info_update', title: transcript.title });
  return model;
}

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
    readonly meta: { readonly agent: string; readonly sessionId: string; readonly cwd: string },
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
    const model = this.model;
    const title = this.title;
    const replaces = this.replaces;
    this.replaces = undefined;
    return this.store.save(
      {
        v: 1,
        agent: this.meta.agent,
        sessionId: this.meta.sessionId,
        cwd: this.meta.cwd,
        ...(title ? { title } : {}),
        updatedAt: this.now().toISOString(),
        entries,
        ...(model.plan.length > 0 ? { plan: model.plan.map((p) => ({ content: p.content, status: p.status, priority: p.priority })) } : {}),
        ...(this.dropped > 0 ? { dropped: this.dropped } : {}),
      },
      replaces,
    );
  }

  /** Stops recording, and asks the store to write what is not written yet (the store's `flush()` waits for it). */
  dispose(): void {
    this.subscription.dispose();
    void this.flush();
  }
}
