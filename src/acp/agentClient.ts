// One running agent and its sessions, without any UI: spawning and initializing the process, routing what the
// agent sends to the right session, and running prompt turns. The host supplies the services it implements
// (reading files, and later writing them and running terminals); the UI watches the session models.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { advertisedCapabilities, AgentCapabilities, capabilityName, clientCapabilities } from './capabilities';
import { clientHandler, type HostServices } from './clientHandler';
import type { ConnectionOptions } from './connection';
import { AcpError, endedByClient, ErrorCodes, errorMessage } from './errors';
import { applyEarly, EarlyUpdates, UnknownSessions, type EarlyUpdate } from './earlyUpdates';
import { listAllSessions, reopenWay, STATUS_TIMEOUT_MS } from './sessionList';
import { AuthStatusTracker, isTerminalAuth, readAuthStatus, type AuthStatus } from './authStatus';
import { sessionSetup, type SessionSetup } from './sessionSetup';
import { shortId, silentLogger, tagged, type Logger } from './log';
import type { AgentCommand, AgentEnd, AgentLink } from './process';
import { readAgentUrl, type AgentRemote } from './agentUrl';
import { openAgent } from './openAgent';
import type * as S from './schema.gen';
import { Session, type SessionOptions, type SessionOwner } from './sessionHandle';
import { SessionModel } from './sessionModel';
import { childScope, MAX_SUBAGENTS, scopeRoots, type ChildScope, type SubagentUpdate } from './subagents';
import { agentQuirks, type AgentQuirks } from './quirks';
import { messageForkMeta, type MessageForkPoint } from './messageFork';
import { TerminalManager } from './terminals';
import { preview } from './tolerance';
import { AgentStartFailure, startFailure } from './startFailure';
import type { LineTracer } from './ndjsonWriter';
import { McpOverAcp, type McpMessageRequest } from './mcpOverAcp';
import { QuotaTracker } from './quota';
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
  /** How long closing a session waits for the agent's answer to `session/close` (default 3 s). */
  readonly closeTimeoutMs?: number;
  /** The protocol version to ask for (quirks.ts `protocolToAsk`); the agent may answer 1. Default 1. */
  readonly protocol?: 1 | 2;
}

/** The answer to session/new or fork (v2's with the session's commands). */
type Opened = Pick<S.NewSessionResponse, 'sessionId' | 'modes' | 'configOptions'> & { availableCommands?: S.AvailableCommand[] | undefined };

export class AgentClient implements SessionOwner {
  private readonly sessions = new Map<string, AgentSession>();
  /** The children the open sessions announced (subagents), routed like sessions while their parent is open. */
  private readonly children = new Map<
    string,
    { readonly session: AgentSession; readonly parent: string; readonly root: string; scope: ChildScope }
  >();
  private readonly log: Logger;
  /** Updates for a session whose session/new (or fork) answer has not come yet. */
  private readonly early = new EarlyUpdates();
  private readonly unknown: UnknownSessions;
  private readonly exitEmitter = new Emitter<AgentEnd>();
  private readonly sessionsEmitter = new Emitter<void>();
  private readonly closing = new Set<Promise<void>>();
  private ended: AgentEnd | undefined;

  /** The agent's sign-in state and accounts, where it advertises `auth.status`. */
  readonly auth = new AuthStatusTracker();

  /** What the agent advertised in `initialize`: ask here before offering what needs it. */
  readonly capabilities: AgentCapabilities;

  /** Fires once, when the process ends for whatever reason (including dispose). */
  readonly onDidExit: Event<AgentEnd> = this.exitEmitter.event;
  /** Fires when a session is added or closed. */
  readonly onDidChangeSessions: Event<void> = this.sessionsEmitter.event;

  /** What this agent does that the protocol does not say, as far as its sessions' models read it (quirks.ts). */
  readonly quirks: AgentQuirks;

