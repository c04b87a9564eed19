// What the agent asks of the client and tells it: its requests, validated, bounded per session and served by the
// host's ClientHandler (aborted when the agent cancels one or the connection closes), and its notifications, read
// and routed. The other half of the connection (connection.ts) sends the client's requests.
import { ResponseError, type CancellationToken } from 'vscode-jsonrpc/node';
import type { z } from 'zod';
import { readAdapterAuthStatus, readAuthStatus, type AuthStatus } from './authStatus';
import { AcpError, ErrorCodes, errorMessage } from './errors';
import type { Logger } from './log';
import {
  ClientMethods,
  ClientNotifications,
  ENDING_METHODS,
  UnstableClientMethods,
  UnstableNotifications,
  ExtensionNotifications,
  WAITING_METHODS,
  type ClientMethodName,
  type RequestDef,
} from './methods';
import type * as S from './schema.gen';
import { PLAN_BY_ID_KINDS, PlanByIdUpdate } from './plans';
import { QuotaUpdate } from './quota';
import { INTER_SESSION_KINDS, InterSessionUpdate } from './sessionMessages';
import { SubagentUpdate } from './subagents';
import { parseTolerant, preview } from './tolerance';
import { COALESCED_METHOD, type CoalescedParams } from './transport';
import { mapLegacyToolCall, readSessionUpdate } from './updates';
import { ClientMethodsV2, ClientNotificationsV2 } from './v2/methods';
import { permissionRequest } from './v2/requests';
import { readV2Update, type V2Event } from './v2/updates';

type Params<D extends RequestDef> = z.output<D['params']>;
type Result<D extends RequestDef> = z.output<D['result']>;
const SERVED = { ...ClientMethods, ...UnstableClientMethods };
type ClientDef<K extends ClientMethodName> = (typeof SERVED)[K];

/** Serves one agent→client request. The signal aborts when the agent cancels it or the connection closes. */
type RequestHandler<K extends ClientMethodName> = (params: Params<ClientDef<K>>, signal: AbortSignal) => Promise<Result<ClientDef<K>>>;

/**
 * What the host implements for the agent. Optional methods that are left out are not advertised in
 * `clientCapabilities`, and the agent gets -32601 if it calls them anyway.
 */
export interface ClientHandler {
  requestPermission: RequestHandler<'requestPermission'>;
  readTextFile?: RequestHandler<'readTextFile'>;
  writeTextFile?: RequestHandler<'writeTextFile'>;
  createTerminal?: RequestHandler<'createTerminal'>;
  terminalOutput?: RequestHandler<'terminalOutput'>;
  releaseTerminal?: RequestHandler<'releaseTerminal'>;
  waitForTerminalExit?: RequestHandler<'waitForTerminalExit'>;
  killTerminal?: RequestHandler<'killTerminal'>;
  createElicitation?: RequestHandler<'createElicitation'>;
  /** Unstable: MCP over ACP (mcpOverAcp.ts), for the servers the client declared on this connection. */
  mcpMessage?: RequestHandler<'mcpMessage'>;
  /** A valid `session/update`; unknown kinds and invalid updates are logged and never reach here. */
  sessionUpdate(notification: S.SessionNotification): void;
  completeElicitation?(notification: S.CompleteElicitationNotification): void;
  /** Unstable: a parent session announced a child or patched it (see subagents.ts). */
  subagentUpdate?(parentSessionId: string, update: SubagentUpdate): void;
  /** Unstable, with subagents: a message sent to or received from another session (see sessionMessages.ts). */
  sessionMessage?(sessionId: string, update: InterSessionUpdate): void;
  /** Unstable, with `plan`: a plan by id updated or removed (see plans.ts). */
  planById?(sessionId: string, update: PlanByIdUpdate): void;
  /**
   * The agent's sign-in state changed: the unstable `auth/status_update`, or the adapters' `_auth/status_update`
   * (`extension`), which they push whether or not anything was advertised.
   */
  authStatusUpdate?(status: AuthStatus, extension: boolean): void;
  /** The `_meta` of a usage update (v1 and v2), where an agent reports its account's limits (quota.ts). */
  usageMeta?(meta: unknown): void;
  /** The draft RFD's `quota_update`: the account's limits (quota.ts). */
  quotaUpdate?(sessionId: string, update: QuotaUpdate): void;
  /** ACP v2: a session update, read and said in the model's terms (v2/updates.ts). */
  v2Update?(sessionId: string, event: V2Event): void;
}

/** The `sessionUpdate` kind of a notification's update, read without trusting it. */
function kindOf(params: unknown): unknown {
  const update = (params as { update?: unknown } | null)?.update;
  return typeof update === 'object' && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
}

