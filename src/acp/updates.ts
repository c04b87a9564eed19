// Reading `session/update` notifications: the hot path of every streaming turn.
//
// Text chunks, plain tool calls and their updates, usage and plans take a fast path that accepts a message only when the full zod schema
// would accept it unchanged; anything else (an unusual field, a wrong type, content arrays) goes to the schema,
// which decides. So the fast path is exactly as strict, and a property test holds it to that.
import * as S from './schema.gen';
import { mapLegacyToolCall } from './quirks';
import { parseTolerant, preview } from './tolerance';

// The legacy mapping lives with the other agent quirks; connection.ts still imports it from here.
export { mapLegacyToolCall };

export type UpdateOutcome =
  | { readonly ok: true; readonly value: S.SessionNotification; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly skipped: 'unknown-kind' | 'invalid'; readonly reason: string; readonly warnings: readonly string[] };

const NO_WARNINGS: readonly string[] = [];

/** The `sessionUpdate` kinds of ACP v1. */
export const UPDATE_KINDS: ReadonlySet<string> = new Set(S.SessionUpdate.options.map((o) => o.shape.sessionUpdate.value as string));

const TOOL_STATUS = new Set<string>(S.ToolCallStatus.options);
const TOOL_KIND = new Set<string>(S.ToolKind.options);
const PLAN_PRIORITY = new Set<string>(S.PlanEntryPriority.options);
const PLAN_STATUS = new Set<string>(S.PlanEntryStatus.options);

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMeta = (v: unknown) => v === undefined || v === null || isObject(v);
const isOptString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** A text block of only `type` and `text`: annotations and `_meta` on a block take the slow path. */
function plainText(content: unknown): boolean {
  if (!isObject(content) || content['type'] !== 'text' || typeof content['text'] !== 'string') return false;
  for (const key in content) if (key !== 'type' && key !== 'text') return false;
  return true;
}

function fastText(update: Obj): boolean {
  return plainText(update['content']) && isOptString(update['messageId']) && isMeta(update['_meta']);
}

