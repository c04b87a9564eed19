// One conversation with the agent, as the host holds it: prompt turns, mode and config changes, cancel and close.
// The session's state lives in its SessionModel; the agent client that owns it routes the agent's traffic there.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import type { AgentCapabilities, OfferedMcpServer } from './capabilities';
import type { AcpClientConnection } from './connection';
import type { BackgroundItem } from './background';
import { AcpError, ErrorCodes, errorMessage, failureOf, PromptRefusedError } from './errors';
import type { Logger } from './log';
import type { AgentEnd } from './process';
import type { QuotaMeter } from './quota';
import { readTurnFailure } from './turnFailure';
import type * as S from './schema.gen';
import type { SessionModel } from './sessionModel';
import type { TerminalManager } from './terminals';
import { turnUsageOf } from './turnUsage';

/** Files a chat's messages linked to that are kept readable, the latest first. */
const MAX_LINKED_FILES = 200;

/** What a session is opened with besides its folder. Each part goes to the agent only as far as it advertised it. */
export interface SessionOptions {
  /** MCP servers for the agent to use; http and sse ones only reach agents that advertise them. */
  readonly mcpServers?: readonly OfferedMcpServer[];
  /** More folders the session may work in (sent only when the agent advertises `sessionCapabilities.additionalDirectories`). */
  readonly additionalDirectories?: readonly string[];
  /** The user's instructions, appended to the agent's own (sent only when it advertises `sessionCapabilities.systemPrompt`). */
  readonly instructions?: string;
  /**
   * The folders that stand for the workspace in the host's path policy for this session and its subagents, in place
   * of the workspace folders: a chat in a worktree works in the worktree alone. Never sent to the agent.
   */
  readonly workspace?: readonly string[];
  /** Gives up a reopen (`$/cancel_request`): the session is dropped at once, whatever the agent does after. */
  readonly signal?: AbortSignal;
}

/** An MCP server a session was opened without, because the agent does not take its transport. */
export interface LeftOutServer {
  readonly name: string;
  readonly transport: 'http' | 'sse' | 'acp';
}

/** How a message sent into a running turn went. */
export type SteerOutcome = 'injected' | 'startedNewTurn' | 'failed';

/** What a session needs of the agent client that owns it. */
export interface SessionOwner {
  readonly process: { readonly pid: number | undefined; readonly connection: AcpClientConnection };
  /** What the agent advertised (whether it wants `session/close`, say). */
  readonly capabilities: AgentCapabilities;
  /** How long closing waits for the agent's answer to `session/close`. */
  readonly closeTimeoutMs: number;
  /** A `session/close` on its way: the process is not stopped before it is answered (or given up on). */
  awaitBeforeStop(closing: Promise<void>): void;
  /** The session is closed: it gets no more of the agent's traffic. */
  forget(session: Session): void;
  /** The commands the client runs for the agent's sessions (`terminal/*`), where it serves them. */
  readonly terminals?: Pick<TerminalManager, 'kill'> | undefined;
  /** The account's limits the agent reported (quota.ts), which say what a failure was; a closed session's go with it. */
  readonly quota?: { readonly all: readonly QuotaMeter[]; forget(sessionId: string): void };
}

/**
 * Runs after a turn's message is shown and before its prompt goes to the agent (a checkpoint of the workspace, say),
 * with the id of the user's message entry. It should not throw; a rejection is logged and the prompt goes anyway.
 * The gates of a prompt run side by side: none may depend on another.
 */
export type PromptGate = (turn: number) => Promise<void>;

/** One conversation with the agent. `Owner` is the agent client that opened it, as its users know it. */
export class Session<Owner extends SessionOwner = SessionOwner> {
  private closed = false;
  private readonly endEmitter = new Emitter<AgentEnd>();
  /** The agent process ended while this session was open. */
  readonly onDidEndAgent: Event<AgentEnd> = this.endEmitter.event;
  private readonly closeEmitter = new Emitter<void>();
  /** The session was closed here (closed, archived, or dropped): what was granted to it for its life ends. */
  readonly onDidClose: Event<void> = this.closeEmitter.event;
  private agentEnd: AgentEnd | undefined;
  private readonly gates = new Set<PromptGate>();
  /** Settles when the running turn's prompt has gone to the agent (or will not): steering waits for it. */
  private promptOut: Promise<void> = Promise.resolve();

