// The UI-free state of one session, built only from what the agent sends and what the user does. It emits fine-grained
// changes (which entry, which part of the state), so a view can update one entry at a time. The turn state is kept
// apart from the `session/prompt` response: in ACP v1 the response ends a turn, in v2 a `state_update` to idle will.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import { BackgroundWork } from './background';
import { Compactions } from './compactions';
import { Elicitations } from './elicitations';
import { PendingPermissions } from './permissions';
import { Plans, type PlanByIdUpdate } from './plans';
import { infoNotice, NO_QUIRKS, takeShellExit, type AgentQuirks } from './quirks';
import { SessionMessages, type InterSessionUpdate } from './sessionMessages';
import { SessionTerminals } from './sessionTerminals';
import type { TurnUsage } from './turnUsage';
import { SessionChildren, type SubagentInfo, type SubagentUpdate } from './subagents';
import type * as S from './schema.gen';
import { ownBlock } from './sessionState';
import { MessageLog } from './messageLog';
import { V2Turn } from './v2/turn';
import type {
  Entry,
  MessageRole,
  PendingPermission,
  SessionChange,
  SteerState,
  TerminalState,
  ToolCallState,
  ToolStatus,
  TurnState,
  Usage,
} from './sessionState';

const MAX_TURN_ENDS = 10_000; // turn endings kept for the export
const MAX_NOTICES = 100; // the agent's latest notices kept (the chat shows fewer)
const MAX_TOOL_CONTENT = 500; // a tool call's content items kept, the latest

const FINISHED: ReadonlySet<ToolStatus> = new Set(['completed', 'failed', 'cancelled']);

export class SessionModel {
  readonly entries: Entry[] = [];
  plan: S.PlanEntry[] = [];
  readonly plans = new Plans(); // by id (unstable `plan_update`), beside ACP v1's one plan
  commands: S.AvailableCommand[] = [];
  modes: S.SessionModeState | undefined;
  configOptions: S.SessionConfigOption[] = [];
  usage: Usage | undefined;
  title: string | undefined;
  readonly turnEnds: { readonly afterEntry: number; readonly stopReason: S.StopReason; readonly usage?: TurnUsage }[] = []; // how each turn ended, the latest MAX_TURN_ENDS
  private titleFromUser = false; // the user renamed the session: the agent's titles no longer replace it
  /** What the agent does that the protocol does not say (quirks.ts); a subagent's are its root session's. */
  quirks: AgentQuirks = NO_QUIRKS;
  updatedAt: string | undefined;
  readonly notices: S.Notice[] = [];
  private readonly compactions = new Compactions();
  /** Messages this session sent to or received from another (unstable, with subagents). */
  readonly messages = new SessionMessages();
  private turnState: TurnState = { phase: 'idle' };
  /** The children this session announced (subagents), each with a model of its own for its traffic. */
  private readonly children = new SessionChildren<SessionModel>(
    (sessionId) => new SessionModel(sessionId, {}, this.root),
    () => this.fire({ type: 'subagent' }),
    (sessionId) => this.background.subagentChanged(sessionId),
  );
  /** The agent's questions to the user (elicitation/create), each waiting for an answer. */
  readonly elicitations = new Elicitations(
    () => {
      this.fire({ type: 'elicitation' });
      this.checkAwaiting();
    },
    1,
    () => this.root.questionsInTree(),
  );

