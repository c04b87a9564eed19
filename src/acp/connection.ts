// The typed ACP client connection: one method per client→agent request, one handler interface for everything the
// agent may ask or tell. Built on vscode-jsonrpc with the NDJSON transport.
import {
  CancellationTokenSource,
  ConnectionError,
  createMessageConnection,
  Emitter,
  ResponseError,
  type CancellationToken,
  type Event,
  type MessageConnection,
  type MessageReader,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import type { z } from 'zod';
import { advertisedCapabilities, capabilityName, mcpFeature, mcpTransport, promptFeature, supports } from './capabilities';
import { AcpError, ConnectionClosedError, ErrorCodes, errorMessage, NotSupportedError, ProtocolVersionError } from './errors';
import { silentLogger, type Logger } from './log';
import {
  AgentMethods,
  AgentNotifications,
  ClientMethods,
  ClientNotifications,
  ExtensionMethods,
  UnstableMethods,
  type ClientMethodName,
  type GatedRequestDef,
  type RequestDef,
} from './methods';
import type * as S from './schema.gen';
import { parseTolerant, preview } from './tolerance';
import { COALESCED_METHOD, type CoalescedParams } from './transport';
import { mapLegacyToolCall, readSessionUpdate } from './updates';
import { SubagentUpdate } from './subagents';

/** The protocol version we send, and the ones we accept back. */
export const PROTOCOL_VERSION = 1;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

type Params<D extends RequestDef> = z.output<D['params']>;
type Result<D extends RequestDef> = z.output<D['result']>;
type ClientDef<K extends ClientMethodName> = (typeof ClientMethods)[K];

/** Serves one agent→client request. The signal aborts when the agent cancels it or the connection closes. */
export type RequestHandler<K extends ClientMethodName> = (params: Params<ClientDef<K>>, signal: AbortSignal) => Promise<Result<ClientDef<K>>>;

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
  /** A valid `session/update`; unknown kinds and invalid updates are logged and never reach here. */
  sessionUpdate(notification: S.SessionNotification): void;
  completeElicitation?(notification: S.CompleteElicitationNotification): void;
  /** Unstable: a parent session announced a child or patched it (see subagents.ts). */
  subagentUpdate?(parentSessionId: string, update: SubagentUpdate): void;
}

function isSubagentUpdate(params: unknown): boolean {
  const update = (params as { update?: unknown } | null)?.update;
  return typeof update === 'object' && update !== null && (update as { sessionUpdate?: unknown }).sessionUpdate === 'subagent_update';
}

/** How many of one session's requests may be served at once; past it, a request is refused with an error. */
export const MAX_REQUESTS_PER_SESSION = 256;

const TERMINAL_HANDLERS = ['createTerminal', 'terminalOutput', 'releaseTerminal', 'waitForTerminalExit', 'killTerminal'] as const;

export interface ConnectionOptions {
  readonly clientInfo: S.Implementation;
  readonly log?: Logger;
  /** Capabilities beyond what the handler implies (auth.terminal, session notices, elicitation, _meta). */
  readonly capabilities?: Omit<S.ClientCapabilities, 'fs' | 'terminal'>;
  /** Close when the agent's output ends. A process owner turns this off and closes with the exit reason. */
  readonly closeWhenInputEnds?: boolean;
  /** The session a request's bound counts against (a subagent's root session); by default its own. */
  readonly accountOf?: (sessionId: string) => string;
}

/** What the agent said about itself in `initialize`. */
export interface AgentDescription {
  readonly protocolVersion: number;
  readonly capabilities: S.AgentCapabilities;
  readonly info: S.Implementation | undefined;
  readonly authMethods: readonly S.AuthMethod[];
}

interface Served {
  readonly def: RequestDef;
  readonly impl: (params: unknown, signal: AbortSignal) => Promise<unknown>;
}

export class AcpClientConnection {
  private readonly rpc: MessageConnection;
  private readonly log: Logger;
  private readonly served = new Map<string, Served>();
  private readonly active = new Set<AbortController>();
  private readonly perSession = new Map<string, number>();
  private readonly waiting = new Set<(error: Error) => void>();
  private readonly closeEmitter = new Emitter<Error | undefined>();
  private closedWith: { reason: Error | undefined } | undefined;
  private described: AgentDescription | undefined;
  readonly clientCapabilities: S.ClientCapabilities;

  /** Fires once, when the connection closes, with the reason if there was one. */
  readonly onDidClose: Event<Error | undefined> = this.closeEmitter.event;

