// The local transcripts: every session's conversation kept on this computer, so a chat reopened after a reload (or
// from the history) shows its earlier messages even when the agent cannot replay them. No `vscode` import: the
// extension gives it a folder (in its global storage, one per workspace), and it is unit-tested in plain Node. What
// a transcript holds is in format.ts; the recorder that keeps an open session's up to date is in recorder.ts.
//
// Bounds: at most 500 sessions per workspace (the least recently updated go first) and 1 MiB per transcript (its
// oldest entries go first). Files are written whole to a temporary name and renamed, and everything read back is
// validated; a file that does not validate is skipped with a log line. All of it asynchronous: a streaming chat
// saves up to once a second, and the extension host thread must never wait for the disk.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { boundTranscript, summarize, Transcript, TranscriptSummary } from './format';

export interface TranscriptLimits {
  /** Sessions kept per workspace. */
  readonly sessions: number;
  /** Bytes of one transcript file. */
  readonly bytes: number;
}

const TRANSCRIPT_LIMITS: TranscriptLimits = { sessions: 500, bytes: 1024 * 1024 };

const Index = z.object({ v: z.literal(1), sessions: z.array(TranscriptSummary) });

const INDEX_FILE = 'index.json';

function fileName(agent: string, sessionId: string): string {
  return `${createHash('sha256').update(`${agent}\0${sessionId}`).digest('hex').slice(0, 32)}.json`;
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
  /** The last read-change-save of each file (see `change`). */
  private readonly changing = new Map<string, Promise<void>>();
  private readonly changeEmitter = new Emitter<void>();
  /** Fires when a transcript is saved or removed. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  private readonly removeEmitter = new Emitter<{ readonly agent: string; readonly sessionId: string }>();
  /** A session's transcript was removed (deleted, or dropped past the limit): by its session id. */
  readonly onDidRemove: Event<{ readonly agent: string; readonly sessionId: string }> = this.removeEmitter.event;

  private readonly touchEmitter = new Emitter<{ readonly agent: string; readonly sessionId: string }>();
  /** A session's transcript was asked to be saved or removed (the search index reads it again when it is next used). */
  readonly onDidTouch: Event<{ readonly agent: string; readonly sessionId: string }> = this.touchEmitter.event;

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
    this.touchEmitter.fire({ agent: bounded.agent, sessionId: bounded.sessionId });
    if (replaces !== undefined) this.touchEmitter.fire({ agent: bounded.agent, sessionId: replaces });
    return this.enqueue(fileName(bounded.agent, bounded.sessionId), { kind: 'save', transcript: bounded, text, replaces });
  }

  /** Rename Chat on a session that is not open: its kept transcript gets the title. False when none is kept. */
  retitle(agent: string, sessionId: string, title: string): Promise<boolean> {
    return this.change(agent, sessionId, (transcript) => ({ ...transcript, title }));
  }

  /** Archive Chat and Unarchive on the kept transcript (its place in the list stays). False when none is kept. */
  setArchived(agent: string, sessionId: string, archived: boolean): Promise<boolean> {
    return this.change(agent, sessionId, (transcript) => {
      if ((transcript.archived ?? false) === archived) return undefined;
      const { archived: _was, ...rest } = transcript;
      return archived ? { ...rest, archived } : rest;
    });
  }

  /**
   * Reads a kept transcript, changes it and saves it, one change of a file after the other: two at once (a rename and
   * an archive) each see the other's, in the order they were asked. `changed` returns undefined for no change.
   */
  private change(agent: string, sessionId: string, changed: (transcript: Transcript) => Transcript | undefined): Promise<boolean> {
    const name = fileName(agent, sessionId);
    const run = (this.changing.get(name) ?? Promise.resolve()).then(async () => {
      const transcript = await this.read(agent, sessionId);
      if (!transcript) return false;
      const next = changed(transcript);
      if (next) await this.save(next);
      return true;
    });
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.changing.set(name, tail);
    void tail.then(() => this.changing.get(name) === tail && this.changing.delete(name));
    return run;
  }

  remove(agent: string, sessionId: string): Promise<void> {
    this.removeEmitter.fire({ agent, sessionId });
    this.touchEmitter.fire({ agent, sessionId });
    return this.enqueue(fileName(agent, sessionId), { kind: 'remove' });
  }

  /** Resolves when every write asked for so far (and any asked for meanwhile) is done. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Stops the change events. Pending writes still finish; `flush()` waits for them. */
  dispose(): void {
    this.changeEmitter.dispose();
    this.removeEmitter.dispose();
    this.touchEmitter.dispose();
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
        for (const old of sessions.splice(this.limits.sessions)) {
          await this.removeFile(fileName(old.agent, old.sessionId));
          this.removeEmitter.fire({ agent: old.agent, sessionId: old.sessionId });
        }
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
        // In order of change: a session saved without a change of its own (archived, renamed) keeps its place.
        let kept = [summarize(transcript), ...others].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
        if (request.replaces !== undefined && request.replaces !== transcript.sessionId) {
          const replaced = fileName(transcript.agent, request.replaces);
          await this.removeFile(replaced);
          this.removeEmitter.fire({ agent: transcript.agent, sessionId: request.replaces });
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
    this.log.warn(
      `skipped the transcript ${basename(file)}: ${issue ? `${issue.path.join('.') || 'its value'}: ${issue.message}` : 'it does not validate'}`,
    );
    return null;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function newestFirst(a: TranscriptSummary, b: TranscriptSummary): number {
  return b.updatedAt.localeCompare(a.updatedAt);
}

/** Whole or not at all: a crash mid-write leaves the previous file. One writer per store, so one temporary name. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}