  /**
   * A subagent's roots, where the agent named more of them (`subagent_update.additionalDirectories`): its working
   * folder and those. The host asks about the child's paths outside them, even inside the workspace; they never
   * widen what the workspace allows. Undefined for a chat's own session, and a child that inherits.
   */
  roots: readonly string[] | undefined;

  /** The folders that stand for the workspace for this session (`SessionOptions.workspace`); undefined: the workspace's. */
  workspace: readonly string[] | undefined;

  /** The files this chat's messages linked to (`resource_link`, a file): the agent may read them wherever they are. */
  private readonly linkedFiles = new Set<string>();

  constructor(
    readonly client: Owner,
    readonly model: SessionModel,
    /** The session's working folder: terminals run there unless the agent says otherwise. A subagent's follows its scope. */
    public cwd: string,
    private readonly log: Logger,
    /** The MCP servers the session was opened without (the agent cannot use them); the host says so in its words. */
    readonly leftOut: readonly LeftOutServer[] = [],
    /** The user's instructions were not sent: the agent does not take them. */
    readonly instructionsNotTaken = false,
  ) {}

  /**
   * Whether the model holds the agent's whole history of the session (opened new, or loaded with its replay), rather
   * than only what came since it was resumed or forked from another: what a fork at a message may count on.
   */
  wholeHistory = true;

  /** The files this chat's messages linked to, the latest MAX_LINKED_FILES. */
  get linked(): ReadonlySet<string> {
    return this.linkedFiles;
  }

  /** Keeps the files a message the user sends links to: the agent is meant to read them. */
  private noteLinks(prompt: readonly S.ContentBlock[]): void {
    for (const block of prompt) {
      if (block.type !== 'resource_link' || !block.uri.startsWith('file:')) continue;
      let path: string;
      try {
        path = realpathSync(fileURLToPath(block.uri));
      } catch {
        continue;
      }
      this.linkedFiles.delete(path);
      this.linkedFiles.add(path);
      if (this.linkedFiles.size > MAX_LINKED_FILES) this.linkedFiles.delete(this.linkedFiles.values().next().value!);
    }
  }

