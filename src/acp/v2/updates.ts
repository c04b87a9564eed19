// Reading a v2 agent's `session/update`: validated against the v2 schema, then said in the terms the session model
// already knows (v1's updates where v2 means the same), or as one of the few events v2 adds: a whole message, content
// appended to a tool call, the session's state (which ends a turn in v2), and the agent's own terminals. Pure.
import { parsePatch } from 'diff';
import type { z } from 'zod';
import type { PlanByIdUpdate } from '../plans';
import * as S1 from '../schema.gen';
import type { MessageRole } from '../sessionState';
import { clip } from '../text';
import { parseTolerant, preview } from '../tolerance';
import { turnUsageOf, type TurnUsage } from '../turnUsage';
import { fastSessionUpdate } from '../updates';
import * as S from './schema.gen';
import { commandsOf, configOptions } from './wire';

/** One piece of work the agent says runs on outside the foreground (the latest `background` list). */
export interface BackgroundRef {
  /**
   * `subagent` (unstable): a child session the agent announced (`subagent_update`). A kind of a later version is work
   * all the same, which only the agent can stop.
   */
  readonly type: 'terminal' | 'tool_call' | 'subagent' | 'other';
  /** The terminal's, the tool call's or the child session's id; for another kind, its type and position. */
  readonly id: string;
}

/** What a v2 update means for a session. */
export type V2Event =
  /** Means what the v1 update means. */
  | { readonly type: 'update'; readonly update: S1.SessionUpdate; readonly cancellable?: boolean }
  /** A message whole (an upsert by id): `content` replaces what the message held; null clears it. */
  | { readonly type: 'message'; readonly role: MessageRole; readonly messageId: string; readonly content: S1.ContentBlock[] | null | undefined }
  /** Content appended to a tool call. */
  | { readonly type: 'toolContent'; readonly toolCallId: string; readonly content: S1.ToolCallContent[] }
  /** The session's state. Idle ends the foreground turn, with its stop reason (`error` says why in `error`). */
  | {
      readonly type: 'state';
      readonly state: 'running' | 'idle' | 'requires_action';
      readonly stopReason?: S1.StopReason;
      readonly error?: string;
      /** The error's code (-32000: sign-in required), where the agent gave one, and its data (turnFailure.ts reads it). */
      readonly errorCode?: number;
      readonly errorData?: unknown;
      /** What the turn used, where the agent says (claude-agent-acp: `usage` on the idle update). */
      readonly usage?: TurnUsage;
      /** The latest list of work that runs on; absent: unchanged. */
      readonly background?: readonly BackgroundRef[];
    }
  /** One of the agent's own terminals: what it runs, output (decoded), how it ended, whether it may be cancelled. */
  | {
      readonly type: 'terminal';
      readonly terminalId: string;
      readonly command?: string;
      /** Bytes: a character may be split between two chunks (the model decodes each terminal's as a stream). */
      readonly output?: Uint8Array;
      /** `output` is added to what the terminal printed (a chunk); else it replaces it. */
      readonly chunk?: true;
      readonly exitStatus?: S1.TerminalExitStatus;
      readonly cancellable?: boolean;
    }
  /** A plan by id (v2's only plans). */
  | { readonly type: 'plan'; readonly update: PlanByIdUpdate };

export type V2Outcome =
  | { readonly ok: true; readonly sessionId: string; readonly event: V2Event; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly warnings: readonly string[] };

const NO_WARNINGS: readonly string[] = [];

/** Items of a `background` list kept; characters of a command line. */
const MAX_BACKGROUND = 1000;
const COMMAND_LIMIT = 500;
/** Characters of a patch read into a diff; past it the patch is shown as text. */
const PATCH_LIMIT = 1024 * 1024;

/**
 * The kinds v2 shares with v1 whose v1 fast path (../updates.ts) reads v2's shape exactly as v2's schema would: chunks
 * with their (required) message id, usage, and tool call updates with no null (v2's null resets, v1's leaves) and no
 * capabilities. Everything else goes to the v2 schema.
 */
