// One running agent and its sessions, without any UI: spawning and initializing the process, routing what the
// agent sends to the right session, and running prompt turns. The host supplies the services it implements
// (reading files, and later writing them and running terminals); the UI watches the session models.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import type { ClientHandler, ConnectionOptions } from './connection';
import { AcpError, AgentExitError, ErrorCodes, errorMessage } from './errors';
import { silentLogger, tagged, type Logger } from './log';
import { AgentProcess, type AgentCommand, type AgentEnd } from './process';
import type * as S from './schema.gen';
import { SessionModel, type ToolCallState } from './session';
import { TerminalManager } from './terminals';
import type { LineTracer } from './transport';

/** What the host implements for the agent. Whatever is left out is not advertised. */
export interface HostServices {
  readTextFile?(params: S.ReadTextFileRequest, signal: AbortSignal): Promise<S.ReadTextFileResponse>;
  writeTextFile?(params: S.WriteTextFileRequest, signal: AbortSignal): Promise<S.WriteTextFileResponse>;
  /** The client's own answer to a permission request (a rule, a setting), given before anyone is asked. */
  decidePermission?(request: PermissionContext): PermissionDecision | undefined;
  /** The user answered a permission request (an "always" answer can become a rule). */
  permissionAnswered?(request: PermissionContext, option: S.PermissionOption): void;
}

/** A permission request with what the client knows of its tool call (an earlier `tool_call` may carry the title). */
export interface PermissionContext {
  readonly sessionId: string;
  readonly cwd: string;
  readonly call: Readonly<ToolCallState>;
  readonly options: readonly S.PermissionOption[];
}

export interface PermissionDecision {
  readonly optionId: string;
  /** Shown on the tool call and logged: nothing is answered silently. */
  readonly reason: string;
}

export interface AgentClientOptions {
  readonly clientInfo: S.Implementation;
  readonly log?: Logger;
  readonly trace?: LineTracer;
  /** How long the agent gets to answer `initialize` (default 30 s). */
  readonly initializeTimeoutMs?: number;
  /** How long SIGTERM gets before SIGKILL. */
  readonly killGraceMs?: number;
  /** Serve `terminal/*` (and advertise it). Default true. */
  readonly terminals?: boolean;
  /** The host can run `type: "terminal"` auth methods (advertised as `auth.terminal`). Default false. */
  readonly terminalAuth?: boolean;
}