  /** Closed here (closed, archived or dropped). */
  get isClosed(): boolean {
    return this.closed;
  }

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
    if (this.closed) throw new PromptRefusedError({ reason: 'closed' });
    if (this.agentEnd) throw new PromptRefusedError({ reason: 'agentEnded', cause: failureOf(this.agentEnd) });
    if (this.model.turn.phase !== 'idle') throw new PromptRefusedError({ reason: 'busy' });
    const turn = this.model.beginTurn(prompt);
    this.noteLinks(prompt);
    let out!: () => void;
    this.promptOut = new Promise<void>((resolve) => (out = resolve));
    try {
      // Side by side: the checkpoint and the level's mode do not wait for each other.
      await Promise.all(
        [...this.gates].map((gate) => gate(turn).catch((error: unknown) => this.log.warn(`before the prompt: ${errorMessage(error)}`))),
      );
      // Stopped (or closed) while the gates ran: the agent never hears of this turn.
      if (this.stoppedBeforeSending()) {
        out();
        this.model.endTurn('cancelled');
        return 'cancelled';
      }
      const connection = this.client.process.connection;
      if (connection.wire === 2) {
        // v2: the answer says the prompt was taken in; the agent's idle state ends the turn (v2/apply.ts).
        const ended = this.turnEnd();
        ended.catch(() => {}); // awaited below, unless the prompt fails first
        this.model.v2.prompt = 'sent';
        const taken = connection.submit({ sessionId: this.sessionId, prompt });
        out();
        // The answer, unless the turn ended first (the chat closed while the agent held the prompt, say).
        const answer = await Promise.race([taken, ended.then(() => undefined)]);
        if (answer) this.model.nameMessage(turn, answer.messageId);
        if (answer && this.model.v2.prompt === 'sent') this.model.v2.prompt = 'taken';
        return await ended;
      }
      const response = connection.prompt({ sessionId: this.sessionId, prompt });
      out(); // on its way: a steered message may follow it
      const answer = await response;
      this.model.endTurn(answer.stopReason, turnUsageOf(answer));
      return answer.stopReason;
    } catch (error) {
      out();
      this.model.v2.ended();
      if (error instanceof AcpError && error.isCancelled) {
        this.model.endTurn('cancelled');
        return 'cancelled';
      }
      const reason = errorMessage(error);
      this.log.warn(`prompt failed: ${reason}`);
      const failure = error instanceof AcpError ? readTurnFailure(error.code, error.data, this.client.quota?.all) : undefined;
      if (this.model.turn.phase !== 'idle') this.model.failTurn(reason, error instanceof AcpError ? error.code : undefined, failure);
      throw error;
    }
  }

  /**
   * v2: settles when the running turn ends: with its stop reason, or rejects with why it failed; `cancelled` when the
   * session closes first (nothing the agent sends reaches it then).
   */
  private turnEnd(): Promise<S.StopReason> {
    return new Promise((resolve, reject) => {
      const listeners = [
        this.model.onDidChange((change) => {
          const turn = this.model.turn;
          if (change.type !== 'turn' || turn.phase !== 'idle') return;
          for (const l of listeners) l.dispose();
          if (turn.error !== undefined) reject(new AcpError(turn.errorCode ?? ErrorCodes.InternalError, turn.error));
          else resolve(turn.stopReason ?? 'end_turn');
        }),
        this.onDidClose(() => {
          for (const l of listeners) l.dispose();
          resolve('cancelled');
        }),
      ];
    });
  }

  /**
   * Stops one item of the background work: a command the client runs is killed; the agent is asked to cancel a tool
   * call or a terminal it said it can (v2). False when it cannot be stopped from here, or the agent refused.
   */
  async stopBackground(item: BackgroundItem): Promise<boolean> {
    if (item.terminalId !== undefined) return this.stopCommand(item.terminalId);
    if (item.cancel?.type === 'subagent') return this.cancelSubagent(item.cancel.id);
    return item.cancel ? this.cancelAtAgent(item.cancel.type, item.cancel.id) : false;
  }

  /** v2: asks the agent to stop one tool call (its card's Stop), where the call says it can be. */
  async cancelToolCall(toolCallId: string): Promise<boolean> {
    return this.model.background.canCancel(toolCallId) && this.cancelAtAgent('tool_call', toolCallId);
  }

  /** v2: `tool_call/cancel` or `terminal/cancel`. The answer says the agent took it; its update says the work stopped. */
  private async cancelAtAgent(type: 'tool_call' | 'terminal', id: string): Promise<boolean> {
    const connection = this.client.process.connection;
    try {
      if (type === 'tool_call') await connection.cancelToolCall({ sessionId: this.sessionId, toolCallId: id });
      else await connection.cancelTerminal({ sessionId: this.sessionId, terminalId: id });
      return true;
    } catch (error) {
      this.log.warn(`stopping ${type} ${id} failed: ${errorMessage(error)}`);
      return false;
    }
  }

  /**
   * Sends a message into the running turn (steering), for an agent that advertised it. The message shows in the
   * conversation at once, and then how it went. Refused (PromptRefusedError) when no turn runs.
   */
  async steer(prompt: S.ContentBlock[]): Promise<SteerOutcome> {
    if (this.closed) throw new PromptRefusedError({ reason: 'closed' });
    if (this.agentEnd) throw new PromptRefusedError({ reason: 'agentEnded', cause: failureOf(this.agentEnd) });
    if (this.model.turn.phase === 'idle' || this.model.turn.phase === 'cancelling') throw new PromptRefusedError({ reason: 'noTurn' });
    const index = this.model.steerMessage(prompt);
    this.noteLinks(prompt);
    // Into the turn the agent has: not before its prompt has gone out (a checkpoint may still be running).
    await this.promptOut;
    let outcome: SteerOutcome;
    try {
      const answer = await this.client.process.connection.steer({ sessionId: this.sessionId, prompt });
      outcome = answer.outcome === 'injected' || answer.outcome === 'startedNewTurn' ? answer.outcome : 'failed';
    } catch (error) {
      this.log.warn(`steering failed: ${errorMessage(error)}`);
      outcome = 'failed';
    }
    this.model.setSteer(index, outcome);
    return outcome;
  }

  private stoppedBeforeSending(): boolean {
    return this.model.turn.phase === 'cancelling' || this.closed;
  }

  /** Adds a gate that each prompt passes before it is sent; dispose the result to remove it. */
  gatePrompts(gate: PromptGate): { dispose(): void } {
    this.gates.add(gate);
    return { dispose: () => this.gates.delete(gate) };
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

  /** Stops a child's work (subagents), when the agent said the child may be cancelled. False when it may not. */
  async cancelSubagent(childId: string): Promise<boolean> {
    const child = this.model.subagents.find((c) => c.info.sessionId === childId);
    if (!child?.info.canCancel) return false;
    await this.client.process.connection.cancel({ sessionId: childId });
    return true;
  }

  /**
   * Stops a command the client runs for this session (the user stopped background work): its process group gets
   * SIGTERM, then SIGKILL. False when the session holds no such command.
   */
  stopCommand(terminalId: string): boolean {
    try {
      this.client.terminals?.kill({ sessionId: this.sessionId, terminalId });
      return this.client.terminals !== undefined;
    } catch {
      return false; // released meanwhile, or never this session's
    }
  }

  /** Stops the running turn: pending permissions are answered `cancelled` and `session/cancel` is sent. */
  async cancel(): Promise<void> {
    if (this.model.turn.phase === 'idle') return;
    this.model.cancelTurn();
    await this.client.process.connection.cancel({ sessionId: this.sessionId });
  }

  /**
   * Closes the session: the running turn is cancelled (pending permissions are answered `cancelled`), and the agent
   * gets `session/close` when it advertises it, so it can free what the session holds. The agent gets a bounded
   * time to answer; a failure or no answer is logged and the session is closed here all the same.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.cancel().catch(() => {});
    const closing =
      !this.agentEnd && !this.client.process.connection.isClosed && this.client.capabilities.supports('closeSession') ? this.sendClose() : undefined;
    // Forgotten at once, so whoever stops an agent without sessions does so now (and the next chat starts a new
    // process rather than joining this one as it stops); the process itself waits for the answer (see dispose).
    if (closing) this.client.awaitBeforeStop(closing);
    this.release();
    await closing;
  }

  /**
   * Archives the session at the agent (unstable `session/archive`), which frees it as `session/close` would, and
   * closes it here. False, and the session left open, when the agent does not archive sessions; a refusal throws.
   */
  async archive(): Promise<boolean> {
    if (this.closed || this.client.process.connection.isClosed || !this.client.capabilities.supports('archiveSession')) return false;
    await this.cancel().catch(() => {});
    // Bounded like session/close: on no answer the caller closes the session as usual.
    await this.client.process.connection.setArchived({ sessionId: this.sessionId }, true, AbortSignal.timeout(this.client.closeTimeoutMs * 3));
    if (this.closed) return true;
    this.closed = true;
    this.release();
    return true;
  }

  /** @internal Forgets a session the agent never opened (a failed load or resume). */
  async discard(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.cancel().catch(() => {});
    this.release();
  }

  private async sendClose(): Promise<void> {
    const timeoutMs = this.client.closeTimeoutMs;
    const gaveUp = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        gaveUp.abort();
        resolve('timeout');
      }, timeoutMs);
    });
    try {
      const outcome = await Promise.race([this.client.process.connection.closeSession({ sessionId: this.sessionId }, gaveUp.signal), timeout]);
      if (outcome === 'timeout') this.log.warn(`session/close got no answer within ${timeoutMs} ms; closed here anyway`);
    } catch (error) {
      this.log.warn(`session/close failed: ${errorMessage(error)}; closed here anyway`);
    } finally {
      clearTimeout(timer);
    }
  }

  private release(): void {
    this.client.forget(this);
    this.client.quota?.forget(this.sessionId);
    this.closeEmitter.fire();
    this.closeEmitter.dispose();
    this.model.dispose();
    this.endEmitter.dispose();
  }

  /**
   * Permission requests and questions (its subagents' too) that were waiting for the user when the connection to the
   * agent closed, and were withdrawn with it (clientHandler.ts counts them).
   */
  withdrawn = 0;

  /** @internal Called by AgentClient when the process ends. */
  agentEnded(end: AgentEnd): void {
    this.agentEnd = end;
    this.model.agentGone(); // first: a failed turn must not leave the agent's work running in the background
    if (this.model.turn.phase !== 'idle') this.model.failTurn(end.message);
    this.endEmitter.fire(end);
  }
}