/** A tool call's content: text, diffs and terminals as the schema takes them, every item whole. */
function fastContent(items: unknown): boolean {
  if (!Array.isArray(items)) return false;
  for (const item of items) {
    if (!isObject(item) || !isMeta(item['_meta'])) return false;
    switch (item['type']) {
      case 'content':
        if (!plainText(item['content'])) return false;
        break;
      case 'diff':
        if (typeof item['path'] !== 'string' || typeof item['newText'] !== 'string' || !isOptString(item['oldText'])) return false;
        break;
      case 'terminal':
        if (typeof item['terminalId'] !== 'string') return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function fastLocations(items: unknown): boolean {
  if (!Array.isArray(items)) return false;
  for (const item of items) {
    if (!isObject(item) || typeof item['path'] !== 'string' || !isMeta(item['_meta'])) return false;
    const line = item['line'];
    if (!(line === undefined || line === null || (Number.isSafeInteger(line) && (line as number) >= 0))) return false;
  }
  return true;
}

/**
 * A `tool_call` (`announce`) or `tool_call_update` the schema would take unchanged. Where the schema reads null as
 * absent (status, kind, content and locations of a tool_call, raw input and output), or content holds more than
 * text, diffs and terminals, the update takes the slow path.
 */
function fastTool(update: Obj, announce: boolean): boolean {
  if (typeof update['toolCallId'] !== 'string' || (announce && typeof update['title'] !== 'string')) return false;
  for (const key in update) {
    const v = update[key];
    switch (key) {
      case 'status':
        if (!((v === null && !announce) || (typeof v === 'string' && TOOL_STATUS.has(v)))) return false;
        break;
      case 'kind':
        if (!((v === null && !announce) || (typeof v === 'string' && TOOL_KIND.has(v)))) return false;
        break;
      case 'title':
      case 'name':
        if (!isOptString(v)) return false;
        break;
      case '_meta':
        if (!isMeta(v)) return false;
        break;
      case 'rawInput':
      case 'rawOutput':
        if (v === null) return false;
        break;
      case 'content':
        if (v === null ? announce : !fastContent(v)) return false;
        break;
      case 'locations':
        if (v === null ? announce : !fastLocations(v)) return false;
        break;
      case 'id':
      case 'arguments':
      case 'output':
        return false; // older names: mapped on the slow path (quirks.ts)
      default:
        break; // unknown fields are kept, as the schema keeps them
    }
  }
  return true;
}

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function fastUsage(update: Obj): boolean {
  if (!isCount(update['used']) || !isCount(update['size']) || !isMeta(update['_meta'])) return false;
  const cost = update['cost'];
  if (cost === undefined || cost === null) return true;
  return isObject(cost) && typeof cost['amount'] === 'number' && typeof cost['currency'] === 'string' && isMeta(cost['_meta']);
}

function fastPlan(update: Obj): boolean {
  const entries = update['entries'];
  if (!Array.isArray(entries) || !isMeta(update['_meta'])) return false;
  for (const e of entries) {
    if (!isObject(e) || typeof e['content'] !== 'string' || !isMeta(e['_meta'])) return false;
    const { priority, status } = e;
    if (typeof priority !== 'string' || !PLAN_PRIORITY.has(priority) || typeof status !== 'string' || !PLAN_STATUS.has(status)) return false;
  }
  return true;
}

const fastToolUpdate = (update: Obj) => fastTool(update, false);
const fastToolCall = (update: Obj) => fastTool(update, true);

/**
 * The check that accepts an update of `kind` only when the schema would accept it unchanged, or undefined for kinds
 * that only the schema reads. A switch, not a table: it compares the kind with ===, where a keyed lookup would intern
 * (hash) the kind JSON.parse just made, for every update on the streaming path.
 */
function fastCheck(kind: string): ((update: Obj) => boolean) | undefined {
  switch (kind) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
    case 'user_message_chunk':
      return fastText;
    case 'tool_call_update':
      return fastToolUpdate;
    case 'tool_call':
      return fastToolCall;
    case 'usage_update':
      return fastUsage;
    case 'plan':
      return fastPlan;
    default:
      return undefined;
  }
}

/**
 * The update, when the fast path takes it as the schema would (text chunks, plain tool calls and their updates,
 * usage, plans); undefined when only the schema can say. v2 reads its kinds that v1 shares this way too (v2/updates.ts).
 */
export function fastSessionUpdate(params: unknown): S.SessionNotification | undefined {
  if (!isObject(params) || !isObject(params['update']) || typeof params['sessionId'] !== 'string' || !isMeta(params['_meta'])) return undefined;
  const kind = params['update']['sessionUpdate'];
  return typeof kind === 'string' && fastCheck(kind)?.(params['update']) === true ? (params as S.SessionNotification) : undefined;
}

/** Validates one `session/update` params object. Never throws. */
export function readSessionUpdate(params: unknown): UpdateOutcome {
  if (!isObject(params) || !isObject(params['update'])) {
    return { ok: false, skipped: 'invalid', reason: `not a session update: ${preview(params)}`, warnings: NO_WARNINGS };
  }
  let update = params['update'];
  const kind = update['sessionUpdate'];
  if (typeof kind === 'string' && typeof params['sessionId'] === 'string' && isMeta(params['_meta']) && fastCheck(kind)?.(update) === true) {
    return { ok: true, value: params as S.SessionNotification, warnings: NO_WARNINGS };
  }
  if (typeof kind !== 'string' || !UPDATE_KINDS.has(kind)) {
    return { ok: false, skipped: 'unknown-kind', reason: `unknown session update kind ${preview(kind)}`, warnings: NO_WARNINGS };
  }
  if (kind === 'tool_call' || kind === 'tool_call_update') {
    const mapped = mapLegacyToolCall(update);
    if (mapped !== update) {
      update = mapped;
      params = { ...params, update };
    }
  }
  const r = parseTolerant(S.SessionNotification, params);
  return r.ok
    ? { ok: true, value: r.value, warnings: r.warnings }
    : { ok: false, skipped: 'invalid', reason: `invalid ${kind}: ${r.error}`, warnings: r.warnings };
}
