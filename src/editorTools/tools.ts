// What an editor tool is, and how a call of one is answered: each with its exact name, a zod schema for its arguments
// (the MCP SDK validates them and lists their JSON schema, see mcp.ts), and an answer bounded to 64 KB, with a note
// saying what was cut. A tool's failure is the agent's to read (an error result), never the host's. Plain Node: no
// `vscode`.
import { z } from 'zod';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import type { LiveGrant } from './grants';

/** The most a tool answers, in bytes of UTF-8 JSON. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A tool that has not answered by then fails (a language server that hangs must not hold the request). */
const TOOL_TIMEOUT_MS = 30_000;

/** What a session's tool calls may reach. */
export interface ToolContext {
  /** The folders paths are taken from and must be inside: the workspace's, or a worktree chat's worktree. */
  readonly folders: readonly string[];
  /** Whether tools may run now (the workspace is trusted) and which ones (`acp.editorTools.tools`). */
  allowed(tool: string): string | undefined;
  /** Review before write: the user accepts or rejects `proposed` for `path`, in a diff (`signal` withdraws it). */
  review(path: string, current: string, proposed: string, signal: AbortSignal): Promise<'accepted' | 'rejected' | 'closed' | 'withdrawn'>;
  /**
   * Asks the user to let a command run, as an agent's own command is asked: the session's rules and level first, else
   * the permission notification and the chat's card (`signal` withdraws the question).
   */
  askToRun(title: string, rawInput: unknown, signal: AbortSignal): Promise<AskedToRun>;
}

/** The user's answer to `askToRun`, and how the chat's card for the command ends. */
export type AskedToRun =
  { readonly allowed: true; finish(ok: boolean, output: string): void } | { readonly allowed: false; readonly why: 'rejected' | 'cancelled' };

/** A tool's answer: a JSON value, or a sentence saying why it could not answer. */
export type ToolAnswer = { readonly value: unknown } | { readonly error: string };

export interface EditorTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly input: Shape;
  /** How long it may take (default 30 s): one that waits for the user waits longer. */
  readonly timeoutMs?: number;
  /** `abandoned`: the answer is no longer awaited (it took too long); stop, and change nothing. */
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext, abandoned: AbortSignal): Promise<ToolAnswer>;
}

/** Declares a tool with its argument types inferred from `input`. */
export function tool<Shape extends z.ZodRawShape>(definition: EditorTool<Shape>): EditorTool {
  return definition as unknown as EditorTool;
}

/** Tool calls of one session running at once, whichever way they came (HTTP, the stdio bridge, MCP over ACP). */
const MAX_CALLS_AT_ONCE = 4;

/** A tool's MCP result: its answer as JSON text, or why it could not answer (an error result, for the agent to read). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/**
 * One call of `t` with arguments its schema already checked, for the session of `grant`, whichever way it came (HTTP,
 * the stdio bridge, MCP over ACP). Logged with its tool and session, never its arguments; `cancelled` aborts when the
 * caller gave up.
 */
export async function callTool(t: EditorTool, args: unknown, grant: LiveGrant, log: Logger, cancelled: AbortSignal): Promise<ToolResult> {
  log.info(`[editor-tools] ${t.name} for ${grant.label()}`);
  const refused =
    grant.context.allowed(t.name) ??
    (grant.calls >= MAX_CALLS_AT_ONCE ? `At most ${MAX_CALLS_AT_ONCE} tool calls run at once; retry when one is answered.` : undefined);
  if (refused) return { content: [{ type: 'text', text: refused }], isError: true };
  // The slot is held until the tool's work ends, even when its answer gave up waiting for it.
  grant.calls++;
  const abandon = new AbortController();
  // The tool stops when its answer is no longer awaited: it took too long, the client cancelled, or the session ended.
  const stop = AbortSignal.any([abandon.signal, cancelled, grant.revoked]);
  const work = Promise.resolve()
    .then(() => t.run(args as never, grant.context, stop))
    .finally(() => grant.calls--);
  const answer = await inTime(t, work, abandon);
  return 'error' in answer
    ? { content: [{ type: 'text', text: answer.error }], isError: true }
    : { content: [{ type: 'text', text: bounded(answer.value) }] };
}

/** The tool's answer, or that it took too long: then `abandon` tells the tool to stop (a review it waits on is withdrawn). */
async function inTime(t: EditorTool, work: Promise<ToolAnswer>, abandon: AbortController): Promise<ToolAnswer> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<ToolAnswer>((resolve) => {
        const ms = t.timeoutMs ?? TOOL_TIMEOUT_MS;
        timer = setTimeout(() => {
          abandon.abort();
          resolve({ error: `${t.name} did not answer within ${ms / 1000} s.` });
        }, ms);
      }),
    ]);
  } catch (error) {
    return { error: `${t.name} failed: ${errorMessage(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `value` as JSON of at most MAX_ANSWER_BYTES. A list too long (the value, or its `items`) keeps as many of its first
 * entries as fit, and says how many were cut; a long string is cut and says so.
 */
export function bounded(value: unknown, limit = MAX_ANSWER_BYTES): string {
  const whole = JSON.stringify(value);
  if (Buffer.byteLength(whole) <= limit) return whole;
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value['items']) ? (value['items'] as unknown[]) : undefined;
  if (list) {
    const wrap = (items: unknown[]) => {
      const note = `${list.length - items.length} of ${list.length} entries were cut: the answer is bounded at ${limit / 1024} KB. Ask for less (one file, a narrower query).`;
      return JSON.stringify(Array.isArray(value) ? { items, cut: note } : { ...(value as object), items, cut: note });
    };
    // The most entries that fit, found by halving.
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (Buffer.byteLength(wrap(list.slice(0, mid))) <= limit) low = mid;
      else high = mid - 1;
    }
    const fitted = wrap(list.slice(0, low));
    if (Buffer.byteLength(fitted) <= limit) return fitted;
  }
  const note = `\n[cut: the answer is bounded at ${limit / 1024} KB]`;
  let text = whole.slice(0, limit);
  while (Buffer.byteLength(text) + Buffer.byteLength(note) > limit) text = text.slice(0, Math.floor(text.length * 0.9));
  return text + note;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 1-based line and column, as ACP's locations and the tools' arguments are. */
export const position = {
  line: z.number().int().min(1).max(10_000_000).describe('1-based line'),
  column: z.number().int().min(1).max(10_000_000).describe('1-based column'),
};

/** A path argument: workspace-relative, or absolute inside the session's folders. */
export const pathArg = z.string().min(1).max(4096).describe('A workspace-relative path, or an absolute path inside the workspace');