  constructor(
    reader: MessageReader,
    writer: MessageWriter,
    private readonly handler: ClientHandler,
    private readonly options: ConnectionOptions,
  ) {
    this.log = options.log ?? silentLogger;
    this.clientCapabilities = this.register(handler);
    const log = this.log;
    this.rpc = createMessageConnection(reader, writer, {
      error: (m) => log.error(m),
      warn: (m) => log.warn(m),
      info: (m) => log.debug(m),
      log: (m) => log.trace(m),
    });
    this.rpc.onRequest((method, params, token) => this.serve(method, params, token));
    this.rpc.onNotification((method, params) => this.notified(method, params));
    this.rpc.onError(([error]) => this.log.warn(`transport error: ${error.message}`));
    this.rpc.onClose(() => {
      if (options.closeWhenInputEnds !== false) this.close();
    });
    this.rpc.listen();
  }

  /** The agent, once `initialize` has succeeded. */
  get agent(): AgentDescription | undefined {
    return this.described;
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  // ---- client → agent ------------------------------------------------------------------------------------------

  /**
   * Negotiates the protocol version and learns the agent's capabilities. Aborting `signal` (say, a timeout) gives
   * up on the agent: without a handshake the connection is of no use, so it closes with the signal's reason.
   */
  async initialize(extra: { _meta?: Record<string, unknown> } = {}, signal?: AbortSignal): Promise<S.InitializeResponse> {
    const giveUp = () => this.close(asError(signal?.reason ?? new Error('initialize was aborted')));
    if (signal?.aborted) giveUp();
    else signal?.addEventListener('abort', giveUp, { once: true });
    let result: S.InitializeResponse;
    try {
      result = await this.call(
        AgentMethods.initialize,
        { protocolVersion: PROTOCOL_VERSION, clientCapabilities: this.clientCapabilities, clientInfo: this.options.clientInfo, ...extra },
        signal,
      );
    } finally {
      signal?.removeEventListener('abort', giveUp);
    }
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      const error = new ProtocolVersionError(result.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS);
      this.close(error);
      this.rpc.dispose();
      throw error;
    }
    this.described = {
      protocolVersion: result.protocolVersion,
      capabilities: advertisedCapabilities(result),
      info: result.agentInfo ?? undefined,
      authMethods: result.authMethods ?? [],
    };
    return result;
  }

  authenticate(params: Params<typeof AgentMethods.authenticate>, signal?: AbortSignal) {
    return this.call(AgentMethods.authenticate, params, signal);
  }

  logout(params: Params<typeof AgentMethods.logout> = {}, signal?: AbortSignal) {
    return this.call(AgentMethods.logout, params, signal);
  }

  newSession(params: Params<typeof AgentMethods.newSession>, signal?: AbortSignal) {
    return this.call(AgentMethods.newSession, params, signal, () => this.checkSessionSetup(params));
  }

  /** Replays the session as `session/update`s before it answers: route updates for it before calling. */
  loadSession(params: Params<typeof AgentMethods.loadSession>, signal?: AbortSignal) {
    return this.call(AgentMethods.loadSession, params, signal, () => this.checkSessionSetup(params));
  }

  listSessions(params: Params<typeof AgentMethods.listSessions> = {}, signal?: AbortSignal) {
    return this.call(AgentMethods.listSessions, params, signal);
  }

  resumeSession(params: Params<typeof AgentMethods.resumeSession>, signal?: AbortSignal) {
    return this.call(AgentMethods.resumeSession, params, signal, () => this.checkSessionSetup(params));
  }

  closeSession(params: Params<typeof AgentMethods.closeSession>, signal?: AbortSignal) {
    return this.call(AgentMethods.closeSession, params, signal);
  }

  deleteSession(params: Params<typeof AgentMethods.deleteSession>, signal?: AbortSignal) {
    return this.call(AgentMethods.deleteSession, params, signal);
  }

  /** Unstable: a new session with the context of `sessionId` (see UnstableMethods). */
  forkSession(params: Params<typeof UnstableMethods.forkSession>, signal?: AbortSignal) {
    return this.call(UnstableMethods.forkSession, params, signal);
  }

  /** Unstable: sets a session's title; answers the title the agent stored. */
  setSessionTitle(params: Params<typeof UnstableMethods.setSessionTitle>, signal?: AbortSignal) {
    return this.call(UnstableMethods.setSessionTitle, params, signal);
  }

  /** Adds a message to the running turn (the adapters' steering; see ExtensionMethods). */
  steer(params: Params<typeof ExtensionMethods.steer>, signal?: AbortSignal) {
    return this.call(ExtensionMethods.steer, params, signal);
  }

