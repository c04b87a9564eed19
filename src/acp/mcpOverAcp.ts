// MCP over ACP (unstable, schema.unstable.json): MCP servers the client provides through the ACP connection itself,
// for an agent that advertises `mcpCapabilities.acp`. The client declares `{type: "acp", name, serverId}` in a
// session's `mcpServers`; the agent then sends each MCP request as an `mcp/message` request naming that server, and
// gets the inner MCP outcome (`{result}` or `{error}`) as the answer. What the server tells the agent for a request
// still running (progress) goes back as an `mcp/message` notification. The inner protocol is MCP 2026-07-28, the one
// revision the binding takes: each request is whole by itself (its `_meta` says the version and the caller's
// capabilities), so nothing lives between requests.
//
// This is the binding's router, one per connection: a server is registered for a session and released with it; a
// request for a server that is not (or no longer) registered, a second one with an id still running, or one past a
// server's bound is refused with the binding's own outer error codes, as the SDK's provider refuses them.
import { z } from 'zod';
import { AcpError, ErrorCodes } from './errors';
import type { Logger } from './log';
import { lenient } from './tolerance';

export const MCP_MESSAGE_METHOD = 'mcp/message';
/** The only MCP revision the binding carries. */
const MCP_PROTOCOL_VERSION = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** The binding's outer error codes: never an inner MCP error, which travels in a successful answer. */
export const McpBindingErrors = {
  /** A malformed envelope, or a request id that is already running for the server. */
  invalidParams: ErrorCodes.InvalidParams,
  /** Too many requests running for one server. */
  resourceLimitExceeded: -33000,
  /** No server is registered under the id (it was never declared on this connection, or its session ended). */
  serverUnavailable: -33001,
  /** The server failed without an MCP outcome. */
  backendFailed: -33002,
} as const;

const Id = z.string().min(1).max(1024);
const JsonObject = z.record(z.string(), z.unknown());

/** An MCP server the client declares in a session's `mcpServers`, served through `mcp/message`. */
export const McpServerAcp = z.looseObject({ type: z.literal('acp'), name: z.string(), serverId: Id });
export type McpServerAcp = z.output<typeof McpServerAcp>;

export const McpMessageRequest = z.looseObject({
  serverId: Id,
  requestId: Id,
  method: z.string().min(1).max(256),
  params: JsonObject.nullish(),
  _meta: lenient(JsonObject.nullish()),
});
export type McpMessageRequest = z.output<typeof McpMessageRequest>;

const McpErrorObject = z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
/** The inner MCP outcome: exactly one of a result (JSON null included) or an MCP error. */
export const McpOutcome = z.union([z.looseObject({ result: z.unknown() }), z.looseObject({ error: McpErrorObject })]);
export type McpOutcome = { readonly result: unknown } | { readonly error: z.output<typeof McpErrorObject> };

/** What the client tells the agent for a request still running (an MCP progress notification, say). */
export interface McpMessageNotification {
  readonly serverId: string;
  readonly requestId: string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** One MCP request, for a registered server to answer. */
interface McpCall {
  readonly serverId: string;
  readonly requestId: string;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: unknown;
  readonly envelopeMeta: Record<string, unknown> | undefined;
  /** Aborts when the agent cancels the request, the server is released or the connection closes. */
  readonly signal: AbortSignal;
  /** Tells the agent something about this request while it runs; nothing is sent once it has been answered. */
  notify(method: string, params?: Record<string, unknown> | null): Promise<void>;
}

/** A registered server: answers each request with its inner MCP outcome. */
export type McpServe = (call: McpCall) => Promise<McpOutcome>;

/** Requests of one server served at once; past it, the agent is told the bound (-33000). */
const MAX_ACTIVE_PER_SERVER = 8;
/** An MCP request's params past this are refused (-33000): tool arguments are a path, a position, a query. */
const MAX_PARAMS_BYTES = 256 * 1024;

/** A refusal of the binding's own: its code stands. Any other error a server throws is the server's failure (-33002). */
class BindingError extends AcpError {}

interface Registered {
  readonly serve: McpServe;
  readonly active: Set<string>;
  readonly released: AbortController;
}

export class McpOverAcp {
  private readonly servers = new Map<string, Registered>();
  /** Every id registered on this connection: the schema says an id is never reused on one. */
  private readonly used = new Set<string>();

  constructor(
    /** Sends an `mcp/message` notification to the agent. */
    private readonly send: (notification: McpMessageNotification) => Promise<void>,
    private readonly log: Logger,
  ) {}