function fastV2(params: unknown): S1.SessionNotification | undefined {
  const update = (params as { update?: Record<string, unknown> } | null)?.update;
  if (typeof update !== 'object' || update === null) return undefined;
  switch (update['sessionUpdate']) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
    case 'user_message_chunk':
      return typeof update['messageId'] === 'string' ? fastSessionUpdate(params) : undefined;
    case 'usage_update':
      return fastSessionUpdate(params);
    case 'tool_call_update':
      for (const key of ['status', 'kind', 'title', 'content', 'locations']) if (update[key] === null) return undefined;
      // A diff is v2's own shape (the v2 schema reads it), and so are the capabilities; v2's lines start at 1.
      if ('capabilities' in update || (Array.isArray(update['content']) && update['content'].some((c: { type?: unknown }) => c?.type === 'diff'))) {
        return undefined;
      }
      if (Array.isArray(update['locations']) && update['locations'].some((l: { line?: unknown }) => l?.line === 0)) return undefined;
      return fastSessionUpdate(params);
    default:
      return undefined;
  }
}

/**
 * The schema of each v2 update kind (the members of the schema's `SessionUpdate`): an update is read by its kind's
 * schema alone, as the union would read it, without trying every member first.
 */
export const V2_UPDATE_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  user_message_chunk: S.ContentChunk,
  user_message: S.UserMessage,
  agent_message_chunk: S.ContentChunk,
  agent_message: S.AgentMessage,
  agent_thought_chunk: S.ContentChunk,
  agent_thought: S.AgentThought,
  state_update: S.StateUpdate,
  tool_call_content_chunk: S.ToolCallContentChunk,
  tool_call_update: S.ToolCallUpdate,
  terminal_update: S.TerminalUpdate,
  terminal_output_chunk: S.TerminalOutputChunk,
  plan_update: S.PlanUpdate,
  available_commands_update: S.AvailableCommandsUpdate,
  config_option_update: S.ConfigOptionUpdate,
  session_info_update: S.SessionInfoUpdate,
  usage_update: S.UsageUpdate,
  notice: S.Notice,
  compaction_update: S.CompactionUpdate,
  compaction_summary_chunk: S.CompactionSummaryChunk,
};

/** Validates and reads one v2 `session/update`. Never throws. */
export function readV2Update(params: unknown): V2Outcome {
  const fast = fastV2(params);
  if (fast) return { ok: true, sessionId: fast.sessionId, event: { type: 'update', update: fast.update }, warnings: NO_WARNINGS };
  const p = params as { sessionId?: unknown; update?: unknown } | null;
  const update = p?.update as { sessionUpdate?: unknown } | null | undefined;
  if (typeof p?.sessionId !== 'string' || typeof update !== 'object' || update === null) {
    return { ok: false, reason: `not a session update: ${preview(params)}`, warnings: NO_WARNINGS };
  }
  const kind = update.sessionUpdate;
  const schema = typeof kind === 'string' ? V2_UPDATE_SCHEMAS[kind] : undefined;
  if (!schema) return { ok: false, reason: `unknown session update kind ${preview(kind)}`, warnings: NO_WARNINGS };
  const r = parseTolerant(schema, update);
  if (!r.ok) return { ok: false, reason: `invalid ${clip(kind as string, 100)}: ${r.error}`, warnings: r.warnings };
  const event = eventOf({ ...(r.value as object), sessionUpdate: kind } as S.SessionUpdate);
  if (!event) return { ok: false, reason: `unknown session update kind ${preview(kind)}`, warnings: r.warnings };
  return { ok: true, sessionId: p.sessionId, event, warnings: r.warnings };
}

const MESSAGE_ROLE: Readonly<Record<string, MessageRole>> = { user_message: 'user', agent_message: 'agent', agent_thought: 'thought' };
const STOP_REASONS: ReadonlySet<string> = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