  private constructor(
    /** The agent's subprocess, or its connection for an agent at a URL. */
    readonly process: AgentLink,
    readonly initialized: S.InitializeResponse,
    /** The commands this agent runs through the client; undefined when terminals are not served. */
    readonly terminals: TerminalManager | undefined,
    log: Logger,
    /** @internal How long Session.close waits for `session/close`. */
    readonly closeTimeoutMs: number,
    /** The MCP servers the client provides over this connection (MCP over ACP), one per session that declared one. */
    readonly mcp: McpOverAcp,
    /** The account's limits, where the agent reports them (quota.ts). */
    readonly quota: QuotaTracker,
  ) {
    this.log = log;
    this.unknown = new UnknownSessions(log);
    this.capabilities = new AgentCapabilities(advertisedCapabilities(initialized));
    this.quirks = agentQuirks(initialized.agentInfo);
    terminals?.onDidStart((event) => this.sessions.get(event.sessionId)?.model.background.commandStarted(event.terminalId, event.command));
    terminals?.onDidOutput((event) => this.sessions.get(event.sessionId)?.model.terminalOutput(event.terminalId, event.text));
    terminals?.onDidExit((event) => this.sessions.get(event.sessionId)?.model.terminalExit(event.terminalId, event.exitStatus));
    void process.exited.then((end) => {
      this.ended = end;
      terminals?.releaseAll();
      for (const session of [...this.sessions.values()]) session.agentEnded(end);
      this.exitEmitter.fire(end);
      this.auth.dispose();
      mcp.dispose();
      quota.dispose();
    });
  }

  /** Spawns the agent (or connects to it at a URL) and runs `initialize`. Rejects with an AgentStartFailure saying why. */
  static async start(command: AgentCommand | AgentRemote, services: HostServices, options: AgentClientOptions): Promise<AgentClient> {
    const log = options.log ?? silentLogger;
    // The handler needs the client, which exists only after initialize: route through a late-bound reference.
    let client: AgentClient | undefined;
    const route = (sessionId: string) => client?.sessionFor(sessionId);
    const accountOf = (sessionId: string) => client?.accountOf(sessionId) ?? sessionId;
    const terminals = options.terminals === false ? undefined : new TerminalManager(tagged(log, 'terminals'), accountOf);
    const mcp = new McpOverAcp((notification) => agentProcess.connection.mcpNotify(notification), tagged(log, 'mcp'));
    const quota = { tracker: new QuotaTracker(), advertised: () => client?.capabilities.supports('quota') === true };
    const handler = {
      mcpMessage: (params: McpMessageRequest, signal: AbortSignal) => mcp.serve(params, signal),
      ...clientHandler(
        services,
        terminals,
        route,
        (sessionId, update) => client?.unknownSession(sessionId, update),
        (parentId, update) => client?.adoptSubagent(parentId, update),
        accountOf,
        quota,
      ),
      // Only from an agent that advertised it, as the schema says it may send it.
      authStatusUpdate: (status: AuthStatus, extension: boolean) =>
        (extension || client?.capabilities.supports('authStatus')) && client?.auth.set(status),
    };
    const connectionOptions: ConnectionOptions = {
      clientInfo: options.clientInfo,
      log: tagged(log, 'connection'),
      accountOf,
      capabilities: clientCapabilities({ terminalAuth: options.terminalAuth === true }),
    };
    let agentProcess: AgentLink;
    try {
      agentProcess = openAgent(command, handler, connectionOptions, { log, trace: options.trace, killGraceMs: options.killGraceMs });
    } catch (error) {
      // spawn throws at once for what the OS refuses outright (EINVAL for a .cmd without a shell on Windows).
      terminals?.dispose();
      const what = 'url' in command ? readAgentUrl(command.url).host : command.command;
      throw new AgentStartFailure({ kind: 'spawnRefused', command: what, detail: errorMessage(error) }, [], error);
    }
    const timeoutMs = options.initializeTimeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    let initialized: S.InitializeResponse;
    try {
      initialized = await Promise.race([
        agentProcess.connection.initialize({}, timeout, options.protocol ?? 1),
        // A spawn failure settles `exited` without ever closing a connection that was never used.
        agentProcess.exited.then((end) => Promise.reject(end)),
      ]);
    } catch (error) {
      terminals?.dispose();
      await agentProcess.dispose();
      const end = agentProcess.hasExited ? await agentProcess.exited : undefined;
      const tail = agentProcess.stderrTail();
      // When the process ended on its own, that is the cause; the closed connection is only its consequence.
      const cause = end && !endedByClient(end) ? end : error;
      throw new AgentStartFailure(startFailure(error, end, timeout.aborted, timeoutMs), tail, cause);
    }
    client = new AgentClient(agentProcess, initialized, terminals, log, options.closeTimeoutMs ?? 3000, mcp, quota.tracker);
    void client.refreshAccount();
    return client;
  }

