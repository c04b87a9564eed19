// The typed ACP client connection: one method per client→agent request, over vscode-jsonrpc with the NDJSON
// transport. What the agent asks of the client and tells it is served by inbound.ts, through the host's ClientHandler.
import {
  CancellationTokenSource,
  ConnectionError,
  createMessageConnection,
  Emitter,
  ResponseError,
  type Event,
  type MessageConnection,
  type MessageReader,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { z } from 'zod';
import { advertisedCapabilities, capabilityName, promptFeature, supports } from './capabilities';
import { AcpError, ConnectionClosedError, ErrorCodes, errorMessage, NotSupportedError, ProtocolVersionError } from './errors';
import { silentLogger, type Logger } from './log';
import { AgentMethods, AgentNotifications, DraftMethods, ExtensionMethods, UnstableMethods, type GatedRequestDef, type RequestDef } from './methods';
import type * as S from './schema.gen';
import { Inbound, type ClientHandler } from './inbound';
import { MCP_MESSAGE_METHOD, type McpMessageNotification } from './mcpOverAcp';
import { checkSessionSetup } from './sessionSetup';
import { parseTolerant } from './tolerance';
import { AgentMethodsV2, AgentNotificationsV2 } from './v2/methods';
import * as V2 from './v2/schema.gen';
import { clientCapabilities, commandsOf, configOptions, initializeAnswer, mcpServers, PROTOCOL_V1, PROTOCOL_V2 } from './v2/wire';

/** What an answer to a v1 `initialize` may say: an agent of v2 alone is not spoken to in v1's terms. */
const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [PROTOCOL_V1];

/** The first answer to a v2 `initialize`: its version says which schema reads the rest. */
const InitializeVersion = z.looseObject({ protocolVersion: V2.ProtocolVersion });
const InitializeV2 = { ...AgentMethodsV2.initialize, result: InitializeVersion };

type Params<D extends RequestDef> = z.output<D['params']>;
type Result<D extends RequestDef> = z.output<D['result']>;
/** A session's answer: a v2 agent's carries the session's commands. */
type WithCommands<T> = T & { availableCommands?: S.AvailableCommand[] | undefined };

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

export class AcpClientConnection {
  private readonly rpc: MessageConnection;
  private readonly log: Logger;
  /** The agent's requests and notifications (inbound.ts). */
  private readonly inbound: Inbound;
  private readonly waiting = new Set<(error: Error) => void>();
  private readonly closeEmitter = new Emitter<Error | undefined>();
  private closedWith: { reason: Error | undefined } | undefined;
  private described: AgentDescription | undefined;
  /** The wire version `initialize` settled on. */
  private version: 1 | 2 = PROTOCOL_V1;
  readonly clientCapabilities: S.ClientCapabilities;

  /** Fires once, when the connection closes, with the reason if there was one. */
  readonly onDidClose: Event<Error | undefined> = this.closeEmitter.event;

  constructor(
    reader: MessageReader,
    writer: MessageWriter,
    handler: ClientHandler,
    private readonly options: ConnectionOptions,
  ) {
    this.log = options.log ?? silentLogger;
    this.inbound = new Inbound(handler, options, this.log);
    this.clientCapabilities = this.inbound.capabilities;
    const log = this.log;
    this.rpc = createMessageConnection(reader, writer, {
      error: (m) => log.error(m),
      warn: (m) => log.warn(m),
      info: (m) => log.debug(m),
      log: (m) => log.trace(m),
    });
    this.rpc.onRequest((method, params, token) => this.inbound.serve(method, params, token));
    this.rpc.onNotification((method, params) => this.inbound.notified(method, params));
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

  /** The protocol version spoken: 1 until `initialize` settles on 2. */
  get wire(): 1 | 2 {
    return this.version;
  }

  // ---- client → agent ------------------------------------------------------------------------------------------

  /**
   * Negotiates the protocol version and learns the agent's capabilities. Asked for 2 (v2, Preview), an agent that
   * answers 1 is asked again in v1's terms (a client may repeat `initialize` before any other request), so that it
   * learns the client's v1 capabilities. Aborting `signal` (a timeout) gives up: the connection closes with its
   * reason. The answer is said in v1's terms whatever the version (v2/wire.ts).
   */
  async initialize(extra: { _meta?: Record<string, unknown> } = {}, signal?: AbortSignal, ask: 1 | 2 = PROTOCOL_V1): Promise<S.InitializeResponse> {
    const giveUp = () => this.close(asError(signal?.reason ?? new Error('initialize was aborted')));
    if (signal?.aborted) giveUp();
    else signal?.addEventListener('abort', giveUp, { once: true });
    let result: S.InitializeResponse;
    try {
      const v2 = ask === PROTOCOL_V2 ? await this.initializeV2(extra, signal) : undefined;
      result =
        v2 ??
        (await this.call(
          AgentMethods.initialize,
          { protocolVersion: PROTOCOL_V1, clientCapabilities: this.clientCapabilities, clientInfo: this.options.clientInfo, ...extra },
          signal,
        ));
    } finally {
      signal?.removeEventListener('abort', giveUp);
    }
    if (this.version === PROTOCOL_V1 && !SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
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

  /** Asks for v2: the v2 answer in v1's terms, or undefined when the agent answered 1 (or refused the v2 request). */
  private async initializeV2(extra: { _meta?: Record<string, unknown> }, signal?: AbortSignal): Promise<S.InitializeResponse | undefined> {
    const params = {
      protocolVersion: PROTOCOL_V2,
      info: this.options.clientInfo,
      capabilities: clientCapabilities(this.clientCapabilities),
      ...extra,
    };
    let answer: z.output<typeof InitializeVersion>;
    try {
      answer = await this.call(InitializeV2, params, signal);
    } catch (error) {
      // An agent of v1 alone may refuse the v2 request's shape: it gets v1's.
      if (error instanceof AcpError && !this.closedWith) {
        this.log.info(`the agent refused initialize for ACP v2 (${error.message}); asking for v1`);
        return undefined;
      }
      throw error;
    }
    if (answer.protocolVersion !== PROTOCOL_V2) {
      this.log.info(`the agent answered ACP v${answer.protocolVersion} to v2; initializing for v1`);
      return undefined;
    }
    const parsed = parseTolerant(AgentMethodsV2.initialize.result, answer);
    this.logWarnings('answer to initialize', parsed.warnings);
    if (!parsed.ok) throw new AcpError(ErrorCodes.InternalError, `the agent's answer to initialize is invalid: ${parsed.error}`);
    this.version = PROTOCOL_V2;
    this.inbound.speakV2();
    return initializeAnswer(parsed.value);
  }

  /** Signs in with one of the agent's methods (v2: `auth/login`). */
  authenticate(params: Params<typeof AgentMethods.authenticate>, signal?: AbortSignal) {
    return this.version === PROTOCOL_V2 ? this.call(AgentMethodsV2.login, params, signal) : this.call(AgentMethods.authenticate, params, signal);
  }

  logout(params: Params<typeof AgentMethods.logout> = {}, signal?: AbortSignal) {
    return this.version === PROTOCOL_V2 ? this.call(AgentMethodsV2.logout, params, signal) : this.call(AgentMethods.logout, params, signal);
  }

  /** Opens a session. A v2 agent's answer carries its commands (`availableCommands`) and no modes. */
  newSession(params: Params<typeof AgentMethods.newSession>, signal?: AbortSignal): Promise<WithCommands<Result<typeof AgentMethods.newSession>>> {
    if (this.version === PROTOCOL_V2) {
      const { systemPrompt: _notInV2, mcpServers: servers, ...rest } = params;
      const answer = this.call(AgentMethodsV2.newSession, { ...rest, mcpServers: mcpServers(servers) }, signal, () =>
        checkSessionSetup(this.described?.capabilities, params),
      );
      return answer.then((value) => ({ ...this.inV1Terms(AgentMethods.newSession, value), ...commandsOf(value.availableCommands) }));
    }
    return this.call(AgentMethods.newSession, params, signal, () => checkSessionSetup(this.described?.capabilities, params));
  }

  /** Replays the session as updates before it answers: route them first. v2: session/resume from the start. */
  loadSession(params: Params<typeof AgentMethods.loadSession>, signal?: AbortSignal): Promise<WithCommands<Result<typeof AgentMethods.loadSession>>> {
    if (this.version === PROTOCOL_V2) return this.resumeSession(params, signal, true);
    return this.call(AgentMethods.loadSession, params, signal, () => checkSessionSetup(this.described?.capabilities, params));
  }

  /** With `archived` (unstable), only to an agent that advertises `sessionCapabilities.archive`. */
  listSessions(params: Params<typeof AgentMethods.listSessions> & { archived?: 'include' | 'only' } = {}, signal?: AbortSignal) {
    return this.call(AgentMethods.listSessions, params, signal, () => {
      if (params.archived !== undefined && !supports(this.described?.capabilities, 'archiveSession')) {
        throw new NotSupportedError({ what: 'method', method: 'session/list {archived}', capability: capabilityName('archiveSession') });
      }
    });
  }

  /** Reopens a session. `replay` asks a v2 agent for its history before the answer (v2's session/load). */
  resumeSession(
    params: Params<typeof AgentMethods.resumeSession>,
    signal?: AbortSignal,
    replay = false,
  ): Promise<WithCommands<Result<typeof AgentMethods.resumeSession>>> {
    if (this.version === PROTOCOL_V2) {
      const { systemPrompt: _notInV2, mcpServers: servers, ...rest } = params as typeof params & { systemPrompt?: unknown };
      const request = { ...rest, mcpServers: mcpServers(servers), ...(replay && { replayFrom: { type: 'start' } }) };
      const answer = this.call(AgentMethodsV2.resumeSession, request, signal, () => checkSessionSetup(this.described?.capabilities, params));
      return answer.then((value) => ({ ...this.inV1Terms(AgentMethods.resumeSession, value), ...commandsOf(value.availableCommands) }));
    }
    return this.call(AgentMethods.resumeSession, params, signal, () => checkSessionSetup(this.described?.capabilities, params));
  }

  /** v2: stops one tool call (where it advertised `capabilities.cancel`); the turn goes on. */
  cancelToolCall(params: { sessionId: string; toolCallId: string }, signal?: AbortSignal) {
    return this.call(AgentMethodsV2.cancelToolCall, params, signal, () => this.checkV2('tool_call/cancel'));
  }

  /** v2: stops one of the agent's terminals (where it advertised `capabilities.cancel`). */
  cancelTerminal(params: { sessionId: string; terminalId: string }, signal?: AbortSignal) {
    return this.call(AgentMethodsV2.cancelTerminal, params, signal, () => this.checkV2('terminal/cancel'));
  }

  /** A v2 answer (valid by v2's schema) read by v1's schema of the method: what v1 cannot show is dropped. */
  private inV1Terms<D extends RequestDef>(def: D, value: { configOptions?: unknown }): Result<D> {
    const parsed = parseTolerant(def.result, { ...value, configOptions: configOptions(value.configOptions) });
    this.logWarnings(`answer to ${def.method}`, parsed.warnings);
    if (!parsed.ok) throw new AcpError(ErrorCodes.InternalError, `the agent's answer to ${def.method} cannot be used: ${parsed.error}`);
    return parsed.value as Result<D>;
  }

  private checkV2(method: string): void {
    if (this.version !== PROTOCOL_V2) throw new NotSupportedError({ what: 'method', method, capability: 'ACP v2' });
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

  /** Unstable: whether the agent has the session in memory, knows it, or not (see UnstableMethods). */
  sessionStatus(params: Params<typeof UnstableMethods.sessionStatus>, signal?: AbortSignal) {
    return this.call(UnstableMethods.sessionStatus, params, signal);
  }

  /** Unstable: archives a session, or brings it back (see UnstableMethods). */
  setArchived(params: Params<typeof UnstableMethods.archiveSession>, archived: boolean, signal?: AbortSignal) {
    return this.call(archived ? UnstableMethods.archiveSession : UnstableMethods.unarchiveSession, params, signal);
  }

  /** Draft: the account's limits now (see DraftMethods). */
  readQuota(params: Params<typeof DraftMethods.readQuota>, signal?: AbortSignal) {
    return this.call(DraftMethods.readQuota, params, signal);
  }

  /** Unstable: the agent's sign-in state and accounts. */
  authStatus(signal?: AbortSignal) {
    return this.call(UnstableMethods.authStatus, {}, signal);
  }

  /** Adds a message to the running turn (the adapters' steering; see ExtensionMethods). */
  steer(params: Params<typeof ExtensionMethods.steer>, signal?: AbortSignal) {
    return this.call(ExtensionMethods.steer, params, signal);
  }

  /** v1 only: v2 has no modes (a mode is a config option there). */
  setMode(params: Params<typeof AgentMethods.setMode>, signal?: AbortSignal) {
    return this.call(AgentMethods.setMode, params, signal, () => {
      if (this.version === PROTOCOL_V2) throw new NotSupportedError({ what: 'method', method: 'session/set_mode', capability: 'ACP v1' });
    });
  }

  setConfigOption(params: Params<typeof AgentMethods.setConfigOption>, signal?: AbortSignal) {
    if (this.version === PROTOCOL_V2) {
      // v2 names a select's value as an id.
      const request = typeof params.value === 'string' ? { ...params, type: 'id' as const, value: params.value } : params;
      const answer = this.call(AgentMethodsV2.setConfigOption, request as V2.SetSessionConfigOptionRequest, signal);
      return answer.then((value) => this.inV1Terms(AgentMethods.setConfigOption, value));
    }
    return this.call(AgentMethods.setConfigOption, params, signal);
  }

  /** Sends a prompt (v1): its answer ends the turn. Content the agent did not advertise is refused here. */
  prompt(params: Params<typeof AgentMethods.prompt>, signal?: AbortSignal) {
    return this.call(AgentMethods.prompt, params, signal, () => this.checkPrompt(params.prompt, PROTOCOL_V1));
  }

  /** Sends a prompt (v2): its answer says the agent took it in (`messageId`); an idle `state_update` ends the turn. */
  submit(params: Params<typeof AgentMethods.prompt>, signal?: AbortSignal) {
    return this.call(AgentMethodsV2.prompt, params as V2.PromptRequest, signal, () => this.checkPrompt(params.prompt, PROTOCOL_V2));
  }

  private checkPrompt(prompt: readonly S.ContentBlock[], version: 1 | 2): void {
    if (this.version !== version) throw new NotSupportedError({ what: 'method', method: 'session/prompt', capability: `ACP v${version}` });
    for (const block of prompt) {
      const needs = promptFeature(block);
      if (needs && !supports(this.described?.capabilities, needs)) throw new NotSupportedError({ what: 'content', content: block.type });
    }
  }

  /** Asks the agent to stop the running turn. The prompt still answers (v2: an idle state), with stopReason `cancelled`. */
  cancel(params: z.output<typeof AgentNotifications.cancel.params>): Promise<void> {
    return this.tell(this.version === PROTOCOL_V2 ? AgentNotificationsV2.cancel.method : AgentNotifications.cancel.method, params);
  }

  /** MCP over ACP: what a server the client provides tells the agent about a request still running (mcpOverAcp.ts). */
  mcpNotify(params: McpMessageNotification): Promise<void> {
    return this.tell(MCP_MESSAGE_METHOD, params);
  }

  private async tell(method: string, params: unknown): Promise<void> {
    if (this.closedWith) return;
    try {
      await this.rpc.sendNotification(method, params);
    } catch (error) {
      // The agent's input is gone: there is nothing left to tell, and the exit settles everything.
      this.log.debug(`${method} not sent: ${errorMessage(error)}`);
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
    this.inbound.abortAll(error);
    this.closeEmitter.fire(reason);
  }

  dispose(): void {
    this.close();
    this.rpc.dispose();
    this.closeEmitter.dispose();
  }

  // ---- internals -----------------------------------------------------------------------------------------------

  /** Optional methods go out only when the agent advertised them. */
  private gate(def: RequestDef): void {
    if (!('feature' in def)) return;
    const gated = def as GatedRequestDef;
    if (!supports(this.described?.capabilities, gated.feature)) {
      throw new NotSupportedError({ what: 'method', method: gated.method, capability: capabilityName(gated.feature) });
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

  private logWarnings(what: string, warnings: readonly string[]): void {
    for (const w of warnings) this.log.warn(`${what}: ${w}`);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