function eventOf(update: S.SessionUpdate): V2Event | undefined {
  const u = update as S.SessionUpdate & Record<string, unknown>;
  switch (u.sessionUpdate) {
    case 'available_commands_update': {
      // A command of a later kind (not `type: "command"`) is not offered.
      const { availableCommands = [] } = commandsOf((u as unknown as S.AvailableCommandsUpdate).availableCommands);
      return { type: 'update', update: { sessionUpdate: 'available_commands_update', availableCommands } };
    }
    case 'config_option_update': {
      // Read by v1's schema in v1's names: what it cannot show is dropped.
      const r = parseTolerant(S1.ConfigOptionUpdate, { configOptions: configOptions((u as unknown as S.ConfigOptionUpdate).configOptions) });
      return r.ok ? { type: 'update', update: { sessionUpdate: 'config_option_update', configOptions: r.value.configOptions } } : undefined;
    }
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
    case 'session_info_update':
    case 'usage_update':
    case 'notice':
    case 'compaction_update':
    case 'compaction_summary_chunk':
      // The same shapes as v1's (the chunks' messageId is required in v2, optional in v1).
      return { type: 'update', update: u as unknown as S1.SessionUpdate };
    case 'user_message':
    case 'agent_message':
    case 'agent_thought': {
      const m = u as unknown as S.UserMessage;
      return {
        type: 'message',
        role: MESSAGE_ROLE[u.sessionUpdate]!,
        messageId: m.messageId,
        content: m.content as S1.ContentBlock[] | null | undefined,
      };
    }
    case 'tool_call_update':
      return toolCall(u as unknown as S.ToolCallUpdate);
    case 'tool_call_content_chunk': {
      const c = u as unknown as S.ToolCallContentChunk;
      return { type: 'toolContent', toolCallId: c.toolCallId, content: toolContent([c.content]) };
    }
    case 'state_update':
      return state(u as unknown as S.StateUpdate);
    case 'terminal_update':
      return terminal(u as unknown as S.TerminalUpdate);
    case 'terminal_output_chunk': {
      const c = u as unknown as S.TerminalOutputChunk;
      return { type: 'terminal', terminalId: c.terminalId, output: decode(c.data), chunk: true };
    }
    case 'plan_update': {
      const plan = (u as unknown as S.PlanUpdate).plan as { type: string; planId: string; entries?: unknown[] };
      if (plan.type !== 'items') return undefined; // a later kind of plan: nothing to show yet
      return { type: 'plan', update: { sessionUpdate: 'plan_update', plan: { type: 'items', planId: plan.planId, entries: plan.entries ?? [] } } };
    }
    default:
      return undefined;
  }
}

const TOOL_STATUS: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'failed', 'cancelled']);
const TOOL_KIND: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/**
 * A tool call upsert, in v1's terms: null resets the status to `pending` and the kind to `other`; `paused` and a
 * status of a later version count as in progress, an unknown kind as `other`.
 */
function toolCall(update: S.ToolCallUpdate): V2Event {
  const event: V2Event = { type: 'update', update: { ...toolCallUpdate(update), sessionUpdate: 'tool_call_update' } };
  return update.capabilities === undefined ? event : { ...event, cancellable: update.capabilities?.cancel != null };
}

/** A v2 tool call (an update, or a permission's subject) in v1's terms. */
export function toolCallUpdate(update: S.ToolCallUpdate): S1.ToolCallUpdate {
  const { capabilities: _capabilities, content, status, kind, locations, ...rest } = update;
  return {
    ...rest,
    ...(status !== undefined && { status: status === null ? 'pending' : TOOL_STATUS.has(status) ? status : 'in_progress' }),
    ...(kind !== undefined && { kind: kind !== null && TOOL_KIND.has(kind) ? kind : 'other' }),
    ...(content !== undefined && { content: content === null ? [] : toolContent(content) }),
    ...(locations !== undefined && { locations: locations ?? [] }),
  } as S1.ToolCallUpdate;
}

function state(update: S.StateUpdate): V2Event | undefined {
  const u = update as {
    state: string;
    stopReason?: string | null;
    error?: { message?: unknown; code?: unknown } | null;
    background?: unknown[] | null;
  };
  // A state of a later version is neither idle nor known: nothing changes.
  if (u.state !== 'running' && u.state !== 'idle' && u.state !== 'requires_action') return undefined;
  const background = Array.isArray(u.background) ? backgroundRefs(u.background) : undefined;
  const base = { type: 'state', state: u.state, ...(background && { background }) } as const;
  if (u.state !== 'idle') return base;
  const usage = turnUsageOf(update);
  if (u.stopReason === 'error') {
    const message = typeof u.error?.message === 'string' && u.error.message !== '' ? u.error.message : 'the agent stopped with an error';
    const code = u.error?.code;
    const data = (u.error as { data?: unknown } | undefined)?.data;
    return {
      ...base,
      error: clip(message, 2000),
      ...(Number.isSafeInteger(code) && { errorCode: code as number }),
      ...(data !== undefined && { errorData: data }),
      ...(usage && { usage }),
    };
  }
  // A stop reason of a later version (or none) ends the turn as an end_turn would.
  const stopReason = (STOP_REASONS.has(u.stopReason ?? '') ? u.stopReason : 'end_turn') as S1.StopReason;
  return { ...base, stopReason, ...(usage && { usage }) };
}

