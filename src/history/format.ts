// The format of a kept transcript: what is kept of a session, compactly, and how it is read back. The user's and the
// agent's messages and thoughts as text (chunks already joined by the session model; attachments as links, never their
// content), tool calls by title, kind and status (no raw input or output), the latest plan, the title and when the
// session last changed. Everything read back is validated against these schemas. No `vscode` import, no disk.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import * as S from '../acp/schema.gen';
import { SessionModel } from '../acp/sessionModel';

const Link = z.object({ uri: z.string(), name: z.string() });

export const StoredEntry = z.discriminatedUnion('t', [
  /** `sent`: a message the user sent from the chat (its links are the user's attachments), not the agent's record of one. */
  z.object({ t: z.enum(['user', 'agent', 'thought']), text: z.string(), links: z.array(Link).optional(), sent: z.literal(true).optional() }),
  z.object({ t: z.literal('tool'), id: z.string(), title: z.string(), kind: z.string(), status: z.string() }),
  /** A context compaction: its status, its summary's text, its error, and the tokens before and after. */
  z.object({
    t: z.literal('compaction'),
    id: z.string(),
    status: z.string(),
    text: z.string(),
    error: z.string().optional(),
    before: z.number().int().nonnegative().optional(),
    after: z.number().int().nonnegative().optional(),
  }),
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
  /** Archived: out of the lists until "Show Archived", still found by Search Chats. Reopening it brings it back. */
  archived: z.boolean().optional(),
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
  archived: z.boolean().optional(),
});
export type TranscriptSummary = z.infer<typeof TranscriptSummary>;

const PREVIEW_CHARS = 80;

/** The folder name for a workspace: a hash of its identity (the workspace file, or the single folder's URI). */
export function workspaceKey(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 24);
}

/** What a history list shows for a session: its title, or the start of its first message. */
export function summaryLabel(summary: Pick<TranscriptSummary, 'title' | 'preview'>): string {
  return summary.title?.trim() || summary.preview || 'Untitled session';
}

/** What the history lists of a transcript. */
export function summarize(t: Transcript): TranscriptSummary {
  const first = t.entries.find((e) => e.t === 'user' && e.text.trim() !== '');
  const preview = first && 'text' in first ? oneLine(first.text) : undefined;
  return {
    agent: t.agent,
    sessionId: t.sessionId,
    cwd: t.cwd,
    ...(t.title ? { title: t.title } : {}),
    ...(preview ? { preview } : {}),
    updatedAt: t.updatedAt,
    ...(t.archived ? { archived: true } : {}),
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
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
      const kept = bytes
        .subarray(Math.min(bytes.length, size - limit + margin))
        .toString('utf8')
        .replace(/^\ufffd+/, '');
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
export function storedEntries(model: SessionModel, upTo = model.entries.length): StoredEntry[] {
  const stored: StoredEntry[] = [];
  for (const entry of model.entries.slice(0, upTo)) {
    if (entry.type === 'tool') {
      const call = entry.call;
      stored.push({ t: 'tool', id: call.toolCallId, title: call.title, kind: call.kind, status: call.status });
      continue;
    }
    if (entry.type === 'compaction') {
      const c = entry.compaction;
      const text = c.summary.map((b) => (b.type === 'text' ? b.text : '')).join('');
      stored.push({
        t: 'compaction',
        id: c.compactionId,
        status: c.status,
        text,
        ...(c.error !== undefined ? { error: c.error } : {}),
        ...(c.tokensBefore !== undefined ? { before: c.tokensBefore } : {}),
        ...(c.tokensAfter !== undefined ? { after: c.tokensAfter } : {}),
      });
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
    stored.push({ t: entry.role, text, ...(links.length > 0 && { links }), ...(entry.sent && { sent: true }) });
  }
  return stored;
}

/** The last segment of a URI's path ("a.ts" for file:///w/src/a.ts#L3), or the URI itself. */
export function nameOf(uri: string): string {
  // The first ? or # cuts: one search (`/[?#].*$/` rescanned to the end from each ? and # before a line break).
  const cut = uri.search(/[?#]/);
  const path = cut < 0 ? uri : uri.slice(0, cut);
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || uri;
  } catch {
    return last || uri;
  }
}

// The schema's own lists, so that a kept transcript is read with the protocol's names.
const TOOL_KINDS: ReadonlySet<string> = new Set(S.ToolKind.options);
const TOOL_STATUSES: ReadonlySet<string> = new Set(S.ToolCallStatus.options);

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
    if (entry.t === 'compaction') {
      const tokens = {
        ...(entry.before !== undefined ? { tokensBefore: entry.before } : {}),
        ...(entry.after !== undefined ? { tokensAfter: entry.after } : {}),
      };
      model.apply({
        sessionUpdate: 'compaction_update',
        compactionId: entry.id,
        status: entry.status,
        summary: entry.text === '' ? null : [{ type: 'text', text: entry.text }],
        ...(entry.error !== undefined ? { error: entry.error } : {}),
        ...(Object.keys(tokens).length > 0 ? { _meta: tokens } : {}),
      });
      return;
    }
    const links = (entry.links ?? []).map((link): S.ContentBlock => ({ type: 'resource_link', uri: link.uri, name: link.name }));
    if (entry.sent) {
      model.addSent([...(entry.text === '' ? [] : [{ type: 'text' as const, text: entry.text }]), ...links]);
      return;
    }
    const sessionUpdate = entry.t === 'user' ? 'user_message_chunk' : entry.t === 'agent' ? 'agent_message_chunk' : 'agent_thought_chunk';
    // A message id per entry keeps two messages in a row apart, as they were.
    const messageId = `stored-${i}`;
    if (entry.text !== '') model.apply({ sessionUpdate, messageId, content: { type: 'text', text: entry.text } });
    for (const content of links) model.apply({ sessionUpdate, messageId, content });
  });
  if (transcript.plan) model.apply({ sessionUpdate: 'plan', entries: transcript.plan });
  if (transcript.title) model.apply({ sessionUpdate: 'session_info_update', title: transcript.title });
  return model;
}