  private nextId = 1;
  private readonly tools = new Map<string, number>();
  private readonly messageLog = new MessageLog(
    this.entries,
    () => this.nextId++,
    (change) => this.fire(change),
  );
  /** Work that outlived its turn: commands the client still runs, tool calls left in progress. */
  readonly background = new BackgroundWork(() => this.fire({ type: 'background' }), {
    toolCall: (toolCallId) => this.toolCall(toolCallId),
    subagent: (sessionId) => this.children.all.find((c) => c.info.sessionId === sessionId)?.info,
  });
  /** Command output by terminal id, and the tool calls that show it. */
  private readonly terminalLog = new SessionTerminals((change) => this.fire(change), this.background);
  readonly terminals: ReadonlyMap<string, TerminalState> = this.terminalLog.states;
  /** The agent's permission requests waiting for the user. */
  private readonly held = new PendingPermissions(
    (id, settled) => {
      this.fire({ type: 'permission', id, settled });
      this.checkAwaiting();
    },
    () => this.nextId++,
  );
  private readonly emitter = new Emitter<SessionChange>();
  readonly onDidChange: Event<SessionChange> = this.emitter.event;
  private readonly fire = (change: SessionChange): void => this.emitter.fire(change);

  /** The session at the top of this one's subagents (itself for a chat's own session): its bounds are shared. */
  private readonly root: SessionModel;

  constructor(
    readonly sessionId: string,
    setup: { modes?: S.SessionModeState | null; configOptions?: S.SessionConfigOption[] | null } = {},
    root?: SessionModel,
  ) {
    this.root = root ?? this;
    if (root) this.quirks = root.quirks;
    this.modes = setup.modes ?? undefined;
    this.configOptions = setup.configOptions ?? [];
  }

  /** The modes and config options an agent reports when it reopens a session (after the replay). */
  setup(setup: { modes?: S.SessionModeState | null; configOptions?: S.SessionConfigOption[] | null }): void {
    if (setup.modes) {
      this.modes = setup.modes;
      this.fire({ type: 'mode' });
    }
    if (setup.configOptions) {
      this.configOptions = setup.configOptions;
      this.fire({ type: 'config' });
    }
  }

  get turn(): TurnState {
    return this.turnState;
  }

  get permissions(): PendingPermission[] {
    return this.held.all;
  }

  toolCall(toolCallId: string): ToolCallState | undefined {
    const entry = this.entries[this.tools.get(toolCallId) ?? -1];
    return entry?.type === 'tool' ? entry.call : undefined;
  }

  // ---- what the agent sends ------------------------------------------------------------------------------------