function backgroundRefs(items: readonly unknown[]): BackgroundRef[] {
  const refs: BackgroundRef[] = [];
  items.slice(0, MAX_BACKGROUND).forEach((item, index) => {
    const i = item as { type?: unknown; terminalId?: unknown; toolCallId?: unknown; sessionId?: unknown };
    if (i.type === 'terminal' && typeof i.terminalId === 'string') refs.push({ type: 'terminal', id: i.terminalId });
    else if (i.type === 'tool_call' && typeof i.toolCallId === 'string') refs.push({ type: 'tool_call', id: i.toolCallId });
    else if (i.type === 'subagent' && typeof i.sessionId === 'string') refs.push({ type: 'subagent', id: clip(i.sessionId, 1000) });
    else if (typeof i.type === 'string') refs.push({ type: 'other', id: `${clip(i.type, 100)}#${index}` });
  });
  return refs;
}

function terminal(update: S.TerminalUpdate): V2Event {
  const exit = update.exitStatus;
  return {
    type: 'terminal',
    terminalId: update.terminalId,
    ...(update.command != null && { command: clip(update.command, COMMAND_LIMIT) }),
    ...(update.output != null && { output: decode(update.output.data) }),
    ...(exit != null && {
      exitStatus: { exitCode: exit.exitCode != null && exit.exitCode >= 0 ? exit.exitCode : null, signal: exit.signal ?? null },
    }),
    ...(update.capabilities !== undefined && { cancellable: update.capabilities?.cancel != null }),
  };
}

/** Terminal output is base64 in v2 (what is not base64 decodes to what its base64 characters say). */
function decode(data: string): Uint8Array {
  return Buffer.from(data, 'base64');
}

/** v2's tool call content in v1's terms: a diff's patch becomes one v1 diff per file; unknown kinds are skipped. */
function toolContent(items: readonly S.ToolCallContent[]): S1.ToolCallContent[] {
  const out: S1.ToolCallContent[] = [];
  for (const item of items) {
    if (item.type === 'content') out.push(item as unknown as S1.ToolCallContent);
    else if (item.type === 'terminal') out.push({ type: 'terminal', terminalId: (item as S.Terminal).terminalId });
    else if (item.type === 'diff') out.push(...diffs(item as unknown as S.Diff));
  }
  return out;
}

/**
 * A v2 diff: the files it changes, and a unified patch. Each file of the patch becomes a v1 diff of its hunks (the
 * lines around each change, `@@` lines between hunks); a file with no patch, or a patch that does not parse, is
 * said in words.
 */
function diffs(diff: S.Diff): S1.ToolCallContent[] {
  const byPath = new Map<string, { oldText: string[]; newText: string[] }>();
  const text = diff.patch?.text;
  if (text && text.length <= PATCH_LIMIT) {
    try {
      for (const file of parsePatch(text)) {
        // git_patch names files absolute, with no a/ or b/; a patch of another tool may use them.
        const path = (file.newFileName && file.newFileName !== '/dev/null' ? file.newFileName : file.oldFileName)?.replace(/^[ab]\/(?=.)/, '');
        if (!path) continue;
        const sides = { oldText: [] as string[], newText: [] as string[] };
        file.hunks.forEach((hunk, i) => {
          if (i > 0) for (const side of [sides.oldText, sides.newText]) side.push('⋯');
          for (const line of hunk.lines) {
            if (line.startsWith('\\')) continue; // "\ No newline at end of file"
            if (line[0] !== '+') sides.oldText.push(line.slice(1));
            if (line[0] !== '-') sides.newText.push(line.slice(1));
          }
        });
        byPath.set(path, sides);
      }
    } catch {
      byPath.clear();
    }
  }
  const out: S1.ToolCallContent[] = [];
  for (const change of diff.changes) {
    const c = change as { operation: string; path?: string; oldPath?: string };
    if (typeof c.path !== 'string') continue;
    const hunks = byPath.get(c.path) ?? (c.oldPath ? byPath.get(c.oldPath) : undefined) ?? findBySuffix(byPath, c.path);
    if (hunks) {
      const added = c.operation === 'add';
      out.push({
        type: 'diff',
        path: c.path,
        oldText: added ? null : hunks.oldText.join('\n'),
        newText: c.operation === 'delete' ? '' : hunks.newText.join('\n'),
      });
    } else {
      const words = c.oldPath ? `${c.operation} ${c.oldPath} → ${c.path}` : `${c.operation} ${c.path}`;
      out.push({ type: 'content', content: { type: 'text', text: words } });
    }
  }
  return out;
}

/** A patch names files relative to a root (`a/src/x.ts`); the change names them absolute. */
function findBySuffix(byPath: ReadonlyMap<string, { oldText: string[]; newText: string[] }>, path: string) {
  const normalized = path.replace(/\\/g, '/');
  for (const [name, sides] of byPath) if (normalized.endsWith(`/${name.replace(/\\/g, '/')}`)) return sides;
  return undefined;
}