  get hasExited(): boolean {
    return this.ended !== undefined;
  }

  get openSessions(): readonly AgentSession[] {
    return [...this.sessions.values()];
  }

  /** Creates a session in `cwd` (an absolute folder). */
  async newSession(cwd: string, options: SessionOptions = {}): Promise<AgentSession> {
    return this.opened('session/new', cwd, options, (params) => this.process.connection.newSession({ cwd, ...params }));
  }

  /**
   * Unstable `session/fork`: a new session in `cwd` with the context of `sessionId`, which stays as it is; only up to
   * and including the agent's message `at` where given, which only an agent that `forkAtMessage` is asked.
   */
  async forkSession(sessionId: string, cwd: string, options: SessionOptions = {}, at?: MessageForkPoint): Promise<AgentSession> {
    if (at && !this.capabilities.supports('forkAtMessage')) {
      throw new AcpError(ErrorCodes.InternalError, `the agent does not advertise ${capabilityName('forkAtMessage')}`);
    }
    const meta = at ? { _meta: messageForkMeta(at) } : {};
    return this.opened('session/fork', cwd, options, (params) => this.process.connection.forkSession({ sessionId, cwd, ...params, ...meta }));
  }

  /** A session a request creates (new, fork), with what the agent sent for it before the answer (older than it says). */
  private async opened(
    method: string,
    cwd: string,
    options: SessionOptions,
    request: (params: SessionSetup['params']) => Promise<Opened>,
  ): Promise<AgentSession> {
    const setup = sessionSetup(options, this.capabilities, this.log);
    const { response, early } = await this.early.open(
      () => request(setup.params),
      (id) => this.unknownSession(id),
    );
    this.refuseOpenId(method, response.sessionId);
    const model = new SessionModel(response.sessionId, { modes: response.modes, configOptions: response.configOptions });
    model.quirks = this.quirks;
    applyEarly(model, early);
    this.takeCommands(model, response.availableCommands);
    const log = tagged(this.log, `session ${shortId(response.sessionId)}`);
    const session = new Session<AgentClient>(this, model, cwd, log, setup.leftOut, setup.instructionsNotTaken);
    session.wholeHistory = method !== 'session/fork';
    return this.add(session, options);
  }

  /** v2 answers session/new and session/resume with the session's commands. */
  private takeCommands(model: SessionModel, commands: S.AvailableCommand[] | undefined): void {
    if (commands && this.process.connection.wire === 2) model.apply({ sessionUpdate: 'available_commands_update', availableCommands: commands });
  }

  /** The agent's earlier sessions in `cwd`, every page of them (see sessionList.ts); archived ones too with `include`. */
  listSessions(cwd: string | undefined, signal?: AbortSignal, archived?: 'include'): Promise<S.SessionInfo[]> {
    const asked = archived && this.capabilities.supports('archiveSession') ? archived : undefined; // only where it archives
    return listAllSessions(this.process.connection, this.log, cwd, signal, asked);
  }

  /** Who the agent runs as and the account's limits, asked again (at the start, after a sign-in or out). */
  private async refreshAccount(): Promise<void> {
    await Promise.all([this.refreshAuthStatus(), this.readQuota()]);
  }

  /** Asks `auth/status` again (after a sign-in or out), where advertised; bounded, and a failure is only logged. */
  async refreshAuthStatus(): Promise<void> {
    if (!this.capabilities.supports('authStatus') || this.hasExited) return;
    await this.process.connection
      .authStatus(AbortSignal.timeout(STATUS_TIMEOUT_MS))
      .then((status) => this.auth.set(readAuthStatus(status)))
      .catch((error: unknown) => this.log.warn(`auth/status failed: ${errorMessage(error)}`));
  }