/**
 * How many of one session's requests may be served at once, of those that wait on the user or a command (a permission,
 * a question, a command's exit) and of the others, each bound apart; past it, a request is refused with an error. A
 * request that ends or releases something (a terminal's kill or release) is always served: waits never keep out what
 * would end them. Each session has its own, so that one chat cannot starve another.
 */
export const MAX_REQUESTS_PER_SESSION = 256;
const WAITING = new Set(WAITING_METHODS);
const ENDING = new Set(ENDING_METHODS);

const TERMINAL_HANDLERS = ['createTerminal', 'terminalOutput', 'releaseTerminal', 'waitForTerminalExit', 'killTerminal'] as const;

interface Served {
  readonly def: RequestDef;
  readonly impl: (params: unknown, signal: AbortSignal) => Promise<unknown>;
}

/** What the connection tells its inbound side. */
export interface InboundOptions {
  /** Capabilities beyond what the handler implies (auth.terminal, session notices, elicitation, _meta). */
  readonly capabilities?: Omit<S.ClientCapabilities, 'fs' | 'terminal'>;
  /** The session a request's bound counts against (a subagent's root session); by default its own. */
  readonly accountOf?: (sessionId: string) => string;
}

export class Inbound {
  private served = new Map<string, Served>();
  /** The wire version `initialize` settled on: 2 reads the agent's messages against the v2 schema. */
  private wire: 1 | 2 = 1;
  private permissionIds = 0;
  private readonly active = new Set<AbortController>();
  private readonly perSession = new Map<string, number>();
  private readonly accountOf: ((sessionId: string) => string) | undefined;
  /** What the client advertises: what the handler implements, and what the options add. */
  readonly capabilities: S.ClientCapabilities;

  constructor(
    private readonly handler: ClientHandler,
    options: InboundOptions,
    private readonly log: Logger,
  ) {
    this.accountOf = options.accountOf;
    this.capabilities = this.register(handler, options.capabilities);
  }

  /** The connection closed: every handler still running is aborted with `error`. */
  abortAll(error: Error): void {
    for (const controller of [...this.active]) controller.abort(error);
    this.active.clear();
  }

  private register(handler: ClientHandler, extra: InboundOptions['capabilities']): S.ClientCapabilities {
    const hasTerminal = TERMINAL_HANDLERS.every((k) => typeof handler[k] === 'function');
    for (const key of Object.keys(SERVED) as ClientMethodName[]) {
      const impl = handler[key] as ((params: unknown, signal: AbortSignal) => Promise<unknown>) | undefined;
      if (typeof impl !== 'function') continue;
      if ((TERMINAL_HANDLERS as readonly string[]).includes(key) && !hasTerminal) continue;
      const def: RequestDef = SERVED[key];
      this.served.set(def.method, { def, impl: impl.bind(handler) });
    }
    return {
      ...extra,
      fs: { readTextFile: typeof handler.readTextFile === 'function', writeTextFile: typeof handler.writeTextFile === 'function' },
      terminal: hasTerminal,
    };
  }

  /**
   * The agent speaks v2: it asks only for permissions and questions (it has no use of the client's files or
   * terminals), and its messages are read against the v2 schema.
   */
  speakV2(): void {
    this.wire = 2;
    const v1 = this.served;
    this.served = new Map();
    const permission = v1.get(ClientMethods.requestPermission.method);
    if (permission) {
      this.served.set(ClientMethodsV2.requestPermission.method, {
        def: ClientMethodsV2.requestPermission,
        impl: (params, signal) =>
          permission.impl(
            permissionRequest(params as z.output<typeof ClientMethodsV2.requestPermission.params>, () => `permission-${++this.permissionIds}`),
            signal,
          ),
      });
    }
    const elicitation = v1.get(ClientMethods.createElicitation.method);
    if (elicitation) this.served.set(ClientMethodsV2.createElicitation.method, { def: ClientMethodsV2.createElicitation, impl: elicitation.impl });
    // MCP over ACP is the same message in both versions.
    const mcp = v1.get(UnstableClientMethods.mcpMessage.method);
    if (mcp) this.served.set(UnstableClientMethods.mcpMessage.method, mcp);
  }