  setMode(params: Params<typeof AgentMethods.setMode>, signal?: AbortSignal) {
    return this.call(AgentMethods.setMode, params, signal);
  }

  setConfigOption(params: Params<typeof AgentMethods.setConfigOption>, signal?: AbortSignal) {
    return this.call(AgentMethods.setConfigOption, params, signal);
  }

  /** Sends a prompt. Content the agent did not advertise (`promptCapabilities`) is refused here. */
  prompt(params: Params<typeof AgentMethods.prompt>, signal?: AbortSignal) {
    return this.call(AgentMethods.prompt, params, signal, () => {
      for (const block of params.prompt) {
        const needs = promptFeature(block);
        if (needs && !supports(this.described?.capabilities, needs))
          throw new NotSupportedError(`this agent does not accept ${describeBlock(block.type)} in prompts`);
      }
    });
  }

  /** Asks the agent to stop the running turn. The prompt still answers, with stopReason `cancelled`. */
  async cancel(params: z.output<typeof AgentNotifications.cancel.params>): Promise<void> {
    if (this.closedWith) return;
    try {
      await this.rpc.sendNotification(AgentNotifications.cancel.method, params);
    } catch (error) {
      // The agent's input is gone: there is no turn left to cancel, and the exit settles everything.
      this.log.debug(`session/cancel not sent: ${errorMessage(error)}`);
    }
  }

  // ---- lifecycle -----------------------------------------------------------------------------------------------

  /** Settles everything: waiting requests reject with the reason, running handlers are aborted. Idempotent. */
  close(reason?: Error): void {
    if (this.closedWith) return;
    this.closedWith = { reason };
    const error = new ConnectionClosedError(reason);
    for (const reject of [...this.waiting]) reject(error);
    this.waiting.clear();
    for (const controller of [...this.active]) controller.abort(error);
    this.active.clear();
    this.closeEmitter.fire(reason);
  }

  dispose(): void {
    this.close();
    this.rpc.dispose();
    this.closeEmitter.dispose();
  }

  // ---- internals -----------------------------------------------------------------------------------------------

  private register(handler: ClientHandler): S.ClientCapabilities {
    const hasTerminal = TERMINAL_HANDLERS.every((k) => typeof handler[k] === 'function');
    for (const key of Object.keys(ClientMethods) as ClientMethodName[]) {
      const impl = handler[key] as ((params: unknown, signal: AbortSignal) => Promise<unknown>) | undefined;
      if (typeof impl !== 'function') continue;
      if ((TERMINAL_HANDLERS as readonly string[]).includes(key) && !hasTerminal) continue;
      const def: RequestDef = ClientMethods[key];
      this.served.set(def.method, { def, impl: impl.bind(handler) });
    }
    return {
      ...this.options.capabilities,
      fs: { readTextFile: typeof handler.readTextFile === 'function', writeTextFile: typeof handler.writeTextFile === 'function' },
      terminal: hasTerminal,
    };
  }

  /** Optional methods go out only when the agent advertised them. */
  private gate(def: RequestDef): void {
    if (!('feature' in def)) return;
    const gated = def as GatedRequestDef;
    if (!supports(this.described?.capabilities, gated.feature)) {
      throw new NotSupportedError(`the agent does not support ${gated.method} (it did not advertise ${capabilityName(gated.feature)})`);
    }
  }

  private checkSessionSetup(params: { additionalDirectories?: readonly string[] | undefined; mcpServers?: readonly S.McpServer[] | undefined }) {
    const caps = this.described?.capabilities;
    if (params.additionalDirectories?.length && !supports(caps, 'additionalDirectories')) {
      throw new NotSupportedError('the agent does not support additional workspace directories');
    }
    for (const server of params.mcpServers ?? []) {
      const needs = mcpFeature(server);
      if (needs && !supports(caps, needs))
        throw new NotSupportedError(`the agent does not support ${mcpTransport(server)} MCP servers (${server.name})`);
    }
  }