  /** Applies one `session/update`. */
  apply(update: S.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        const notice = this.root.quirks.infoInText ? infoNotice(update.content) : undefined;
        return notice ? this.apply({ sessionUpdate: 'notice', ...notice }) : this.messageLog.chunk('agent', update);
      }
      case 'agent_thought_chunk':
        return this.messageLog.chunk('thought', update);
      case 'user_message_chunk':
        return this.messageLog.chunk('user', update);
      case 'tool_call':
      case 'tool_call_update':
        this.upsertTool(update);
        return;
      case 'plan':
        this.plan = update.entries;
        return this.fire({ type: 'plan' });
      case 'available_commands_update':
        this.commands = update.availableCommands;
        return this.fire({ type: 'commands' });
      case 'current_mode_update':
        this.modes = { availableModes: this.modes?.availableModes ?? [], ...this.modes, currentModeId: update.currentModeId };
        return this.fire({ type: 'mode' });
      case 'config_option_update':
        this.configOptions = update.configOptions;
        return this.fire({ type: 'config' });
      case 'session_info_update':
        // A title the user gave stays: an agent that cannot store it would otherwise replace it with its own.
        if (update.title !== undefined && !this.titleFromUser) this.title = update.title ?? undefined;
        if (update.updatedAt !== undefined) this.updatedAt = update.updatedAt ?? undefined;
        return this.fire({ type: 'info' });
      case 'usage_update': {
        this.usage = update.cost ? { used: update.used, size: update.size, cost: update.cost } : { used: update.used, size: update.size };
        const compacted = this.compactions.usage(update.used, this.entries);
        if (compacted !== undefined) this.fire({ type: 'entry', index: compacted, added: false });
        return this.fire({ type: 'usage' });
      }
      case 'notice':
        if (this.notices.push(update) > MAX_NOTICES) this.notices.shift();
        return this.fire({ type: 'notice' });
      case 'compaction_update':
      case 'compaction_summary_chunk': {
        const change = this.compactions.apply(update, this.entries, () => this.nextId++);
        return change && this.fire({ type: 'entry', ...change });
      }
      default:
        return; // kinds added later: nothing to show yet
    }
  }

  /** A plan by id (unstable `plan_update`, `plan_removed`) changed. */
  applyPlanById(update: PlanByIdUpdate): void {
    if (this.plans.apply(update)) this.fire({ type: 'plan' });
  }

  /**
   * A `tool_call` creates or updates; an update (or permission request) for an unknown id creates the entry. Agents
   * announce an id twice, and some never announce it (see quirks.ts).
   */
  noteToolCall(update: S.ToolCallUpdate): ToolCallState {
    return this.upsertTool(update);
  }

  private upsertTool(update: S.ToolCallUpdate & { sessionUpdate?: string }): ToolCallState {
    const existing = this.tools.get(update.toolCallId);
    if (existing === undefined) {
      const call: ToolCallState = {
        toolCallId: update.toolCallId,
        title: update.title ?? update.name ?? update.toolCallId,
        kind: update.kind ?? 'other',
        status: update.status ?? 'pending',
        content: update.content ?? [],
        locations: update.locations ?? [],
      };
      const index = this.entries.length;
      this.entries.push({ id: this.nextId++, type: 'tool', call });
      this.tools.set(update.toolCallId, index);
      this.fire({ type: 'entry', index, added: true });
      this.applyExtras(call, index, update);
      this.background.toolChanged(call.toolCallId, FINISHED.has(call.status));
      return call;
    }
    const entry = this.entries[existing] as Extract<Entry, { type: 'tool' }>;
    const call = entry.call;
    if (update.title != null) call.title = update.title;
    if (update.kind != null) call.kind = update.kind;
    if (update.status != null) call.status = update.status;
    // A present content or locations replaces the old value.
    if (update.content != null) call.content = update.content;
    if (update.locations != null) call.locations = update.locations;
    this.fire({ type: 'entry', index: existing, added: false });
    this.applyExtras(call, existing, update);
    this.background.toolChanged(call.toolCallId, FINISHED.has(call.status));
    return call;
  }

  /** Raw input and output, `_meta`, and the terminals the call shows (sessionTerminals.ts `shownBy`). */
  private applyExtras(call: ToolCallState, index: number, update: S.ToolCallUpdate): void {
    if (update.rawInput !== undefined) call.rawInput = update.rawInput;
    if (update.rawOutput !== undefined) call.rawOutput = update.rawOutput;
    const exitCode = this.root.quirks.shellExitInText && update.content != null ? takeShellExit(call.content) : undefined;
    if (exitCode !== undefined) call.exitCode = exitCode;
    const rest = this.terminalLog.shownBy(call, index, update._meta);
    if (rest) call.meta = { ...call.meta, ...rest };
  }

  /** A command printed `text` (decoded, escapes and all); bounded, the tail wins. */
  terminalOutput(terminalId: string, text: string): void {
    this.terminalLog.output(terminalId, text);
  }

  terminalExit(terminalId: string, exitStatus: S.TerminalExitStatus): void {
    this.terminalLog.exit(terminalId, exitStatus);
  }

  // ---- permissions ---------------------------------------------------------------------------------------------

  /**
   * Holds a permission request until the user answers (`resolvePermission`), the turn is cancelled, or the signal
   * aborts (the agent cancelled it, or the connection closed). Always settles.
   */
  requestPermission(request: S.RequestPermissionRequest, signal?: AbortSignal): Promise<S.RequestPermissionOutcome> {
    const call = this.upsertTool(request.toolCall);
    const answer = this.held.hold({ toolCallId: call.toolCallId, options: request.options }, signal);
    void answer.then((outcome) => this.background.answered(call.toolCallId, request.options, outcome));
    return answer;
  }

  /** The client answered a permission request by itself; the tool call shows that, and why. */
  recordAutoAnswer(toolCallId: string, option: S.PermissionOption, reason: string): void {
    const index = this.tools.get(toolCallId);
    const entry = index === undefined ? undefined : this.entries[index];
    if (index === undefined || entry?.type !== 'tool') return;
    entry.call.autoAnswer = { optionName: option.name, optionKind: option.kind, reason };
    this.background.answered(toolCallId, [option], { outcome: 'selected', optionId: option.optionId });
    this.fire({ type: 'entry', index, added: false });
  }

  /** The user chose an option. Returns false when the request is gone (answered, cancelled) or the option unknown. */
  resolvePermission(id: number, optionId: string): boolean {
    return this.held.resolve(id, optionId);
  }

  /** The turn waits for the user while a permission or a question waits, and runs again once none does. */
  private checkAwaiting(): void {
    const waiting = this.held.size + this.elicitations.waiting;
    if (waiting === 0 && this.turnState.phase === 'awaiting-user') this.setTurn({ phase: 'running' });
    else if (waiting > 0 && this.turnState.phase === 'running') this.setTurn({ phase: 'awaiting-user' });
  }

  // ---- subagents -----------------------------------------------------------------------------------------------

  /** A message sent to or received from another session: the subagents' cards show a child's task and reply. */
  applySessionMessage(update: InterSessionUpdate): void {
    this.messages.apply(update);
    this.fire({ type: 'subagent' });
  }

  /** The children announced so far, oldest first. */
  get subagents(): readonly { readonly info: SubagentInfo; readonly model: SessionModel }[] {
    return this.children.all;
  }

  /** A `subagent_update` for this session: the child's model, or undefined past the bound on children. */
  noteSubagent(update: SubagentUpdate): SessionModel | undefined {
    return this.children.note(update);
  }

  /** The questions held by this session and every subagent under it: they share one bound. */
  questionsInTree(): number {
    return this.elicitations.size + this.children.questions();
  }

  /** Permissions and questions waiting in the children. */
  get waitingInSubagents(): number {
    return this.children.waiting;
  }

  // ---- the turn ------------------------------------------------------------------------------------------------

  /** A message the user sent from this chat (or a kept record of one), as the client recorded it. Returns its index. */
  addSent(prompt: readonly S.ContentBlock[]): number {
    this.messageLog.add('user', prompt.map(ownBlock), undefined, true);
    return this.entries.length - 1;
  }

  /** The user sent a prompt. Returns the id of the user's message entry. */
  beginTurn(prompt: S.ContentBlock[]): number {
    this.addSent(prompt);
    this.background.turnBegan();
    this.setTurn({ phase: 'running' });
    return this.nextId - 1;
  }

  /** The user sent a message into the running turn (steering). Returns its entry's index. */
  steerMessage(prompt: S.ContentBlock[]): number {
    return this.setSteer(this.addSent(prompt), 'sending');
  }

  /** How a steered message went. Returns the message's index. */
  setSteer(index: number, steer: SteerState): number {
    const entry = this.entries[index];
    if (entry?.type !== 'message') return index;
    this.entries[index] = { ...entry, steer };
    this.fire({ type: 'entry', index, added: false });
    return index;
  }

  /** The user asked to stop: pending permissions are answered `cancelled`, unfinished tool calls are cancelled. */
  cancelTurn(): void {
    this.elicitations.cancelAll();
    if (this.turnState.phase === 'idle') return;
    this.held.cancelAll();
    this.closeUnfinishedTools(false);
    this.setTurn({ phase: 'cancelling' });
  }

  /** The user renamed the session (Rename Chat): the title the agent stored, or the user's own. */
  rename(title: string): void {
    this.titleFromUser = true;
    this.title = title;
    this.fire({ type: 'info' });
  }

  /** The turn ended (v1: the prompt response; v2: a state change to idle). No tool call is left running. */
  endTurn(stopReason: S.StopReason, usage?: TurnUsage): void {
    // How each turn ended, after its last entry (Export Chat says so); bounded like everything the agent drives.
    this.turnEnds.push(usage ? { afterEntry: this.entries.length - 1, stopReason, usage } : { afterEntry: this.entries.length - 1, stopReason });
    if (this.turnEnds.length > MAX_TURN_ENDS) this.turnEnds.splice(0, this.turnEnds.length - MAX_TURN_ENDS);
    this.held.cancelAll();
    // A tool call still running when the agent ends its turn (not a stop) goes on in the background.
    this.background.turnEnded(this.closeUnfinishedTools(stopReason !== 'cancelled'));
    this.setTurn({ phase: 'idle', stopReason });
  }

  /** The turn failed (an error answer, the agent exited), with the agent's error code where it gave one. */
  failTurn(error: string, errorCode?: number, failure?: (TurnState & { phase: 'idle' })['failure']): void {
    this.elicitations.cancelAll();
    this.held.cancelAll();
    this.background.turnEnded(this.closeUnfinishedTools(false));
    this.setTurn({ phase: 'idle', error, ...(errorCode !== undefined && { errorCode }), ...(failure && { failure }) });
  }

  /** v2 (v2/apply.ts): what says when the agent's idle ends the running turn. */
  readonly v2 = new V2Turn();

  /** v2: the agent's id of the message the user sent at entry `entryId` (the prompt's answer names it). */
  nameMessage(entryId: number, messageId: string): void {
    this.messageLog.name(entryId, messageId);
  }

  /** A message whole, by id: its content replaces the message's (v2's upsert). */
  putMessage(role: MessageRole, messageId: string, content: S.ContentBlock[] | null | undefined): void {
    this.messageLog.put(role, messageId, content);
  }

  /** Content added to a tool call (v2's `tool_call_content_chunk`); the latest MAX_TOOL_CONTENT items are kept. */
  appendToolContent(toolCallId: string, content: S.ToolCallContent[]): void {
    const all = [...(this.toolCall(toolCallId)?.content ?? []), ...content];
    this.upsertTool({ toolCallId, content: all.length > MAX_TOOL_CONTENT ? all.slice(-MAX_TOOL_CONTENT) : all });
  }

  /** One of the agent's own terminals (v2's `terminal_update`, `terminal_output_chunk`). */
  agentTerminal(terminalId: string, update: { output?: Uint8Array; append?: boolean; exitStatus?: S.TerminalExitStatus }): void {
    this.terminalLog.agent(terminalId, update);
  }

  /** The agent started work with no prompt of the user's (v2: a `running` state while idle). */
  agentTurn(): void {
    if (this.turnState.phase !== 'idle') return;
    this.background.turnBegan();
    this.setTurn({ phase: 'running' });
  }

  /** The agent is gone: nothing of its work runs on (its commands end with it). */
  agentGone(): void {
    this.background.agentGone();
    this.closeUnfinishedTools(false);
  }

  /** Marks unfinished tool calls cancelled, but with `keepRunning` those in progress; returns the ids of those. */
  private closeUnfinishedTools(keepRunning: boolean): string[] {
    const left: string[] = [];
    for (const index of this.tools.values()) {
      const entry = this.entries[index];
      const call = entry?.type === 'tool' ? entry.call : undefined;
      if (!call || FINISHED.has(call.status)) continue;
      if (this.background.keeps(call.toolCallId, keepRunning && call.status === 'in_progress')) left.push(call.toolCallId);
      else {
        call.status = 'cancelled';
        this.background.toolChanged(call.toolCallId, true);
        this.fire({ type: 'entry', index, added: false });
      }
    }
    return left;
  }

  private setTurn(state: TurnState): void {
    this.turnState = state;
    this.fire({ type: 'turn' });
  }

  dispose(): void {
    this.children.dispose();
    this.held.cancelAll();
    this.elicitations.cancelAll();
    this.emitter.dispose();
  }
}