  /** Serves one request of the agent's: validated, bounded per session, aborted when the agent cancels it or the connection closes. */
  async serve(method: string, raw: unknown, token: CancellationToken): Promise<unknown> {
    const served = this.served.get(method);
    if (!served) throw new ResponseError(ErrorCodes.MethodNotFound, `method not found: ${preview(method, 200)}`);
    if (method === ClientMethods.requestPermission.method && this.wire === 1) raw = withLegacyToolCall(raw);
    const parsed = parseTolerant(served.def.params, raw);
    this.logWarnings(method, parsed.warnings);
    if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, `invalid params for ${method}: ${parsed.error}`);
    if (ENDING.has(method)) return this.run(method, served, parsed.value, token);
    const sessionId = this.accountOf?.(sessionOf(parsed.value)) ?? sessionOf(parsed.value);
    const waits = WAITING.has(method);
    const key = `${waits ? 'waiting' : 'served'}\0${sessionId}`;
    const inFlight = this.perSession.get(key) ?? 0;
    if (inFlight >= MAX_REQUESTS_PER_SESSION) {
      throw new ResponseError(
        ErrorCodes.InternalError,
        waits
          ? `${method} was refused: ${MAX_REQUESTS_PER_SESSION} requests of this session are already waiting for the user or a command`
          : `${method} was refused: ${MAX_REQUESTS_PER_SESSION} requests of this session are already waiting for an answer`,
      );
    }
    this.perSession.set(key, inFlight + 1);
    try {
      return await this.run(method, served, parsed.value, token);
    } finally {
      const left = (this.perSession.get(key) ?? 1) - 1;
      if (left > 0) this.perSession.set(key, left);
      else this.perSession.delete(key);
    }
  }

  private async run(method: string, served: Served, params: unknown, token: CancellationToken): Promise<unknown> {
    // A cancel that arrived before the request was dispatched (the same chunk, say) leaves a token that is already
    // cancelled and whose onCancellationRequested never fires: the handler would never be aborted.
    if (token.isCancellationRequested) throw new ResponseError(ErrorCodes.RequestCancelled, `${method} was cancelled by the agent`);
    const controller = new AbortController();
    this.active.add(controller);
    const cancelled = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    cancelled.catch(() => {});
    const subscription = token.onCancellationRequested(() => controller.abort(new AcpError(ErrorCodes.RequestCancelled, 'cancelled')));
    try {
      // Every ACP result is an object: a handler that resolves with nothing still answers {} (vscode-jsonrpc: null).
      return (await Promise.race([served.impl(params, controller.signal), cancelled])) ?? {};
    } catch (error) {
      if (token.isCancellationRequested) throw new ResponseError(ErrorCodes.RequestCancelled, `${method} was cancelled by the agent`);
      if (error instanceof AcpError) throw new ResponseError(error.code, error.message, error.data);
      // Node refuses an argument the agent chose (a NUL in a path, an env value, a working folder): its params.
      if (isInvalidArgument(error)) throw new ResponseError(ErrorCodes.InvalidParams, `invalid params for ${method}: ${errorMessage(error)}`);
      this.log.warn(`${method} failed: ${errorMessage(error)}`);
      throw new ResponseError(ErrorCodes.InternalError, errorMessage(error));
    } finally {
      subscription.dispose();
      this.active.delete(controller);
    }
  }

  /** One notification of the agent's, or a coalesced run of them (see transport.ts). */
  notified(method: string, params: unknown): void {
    if (method === COALESCED_METHOD) {
      const run = params as CoalescedParams;
      for (const item of run.items) this.notification(item.method, item.params);
    } else {
      this.notification(method, params);
    }
  }

  private notification(method: string, params: unknown): void {
    if (this.wire === 2) return this.notificationV2(method, params);
    try {
      const kind = method === ClientNotifications.sessionUpdate.method ? kindOf(params) : undefined;
      if (this.unstableKind(kind, params)) return;
      if (method === ClientNotifications.sessionUpdate.method) {
        const r = readSessionUpdate(params);
        this.logWarnings(method, r.warnings);
        if (r.ok) this.handler.sessionUpdate(r.value);
        else this.log.warn(`skipped ${method}: ${r.reason}`);
      } else if (method === UnstableNotifications.authStatusUpdate.method && this.handler.authStatusUpdate) {
        const r = UnstableNotifications.authStatusUpdate.params.safeParse(params);
        // Where it failed, never its content: the accounts are a person's details, which are not logged.
        if (r.success) this.handler.authStatusUpdate(readAuthStatus(r.data), false);
        else this.log.warn(`skipped a malformed ${method}: ${preview(r.error.issues.map((i) => i.path.join('.') || '(the message)').join(', '))}`);
      } else if (method === ExtensionNotifications.authStatusUpdate.method && this.handler.authStatusUpdate) {
        const r = ExtensionNotifications.authStatusUpdate.params.safeParse(params);
        if (r.success) this.handler.authStatusUpdate(readAdapterAuthStatus(r.data), true);
        else this.log.warn(`skipped a malformed ${method}: ${preview(r.error.issues.map((i) => i.path.join('.') || '(the message)').join(', '))}`);
      } else if (method === ClientNotifications.completeElicitation.method && this.handler.completeElicitation) {
        const r = parseTolerant(ClientNotifications.completeElicitation.params, params);
        this.logWarnings(method, r.warnings);
        if (r.ok) this.handler.completeElicitation(r.value);
        else this.log.warn(`skipped ${method}: ${r.error}`);
      } else {
        this.log.debug(`ignored notification ${method}`);
      }
    } catch (error) {
      this.log.error(`handling ${method} failed: ${errorMessage(error)}`);
    }
  }

  private notificationV2(method: string, params: unknown): void {
    try {
      // v2's own plan_update is stable: the v2 schema reads it.
      const kind = method === ClientNotificationsV2.sessionUpdate.method ? kindOf(params) : undefined;
      // As over v1: subagents (a baseline of v2: no capability is asked), their messages, and a plan removed.
      if (kind !== 'plan_update' && this.unstableKind(kind, params)) return;
      if (method === ClientNotificationsV2.sessionUpdate.method) {
        // Claude's rate limit rides in a usage update's `_meta` over v2 too (quota.ts).
        if (kind === 'usage_update') this.handler.usageMeta?.((params as { update: { _meta?: unknown } }).update._meta);
        const r = readV2Update(params);
        this.logWarnings(method, r.warnings);
        if (r.ok) this.handler.v2Update?.(r.sessionId, r.event);
        else this.log.warn(`skipped ${method}: ${r.reason}`);
      } else if (method === ClientNotificationsV2.completeElicitation.method && this.handler.completeElicitation) {
        const r = parseTolerant(ClientNotificationsV2.completeElicitation.params, params);
        this.logWarnings(method, r.warnings);
        if (r.ok) this.handler.completeElicitation(r.value);
        else this.log.warn(`skipped ${method}: ${r.error}`);
      } else {
        this.log.debug(`ignored notification ${method}`);
      }
    } catch (error) {
      this.log.error(`handling ${method} failed: ${errorMessage(error)}`);
    }
  }

  /**
   * Reads an update of a kind of the unstable schema both versions share; false for any other kind. The kinds are
   * compared with ===, never hashed: the kind JSON.parse just made is not interned, and this runs for every update.
   */
  private unstableKind(kind: unknown, params: unknown): boolean {
    if (typeof kind !== 'string') return false;
    if (INTER_SESSION_KINDS.includes(kind)) {
      this.unstable(kind, params, InterSessionUpdate, this.handler.sessionMessage?.bind(this.handler), 'subagents');
    } else if (kind === 'subagent_update') {
      this.unstable(kind, params, SubagentUpdate, this.handler.subagentUpdate?.bind(this.handler), 'subagents');
    } else if (PLAN_BY_ID_KINDS.includes(kind)) {
      this.unstable(kind, params, PlanByIdUpdate, this.handler.planById?.bind(this.handler), 'plan');
    } else if (kind === 'quota_update') {
      this.unstable(kind, params, QuotaUpdate, this.handler.quotaUpdate?.bind(this.handler), 'session.quota');
    } else {
      return false;
    }
    return true;
  }

  /** An update of the unstable schema: read strictly, and only by a handler that advertised its capability. */
  private unstable<T>(
    kind: string,
    params: unknown,
    schema: z.ZodType<T>,
    handle: ((sessionId: string, update: T) => void) | undefined,
    capability: string,
  ): void {
    if (!handle) return this.log.debug(`ignored ${kind}: ${capability} is not advertised`);
    const update = schema.safeParse((params as { update: unknown }).update);
    const sessionId = (params as { sessionId?: unknown }).sessionId;
    if (!update.success || typeof sessionId !== 'string') this.log.warn(`skipped a malformed ${kind}: ${preview(JSON.stringify(params))}`);
    else handle(sessionId, update.data);
  }

  private logWarnings(what: string, warnings: readonly string[]): void {
    for (const w of warnings) this.log.warn(`${what}: ${w}`);
  }
}

/** Older agents name the permission request's tool call fields as they named them in updates (`id`, ...). */
function withLegacyToolCall(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const toolCall = (raw as { toolCall?: unknown }).toolCall;
  if (typeof toolCall !== 'object' || toolCall === null || Array.isArray(toolCall)) return raw;
  const mapped = mapLegacyToolCall(toolCall as Record<string, unknown>);
  return mapped === toolCall ? raw : { ...raw, toolCall: mapped };
}

/** The session a request counts against: its own, or (MCP over ACP, which names none) the server's it is for. */
function sessionOf(params: unknown): string {
  const { sessionId, serverId } = params as { sessionId?: unknown; serverId?: unknown };
  return typeof sessionId === 'string' ? sessionId : typeof serverId === 'string' ? `mcp:${serverId}` : '';
}

function isInvalidArgument(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // E2BIG: the args and env the agent chose are more than the OS lets a command start with.
  return code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE' || code === 'ERR_OUT_OF_RANGE' || code === 'E2BIG';
}