  /** Draft `quota/read` where advertised: a session's (a reopen replays no quota_update) or the account's; bounded, failures logged. */
  async readQuota(sessionId?: string): Promise<void> {
    if (!this.capabilities.supports('quota') || this.hasExited) return;
    await this.process.connection
      .readQuota(sessionId === undefined ? {} : { sessionId }, AbortSignal.timeout(STATUS_TIMEOUT_MS))
      // A session's, only while it is open: a closed one's would stay, unseen, and could be shown as the newest.
      .then((snapshot) => (sessionId === undefined || this.sessions.has(sessionId)) && this.quota.takeSnapshot(snapshot, sessionId))
      .catch((error: unknown) => this.log.warn(`quota/read failed: ${errorMessage(error)}`));
  }

  /** Archives a session at the agent, or brings it back (unstable); false, and nothing sent, where it does not archive. */
  async setArchived(sessionId: string, archived: boolean): Promise<boolean> {
    if (!this.capabilities.supports('archiveSession')) return false;
    // Bounded: an agent that never answers must not hold up the chat's archive or its reopening.
    await this.process.connection.setArchived({ sessionId }, archived, AbortSignal.timeout(STATUS_TIMEOUT_MS));
    return true;
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
    void this.refreshAccount();
  }

  /** Signs the user out; refused (NotSupportedError) when the agent does not advertise it. */
  async logout(): Promise<void> {
    await this.process.connection.logout({});
    // The limits were the account's that signed out.
    this.quota.clear();
    void this.refreshAccount();
  }

  /** How `sessionId` can be reopened (sessionList.ts). */
  reopenWay(sessionId: string): Promise<'load' | 'resume' | 'gone' | undefined> {
    return reopenWay(this.capabilities, this.process.connection, this.log, sessionId);
  }

  /**
   * Reopens an earlier session. `load` replays its history into a fresh model (routed before the request: the replay
   * comes first); `resume` continues it without one. Given up (`options.signal`), it is dropped at once, unanswered.
   */
  async reopenSession(sessionId: string, cwd: string, how: 'load' | 'resume', options: SessionOptions = {}): Promise<AgentSession> {
    if (this.sessions.has(sessionId)) throw new AcpError(ErrorCodes.InvalidRequest, `session ${sessionId} is already open`);
    const setup = sessionSetup(options, this.capabilities, this.log);
    const model = Object.assign(new SessionModel(sessionId), { quirks: this.quirks });
    const log = tagged(this.log, `session ${shortId(sessionId)}`);
    const session = this.add(new Session<AgentClient>(this, model, cwd, log, setup.leftOut, setup.instructionsNotTaken), options);
    session.wholeHistory = how === 'load';
    const drop = () => void session.discard();
    options.signal?.addEventListener('abort', drop, { once: true });
    try {
      const params = { sessionId, cwd, ...setup.params };
      const { connection } = this.process;
      const response = how === 'load' ? await connection.loadSession(params, options.signal) : await connection.resumeSession(params, options.signal);
      if (options.signal?.aborted) throw new AcpError(ErrorCodes.InternalError, `the reopen of ${sessionId} was given up`);
      model.setup({ modes: response.modes, configOptions: response.configOptions });
      this.takeCommands(model, response.availableCommands);
      void this.readQuota(sessionId);
      return session;
    } catch (error) {
      // Quietly: the caller decides whether the agent is still needed; the agent never opened it: no session/close.
      if (this.sessions.get(sessionId) === session) this.sessions.delete(sessionId);
      await session.discard();
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', drop);
    }
  }

  /**
   * A new session must not take the id of one already open (or of a subagent's): its updates, permissions and
   * checkpoints would reach the other chat. Refused with a sentence; the open one is left as it is.
   */
  private refuseOpenId(method: string, sessionId: string): void {
    if (!this.sessions.has(sessionId) && !this.children.has(sessionId)) return;
    throw new AcpError(
      ErrorCodes.InternalError,
      `the agent answered ${method} with the id of a session already open (${preview(sessionId, 80)}), so it was not used`,
    );
  }

  /** A chat's session, routed from now on; held to `options.workspace` in place of the workspace folders, if given. */
  private add(session: AgentSession, options: SessionOptions): AgentSession {
    session.workspace = options.workspace;
    this.sessions.set(session.sessionId, session);
    this.sessionsEmitter.fire();
    return session;
  }