  /**
   * Sends one request. A refusal — an optional method the agent did not advertise, or what `check` throws — rejects
   * the returned promise before anything is sent, like every other failure.
   */
  private call<D extends RequestDef>(def: D, params: Params<D>, signal?: AbortSignal, check?: () => void): Promise<Result<D>> {
    if (this.closedWith) return Promise.reject(new ConnectionClosedError(this.closedWith.reason));
    try {
      this.gate(def);
      check?.();
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<Result<D>>((resolve, reject) => {
      const settle = (error: Error) => reject(error);
      this.waiting.add(settle);
      const cts = new CancellationTokenSource();
      const onAbort = () => cts.cancel();
      if (signal?.aborted) cts.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        this.waiting.delete(settle);
        signal?.removeEventListener('abort', onAbort);
        cts.dispose();
      };
      let sent: Promise<unknown>;
      try {
        sent = this.rpc.sendRequest(def.method, params, cts.token);
      } catch (error) {
        // vscode-jsonrpc throws once the agent's output has ended; the process owner closes us a moment later.
        done();
        reject(new ConnectionClosedError(this.closedWith?.reason ?? asError(error)));
        return;
      }
      sent.then(
        (raw: unknown) => {
          done();
          try {
            const parsed = parseTolerant(def.result, raw);
            this.logWarnings(`answer to ${def.method}`, parsed.warnings);
            if (parsed.ok) resolve(parsed.value as Result<D>);
            else reject(new AcpError(ErrorCodes.InternalError, `the agent's answer to ${def.method} is invalid: ${parsed.error}`));
          } catch (error) {
            // Whatever the answer holds, the request settles: it never stays pending.
            reject(new AcpError(ErrorCodes.InternalError, `the agent's answer to ${def.method} could not be read: ${errorMessage(error)}`));
          }
        },
        (error: unknown) => {
          done();
          if (error instanceof ResponseError) reject(new AcpError(error.code, error.message, error.data));
          else if (this.closedWith || error instanceof ConnectionError) reject(new ConnectionClosedError(this.closedWith?.reason ?? asError(error)));
          else reject(new AcpError(ErrorCodes.InternalError, `the agent's answer to ${def.method} could not be read: ${errorMessage(error)}`));
        },
      );
    });
  }

  private async serve(method: string, raw: unknown, token: CancellationToken): Promise<unknown> {
    const served = this.served.get(method);
    if (!served) throw new ResponseError(ErrorCodes.MethodNotFound, `method not found: ${preview(method, 200)}`);
    if (method === ClientMethods.requestPermission.method) raw = withLegacyToolCall(raw);
    const parsed = parseTolerant(served.def.params, raw);
    this.logWarnings(method, parsed.warnings);
    if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, `invalid params for ${method}: ${parsed.error}`);
    const sessionId = this.options.accountOf?.(sessionOf(parsed.value)) ?? sessionOf(parsed.value);
    const inFlight = this.perSession.get(sessionId) ?? 0;
    if (inFlight >= MAX_REQUESTS_PER_SESSION) {
      throw new ResponseError(
        ErrorCodes.InternalError,
        `${method} was refused: ${MAX_REQUESTS_PER_SESSION} requests of this session are already waiting for an answer`,
      );
    }
    this.perSession.set(sessionId, inFlight + 1);
    try {
      return await this.run(method, served, parsed.value, token);
    } finally {
      const left = (this.perSession.get(sessionId) ?? 1) - 1;
      if (left > 0) this.perSession.set(sessionId, left);
      else this.perSession.delete(sessionId);
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

  private notified(method: string, params: unknown): void {
    if (method === COALESCED_METHOD) {
      const run = params as CoalescedParams;
      for (const item of run.items) this.notification(item.method, item.params);
    } else {
      this.notification(method, params);
    }
  }

  private notification(method: string, params: unknown): void {
    try {
      if (method === ClientNotifications.sessionUpdate.method && isSubagentUpdate(params)) {
        // Unstable: read strictly, and only by a handler that advertised subagents.
        const update = SubagentUpdate.safeParse((params as { update: unknown }).update);
        const sessionId = (params as { sessionId?: unknown }).sessionId;
        if (!this.handler.subagentUpdate) this.log.debug('ignored subagent_update: subagents are not advertised');
        else if (!update.success || typeof sessionId !== 'string')
          this.log.warn(`skipped a malformed subagent_update: ${preview(JSON.stringify(params))}`);
        else this.handler.subagentUpdate(sessionId, update.data);
      } else if (method === ClientNotifications.sessionUpdate.method) {
        const r = readSessionUpdate(params);
        this.logWarnings(method, r.warnings);
        if (r.ok) this.handler.sessionUpdate(r.value);
        else this.log.warn(`skipped ${method}: ${r.reason}`);
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

function sessionOf(params: unknown): string {
  const id = (params as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : '';
}

function isInvalidArgument(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // E2BIG: the args and env the agent chose are more than the OS lets a command start with.
  return code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE' || code === 'ERR_OUT_OF_RANGE' || code === 'E2BIG';
}

function describeBlock(type: string): string {
  return type === 'image' ? 'images' : type === 'audio' ? 'audio' : type === 'resource' ? 'embedded files' : `${type} content`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