  /**
   * Serves `serverId` from now until the returned release: then its running requests are cancelled (-32800), and
   * later ones refused (-33001).
   */
  register(serverId: string, serve: McpServe): { release(): void } {
    if (this.used.has(serverId)) throw new Error(`an MCP server ${serverId} was already registered on this connection`);
    this.used.add(serverId);
    const entry: Registered = { serve, active: new Set(), released: new AbortController() };
    this.servers.set(serverId, entry);
    return {
      release: () => {
        if (this.servers.get(serverId) !== entry) return;
        this.servers.delete(serverId);
        entry.released.abort(new AcpError(ErrorCodes.RequestCancelled, 'the MCP server was released'));
      },
    };
  }

  /** Answers one `mcp/message` request: its inner outcome, or a binding error (thrown as an AcpError). */
  async serve(request: McpMessageRequest, signal: AbortSignal): Promise<McpOutcome> {
    const { serverId, requestId, method } = request;
    const server = this.servers.get(serverId);
    if (!server) throw new BindingError(McpBindingErrors.serverUnavailable, 'MCP server registration unavailable', { serverId });
    if (server.active.has(requestId))
      throw new BindingError(McpBindingErrors.invalidParams, 'duplicate active MCP request id', { serverId, requestId });
    if (server.active.size >= MAX_ACTIVE_PER_SERVER) {
      throw new BindingError(McpBindingErrors.resourceLimitExceeded, `at most ${MAX_ACTIVE_PER_SERVER} MCP requests of one server run at once`, {
        serverId,
      });
    }
    const params = request.params ?? undefined;
    if (params && Buffer.byteLength(JSON.stringify(params)) > MAX_PARAMS_BYTES) {
      throw new BindingError(McpBindingErrors.resourceLimitExceeded, `an MCP request's params are at most ${MAX_PARAMS_BYTES} bytes`, { serverId });
    }
    const meta = params?.['_meta'];
    const version = isObject(meta) ? meta[META_VERSION] : undefined;
    const capabilities = isObject(meta) ? meta[META_CAPABILITIES] : undefined;
    if (typeof version !== 'string') return invalidParams(`missing ${META_VERSION} in params._meta`);
    if (version !== MCP_PROTOCOL_VERSION) {
      return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MCP_PROTOCOL_VERSION], requested: version } } };
    }
    if (!isObject(capabilities)) return invalidParams(`missing ${META_CAPABILITIES} in params._meta`);
    server.active.add(requestId);
    const stop = AbortSignal.any([signal, server.released.signal]);
    let answered = false;
    try {
      const outcome = await server.serve({
        serverId,
        requestId,
        method,
        params,
        protocolVersion: version,
        clientCapabilities: capabilities,
        clientInfo: isObject(meta) ? meta['io.modelcontextprotocol/clientInfo'] : undefined,
        envelopeMeta: request._meta ?? undefined,
        signal: stop,
        // Nothing once the request is answered or given up (a cancel is answered at once, before the server stops).
        notify: async (inner, innerParams) => {
          if (answered || stop.aborted) return;
          await this.send({ serverId, requestId, method: inner, ...(innerParams == null ? {} : { params: innerParams }) });
        },
      });
      const valid = validOutcome(outcome);
      if (!valid) throw new BindingError(McpBindingErrors.backendFailed, 'the MCP server gave no valid outcome');
      return valid;
    } catch (error) {
      // Cancelled by the agent, or by the release of its server (its session ended, the connection closed).
      if (stop.aborted) throw new AcpError(ErrorCodes.RequestCancelled, 'the MCP request was cancelled');
      if (error instanceof BindingError) throw error;
      this.log.warn(`[mcp] ${method} for ${serverId} failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new BindingError(McpBindingErrors.backendFailed, 'the MCP server failed');
    } finally {
      answered = true;
      server.active.delete(requestId);
    }
  }

  /** The connection ended: every server is released. */
  dispose(): void {
    for (const [serverId, entry] of [...this.servers]) {
      this.servers.delete(serverId);
      entry.released.abort(new AcpError(ErrorCodes.RequestCancelled, 'the connection closed'));
    }
  }
}

/** Exactly one of a defined result or a valid MCP error, as the binding asks of a sender; undefined otherwise. */
function validOutcome(outcome: unknown): McpOutcome | undefined {
  if (!isObject(outcome)) return undefined;
  const hasResult = Object.hasOwn(outcome, 'result') && outcome['result'] !== undefined;
  const hasError = Object.hasOwn(outcome, 'error');
  if (hasResult === hasError) return undefined;
  if (hasResult) return { result: outcome['result'] };
  const error = McpErrorObject.safeParse(outcome['error']);
  return error.success ? { error: error.data } : undefined;
}

function invalidParams(message: string): McpOutcome {
  return { error: { code: ErrorCodes.InvalidParams, message: `Invalid params: ${message}` } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