  /** @internal Called by Session.close. */
  forget(session: AgentSession): void {
    this.terminals?.releaseAll(session.sessionId);
    // Its subagents go with it, however deeply nested (their models with its model).
    for (const [id, child] of this.children) {
      if (child.root !== session.sessionId) continue;
      this.children.delete(id);
      this.terminals?.releaseAll(id);
    }
    if (this.sessions.get(session.sessionId) === session) {
      this.sessions.delete(session.sessionId);
      this.sessionsEmitter.fire();
    }
  }

  private sessionFor(sessionId: string): AgentSession | undefined {
    return this.sessions.get(sessionId) ?? this.children.get(sessionId)?.session;
  }

  /**
   * The session whose bounds `sessionId` counts against: a subagent's (nested or not) is its root session's, so
   * subagents cannot multiply the requests, terminals and questions one chat may hold.
   */
  accountOf(sessionId: string): string {
    return this.children.get(sessionId)?.root ?? sessionId;
  }

  /** A parent announced a child or patched it: from now on the child's traffic goes to its model, under the parent. */
  private adoptSubagent(parentId: string, update: SubagentUpdate): void {
    const parent = this.sessionFor(parentId);
    if (!parent) {
      this.unknownSession(parentId);
      return;
    }
    const model = parent.model.noteSubagent(update);
    if (!model) {
      this.log.warn(`session ${shortId(parentId)} announced more than ${MAX_SUBAGENTS} subagents; ${shortId(update.sessionId)} was skipped`);
      return;
    }
    const root = this.accountOf(parentId);
    if (!this.children.has(update.sessionId) && !this.sessions.has(update.sessionId)) {
      // However they nest, a chat holds at most MAX_SUBAGENTS of them in all.
      if ([...this.children.values()].filter((c) => c.root === root).length >= MAX_SUBAGENTS) {
        this.log.warn(`session ${shortId(root)} holds ${MAX_SUBAGENTS} subagents in all; ${shortId(update.sessionId)} was skipped`);
        return;
      }
      const scope = childScope(this.scopeOf(parentId, parent), parent.model.subagents.find((s) => s.model === model)?.info);
      const child = new Session<AgentClient>(this, model, scope.cwd, tagged(this.log, `subagent ${shortId(update.sessionId)}`));
      this.children.set(update.sessionId, { session: child, parent: parentId, root, scope });
    }
    // A patch may change where this child and those under it work: each is worked out again from its parent, in the
    // order they came (a parent before its children).
    for (const child of this.children.values()) {
      if (child.root !== root) continue;
      const above = this.sessionFor(child.parent);
      child.scope = childScope(this.scopeOf(child.parent, above), above?.model.subagents.find((s) => s.model === child.session.model)?.info);
      child.session.roots = scopeRoots(child.scope);
      // Its terminals start where it works now, not where it first worked.
      child.session.cwd = child.scope.cwd;
    }
  }

  /** Where a session works: a child's scope, or a chat's own session's folder (its roots are the workspace's). */
  private scopeOf(sessionId: string, session: AgentSession | undefined): ChildScope {
    return this.children.get(sessionId)?.scope ?? { cwd: session?.cwd ?? '' };
  }

  private unknownSession(sessionId: string, update?: EarlyUpdate): void {
    if (update && this.early.keep(sessionId, update)) return;
    this.unknown.report(sessionId);
  }

  /** @internal A `session/close` on its way: the process is not stopped before it is answered (or gave up on). */
  awaitBeforeStop(closing: Promise<void>): void {
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
  }

  /**
   * Stops the agent (SIGTERM to its process group, then SIGKILL) once the `session/close` requests on their way are
   * answered (each waits a bounded time). Sessions see the end.
   */
  async dispose(): Promise<void> {
    if (this.closing.size > 0) await Promise.all([...this.closing]);
    this.terminals?.dispose();
    await this.process.dispose();
    this.exitEmitter.dispose();
    this.sessionsEmitter.dispose();
  }
}

/** A session of an agent client, as the host holds it. */
export type AgentSession = Session<AgentClient>;