/** Starting the agent failed: it could not be spawned, exited early, did not answer, or spoke another version. */
export class AgentStartFailure extends Error {
  override readonly name = 'AgentStartFailure';
  constructor(
    message: string,
    readonly stderrTail: readonly string[],
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** A prompt was not sent at all (the chat is closed, the agent is gone, or a turn is running); nothing was lost. */
export class PromptRefusedError extends Error {
  override readonly name = 'PromptRefusedError';
}

export class AgentClient {
  private readonly sessions = new Map<string, Session>();
  private readonly log: Logger;
  private readonly unknownSessions = new Set<string>();
  private readonly exitEmitter = new Emitter<AgentEnd>();
  private readonly sessionsEmitter = new Emitter<void>();
  private ended: AgentEnd | undefined;

  /** Fires once, when the process ends for whatever reason (including dispose). */
  readonly onDidExit: Event<AgentEnd> = this.exitEmitter.event;
  /** Fires when a session is added or closed. */
  readonly onDidChangeSessions: Event<void> = this.sessionsEmitter.event;

  private constructor(
    readonly process: AgentProcess,
    readonly initialized: S.InitializeResponse,
    /** The commands this agent runs through the client; undefined when terminals are not served. */
    readonly terminals: TerminalManager | undefined,
    log: Logger,
  ) {
    this.log = log;
    terminals?.onDidOutput((event) => this.sessions.get(event.sessionId)?.model.terminalOutput(event.terminalId, event.text));
    terminals?.onDidExit((event) => this.sessions.get(event.sessionId)?.model.terminalExit(event.terminalId, event.exitStatus));
    void process.exited.then((end) => {
      this.ended = end;
      terminals?.releaseAll();
      for (const session of [...this.sessions.values()]) session.agentEnded(end);
      this.exitEmitter.fire(end);
    });
  }

  /** Spawns the agent and runs `initialize`. Rejects with an AgentStartFailure that says why in one sentence. */
  static async start(command: AgentCommand, services: HostServices, options: AgentClientOptions): Promise<AgentClient> {
    const log = options.log ?? silentLogger;
    // The handler needs the client, which exists only after initialize: route through a late-bound reference.
    let client: AgentClient | undefined;
    const route = (sessionId: string) => client?.sessionFor(sessionId);
    const terminals = options.terminals === false ? undefined : new TerminalManager();
    const handler = makeHandler(services, terminals, route, (sessionId) => client?.unknownSession(sessionId));
    const connectionOptions: ConnectionOptions = {
      clientInfo: options.clientInfo,
      log: tagged(log, 'connection'),
      // Agents that run commands themselves stream the output in `_meta`; the session model shows it. The chat
      // shows notices and boolean config options (as a checkbox).
      capabilities: {
        _meta: { terminal_output: true },
        session: { notices: {}, configOptions: { boolean: {} } },
        ...(options.terminalAuth ? { auth: { terminal: true } } : {}),
      },
    };
    const agentProcess = AgentProcess.spawn(command, handler, connectionOptions, {
      log: tagged(log, 'process'),
      trace: options.trace,
      killGraceMs: options.killGraceMs,
    });
    const timeoutMs = options.initializeTimeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    let initialized: S.InitializeResponse;
    try {
      initialized = await Promise.race([
        agentProcess.connection.initialize({}, timeout),
        // A spawn failure settles `exited` without ever closing a connection that was never used.
        agentProcess.exited.then((end) => Promise.reject(end)),
      ]);
    } catch (error) {
      terminals?.dispose();
      await agentProcess.dispose();
      const end = agentProcess.hasExited ? await agentProcess.exited : undefined;
      const tail = agentProcess.stderrTail();
      // When the process ended on its own, that is the cause; the closed connection is only its consequence.
      const cause = end && !(end instanceof AgentExitError && end.expected) ? end : error;
      throw new AgentStartFailure(describeStartFailure(error, end, timeout.aborted, timeoutMs), tail, cause);
    }
    client = new AgentClient(agentProcess, initialized, terminals, log);
    return client;
  }

  get hasExited(): boolean {
    return this.ended !== undefined;
  }

  get openSessions(): readonly Session[] {
    return [...this.sessions.values()];
  }

  /** Creates a session in `cwd` (an absolute folder). */
  async newSession(cwd: string): Promise<Session> {
    const response = await this.process.connection.newSession({ cwd, mcpServers: [] });
    const model = new SessionModel(response.sessionId, { modes: response.modes, configOptions: response.configOptions });
    return this.add(new Session(this, model, cwd, tagged(this.log, `session ${shortId(response.sessionId)}`)));
  }

  /**
   * How a user can sign in to this agent. Terminal methods are listed only when the host runs them (they are
   * advertised as `auth.terminal` then), since an agent may offer them to such clients only.
   */
  authMethods(terminalAuth: boolean): readonly S.AuthMethod[] {
    return (this.initialized.authMethods ?? []).filter((m) => terminalAuth || !isTerminalAuth(m));
  }

  /** Signs in with an agent-run method (the agent does the work, for example in a browser). */
  async authenticate(methodId: string, signal?: AbortSignal): Promise<void> {
    await this.process.connection.authenticate({ methodId }, signal);
  }

  /** Whether the agent can sign the user out (`auth.logout`). */
  get canLogout(): boolean {
    return this.initialized.agentCapabilities?.auth?.logout != null;
  }

  /** Signs the user out; refused (NotSupportedError) when the agent does not advertise it. */
  async logout(): Promise<void> {
    await this.process.connection.logout({});
  }

  /** What the agent accepts in a prompt besides text and resource links. */
  get accepts(): { readonly image: boolean; readonly audio: boolean; readonly embeddedContext: boolean } {
    const caps = this.initialized.agentCapabilities?.promptCapabilities;
    return { image: caps?.image === true, audio: caps?.audio === true, embeddedContext: caps?.embeddedContext === true };
  }

  /** Whether the agent can replay an earlier session (`session/load`) or continue it without replay (`session/resume`). */
  get reopens(): { readonly load: boolean; readonly resume: boolean } {
    const caps = this.initialized.agentCapabilities;
    return { load: caps?.loadSession === true, resume: caps?.sessionCapabilities?.resume != null };
  }

  /**
   * Reopens an earlier session. `load` replays its history into a fresh model (the session is routed before the
   * request, since the replay comes before the answer); `resume` continues it without a replay.
   */
  async reopenSession(sessionId: string, cwd: string, how: 'load' | 'resume'): Promise<Session> {
    if (this.sessions.has(sessionId)) throw new AcpError(ErrorCodes.InvalidRequest, `session ${sessionId} is already open`);
    const model = new SessionModel(sessionId);
    const session = this.add(new Session(this, model, cwd, tagged(this.log, `session ${shortId(sessionId)}`)));
    try {
      const params = { sessionId, cwd, mcpServers: [] };
      const response = how === 'load' ? await this.process.connection.loadSession(params) : await this.process.connection.resumeSession(params);
      model.setup({ modes: response.modes, configOptions: response.configOptions });
      return session;
    } catch (error) {
      // Quietly: the caller decides whether the agent is still needed (it usually opens a new session instead).
      this.sessions.delete(sessionId);
      await session.close();
      throw error;
    }
  }

  private add(session: Session): Session {
    this.sessions.set(session.sessionId, session);
    this.sessionsEmitter.fire();
    return session;
  }

  /** @internal Called by Session.close. */
  forget(session: Session): void {
    this.terminals?.releaseAll(session.sessionId);
    if (this.sessions.get(session.sessionId) === session) {
      this.sessions.delete(session.sessionId);
      this.sessionsEmitter.fire();
    }
  }

  private sessionFor(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  private unknownSession(sessionId: string): void {
    if (this.unknownSessions.has(sessionId)) return;
    this.unknownSessions.add(sessionId);
    this.log.warn(`the agent sent something for session ${sessionId}, which is not open here; ignored`);
  }

  /** Stops the agent (SIGTERM to its process group, then SIGKILL). Sessions see the end. */
  async dispose(): Promise<void> {
    this.terminals?.dispose();
    await this.process.dispose();
    this.exitEmitter.dispose();
    this.sessionsEmitter.dispose();
  }
}

/** One conversation with the agent. */
export class Session {
  private closed = false;
  private readonly endEmitter = new Emitter<AgentEnd>();
  /** The agent process ended while this session was open. */
  readonly onDidEndAgent: Event<AgentEnd> = this.endEmitter.event;
  private agentEnd: AgentEnd | undefined;

  constructor(
    readonly client: AgentClient,
    readonly model: SessionModel,
    /** The session's working folder: terminals run there unless the agent says otherwise. */
    readonly cwd: string,
    private readonly log: Logger,
  ) {}

  get sessionId(): string {
    return this.model.sessionId;
  }

  /** Why the agent is gone, if it is. */
  get ended(): AgentEnd | undefined {
    return this.agentEnd;
  }

  /**
   * Runs one turn: the prompt is shown at once, the agent's updates stream into the model, and the turn ends with
   * the agent's stop reason. An error answer or the agent's exit ends the turn with that error and rejects.
   */
  async prompt(prompt: S.ContentBlock[]): Promise<S.StopReason> {
    if (this.closed) throw new PromptRefusedError('this chat is closed');
    if (this.agentEnd) throw new PromptRefusedError(`the agent is not running: ${this.agentEnd.message}`);
    if (this.model.turn.phase !== 'idle') throw new PromptRefusedError('the agent is still working on the previous message');
    this.model.beginTurn(prompt);
    try {
      const response = await this.client.process.connection.prompt({ sessionId: this.sessionId, prompt });
      this.model.endTurn(response.stopReason);
      return response.stopReason;
    } catch (error) {
      if (error instanceof AcpError && error.isCancelled) {
        this.model.endTurn('cancelled');
        return 'cancelled';
      }
      const reason = errorMessage(error);
      this.log.warn(`prompt failed: ${reason}`);
      this.model.failTurn(reason);
      throw error;
    }
  }

  /** Sets the session mode; the model shows the new mode once the agent accepted it. */
  async setMode(modeId: string): Promise<void> {
    await this.client.process.connection.setMode({ sessionId: this.sessionId, modeId });
    this.model.apply({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
  }

  /** Sets a config option; the agent answers with all of them, which the model takes whole. */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const response = await this.client.process.connection.setConfigOption(
      typeof value === 'boolean' ? { sessionId: this.sessionId, configId, type: 'boolean', value } : { sessionId: this.sessionId, configId, value },
    );
    this.model.apply({ sessionUpdate: 'config_option_update', configOptions: response.configOptions });
  }

  /** Stops the running turn: pending permissions are answered `cancelled` and `session/cancel` is sent. */
  async cancel(): Promise<void> {
    if (this.model.turn.phase === 'idle') return;
    this.model.cancelTurn();
    await this.client.process.connection.cancel({ sessionId: this.sessionId });
  }

  /** Closes the session here (the agent keeps it). Pending permissions are answered `cancelled`. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.cancel().catch(() => {});
    this.closed = true;
    this.client.forget(this);
    this.model.dispose();
    this.endEmitter.dispose();
  }

  /** @internal Called by AgentClient when the process ends. */
  agentEnded(end: AgentEnd): void {
    this.agentEnd = end;
    if (this.model.turn.phase !== 'idle') this.model.failTurn(end.message);
    this.endEmitter.fire(end);
  }
}

function makeHandler(
  services: HostServices,
  terminals: TerminalManager | undefined,
  route: (sessionId: string) => Session | undefined,
  unknown: (sessionId: string) => void,
): ClientHandler {
  const session = (sessionId: string): Session => {
    const found = route(sessionId);
    if (!found) throw new AcpError(ErrorCodes.InvalidParams, `unknown session: ${sessionId}`);
    return found;
  };
  const handler: ClientHandler = {
    async requestPermission(params, signal) {
      const target = session(params.sessionId);
      const model = target.model;
      const context: PermissionContext = { sessionId: target.sessionId, cwd: target.cwd, call: model.noteToolCall(params.toolCall), options: params.options };
      const decision = services.decidePermission?.(context);
      const chosen = decision && params.options.find((o) => o.optionId === decision.optionId);
      if (decision && chosen) {
        model.recordAutoAnswer(params.toolCall.toolCallId, chosen, decision.reason);
        return { outcome: { outcome: 'selected', optionId: chosen.optionId } };
      }
      const outcome = await model.requestPermission(params, signal);
      const picked = outcome.outcome === 'selected' ? params.options.find((o) => o.optionId === outcome.optionId) : undefined;
      if (picked) services.permissionAnswered?.(context, picked);
      return { outcome };
    },
    sessionUpdate(notification) {
      const target = route(notification.sessionId);
      if (target) target.model.apply(notification.update);
      else unknown(notification.sessionId);
    },
  };
  const read = services.readTextFile?.bind(services);
  if (read) {
    handler.readTextFile = async (params, signal) => {
      session(params.sessionId);
      return read(params, signal);
    };
  }
  const write = services.writeTextFile?.bind(services);
  if (write) {
    handler.writeTextFile = async (params, signal) => {
      session(params.sessionId);
      return write(params, signal);
    };
  }
  if (terminals) {
    handler.createTerminal = async (params) => terminals.create(params, session(params.sessionId).cwd);
    handler.terminalOutput = async (params) => terminals.output(params);
    handler.waitForTerminalExit = (params, signal) => terminals.waitForExit(params, signal);
    handler.killTerminal = async (params) => terminals.kill(params);
    handler.releaseTerminal = async (params) => terminals.release(params);
  }
  return handler;
}

function describeStartFailure(error: unknown, end: AgentEnd | undefined, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `the agent did not answer initialize within ${Number((timeoutMs / 1000).toFixed(1))} s`;
  if (end && !(end instanceof AgentExitError && end.expected)) return end.message;
  return errorMessage(error);
}

/** A sign-in method that the client runs in a terminal: the agent's own command with the method's args and env. */
export type TerminalAuthMethod = Extract<S.AuthMethod, { type: 'terminal' }>;

export function isTerminalAuth(method: S.AuthMethod): method is TerminalAuthMethod {
  return 'type' in method && method.type === 'terminal';
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}
