// The UI-free state of one session, built only from what the agent sends and what the user does.
//
// It emits fine-grained changes (which entry, which part of the state), so a view can update one entry at a
// time. The turn state is explicit and kept apart from the `session/prompt` response: in ACP v1 the prompt
// response ends a turn, in the v2 draft a `state_change` will; both call the same `endTurn`.
import { Emitter, type Event } from 'vscode-jsonrpc/node';
import type * as S from './schema.gen';

/** A tool call's status as shown to the user: the protocol's four, plus "cancelled" when a turn ends early. */
export type ToolStatus = S.ToolCallStatus | 'cancelled';

export interface ToolCallState {
  readonly toolCallId: string;
  title: string;
  kind: S.ToolKind;
  status: ToolStatus;
  content: S.ToolCallContent[];
  locations: S.ToolCallLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  meta?: Record<string, unknown>;
}

export type MessageRole = 'user' | 'agent' | 'thought';

export type Entry =
  | { readonly id: number; readonly type: 'message'; readonly role: MessageRole; readonly messageId?: string; readonly content: S.ContentBlock[] }
  | { readonly id: number; readonly type: 'tool'; readonly call: ToolCallState };

export interface PendingPermission {
  readonly id: number;
  readonly toolCallId: string;
  readonly options: readonly S.PermissionOption[];
}

export type TurnState =
  | { readonly phase: 'idle'; readonly stopReason?: S.StopReason; readonly error?: string }
  | { readonly phase: 'running' }
  | { readonly phase: 'awaiting-user' }
  | { readonly phase: 'cancelling' };

export type SessionChange =
  | { readonly type: 'entry'; readonly index: number; readonly added: boolean }
  | { readonly type: 'plan' | 'commands' | 'mode' | 'config' | 'usage' | 'info' | 'notice' | 'turn' }
  | { readonly type: 'permission'; readonly id: number; readonly settled: boolean };

export interface Usage {
  readonly used: number;
  readonly size: number;
  readonly cost?: S.Cost;
}

type Outcome = S.RequestPermissionOutcome;

const FINISHED: ReadonlySet<ToolStatus> = new Set(['completed', 'failed', 'cancelled']);

export class SessionModel {
  readonly entries: Entry[] = [];
  plan: S.PlanEntry[] = [];
  commands: S.AvailableCommand[] = [];
  modes: S.SessionModeState | undefined;
  configOptions: S.SessionConfigOption[] = [];
  usage: Usage | undefined;
  title: string | undefined;
  updatedAt: string | undefined;
  readonly notices: S.Notice[] = [];
  private turnState: TurnState = { phase: 'idle' };

  private nextId = 1;
  private readonly tools = new Map<string, number>();
  private readonly byMessageId = new Map<string, number>();
  private readonly pending = new Map<number, { request: PendingPermission; settle: (o: Outcome) => void }>();
  private readonly emitter = new Emitter<SessionChange>();
  readonly onDidChange: Event<SessionChange> = this.emitter.event;

  constructor(
    readonly sessionId: string,
    setup: { modes?: S.SessionModeState | null; configOptions?: S.SessionConfigOption[] | null } = {},
  ) {
    this.modes = setup.modes ?? undefined;
    this.configOptions = setup.configOptions ?? [];
  }

  get turn(): TurnState {
    return this.turnState;
  }

  get permissions(): PendingPermission[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  toolCall(toolCallId: string): ToolCallState | undefined {
    const index = this.tools.get(toolCallId);
    const entry = index === undefined ? undefined : this.entries[index];
    return entry?.type === 'tool' ? entry.call : undefined;
  }

  // ---- what the agent sends ------------------------------------------------------------------------------------

  /** Applies one `session/update`. */
  apply(update: S.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return this.chunk('agent', update);
      case 'agent_thought_chunk':
        return this.chunk('thought', update);
      case 'user_message_chunk':
        return this.chunk('user', update);
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
        if (update.title !== undefined) this.title = update.title ?? undefined;
        if (update.updatedAt !== undefined) this.updatedAt = update.updatedAt ?? undefined;
        return this.fire({ type: 'info' });
      case 'usage_update':
        this.usage = update.cost ? { used: update.used, size: update.size, cost: update.cost } : { used: update.used, size: update.size };
        return this.fire({ type: 'usage' });
      case 'notice':
        this.notices.push(update);
        return this.fire({ type: 'notice' });
      default:
        // compaction updates and kinds added later: nothing to show yet.
        return;
    }
  }

  private chunk(role: MessageRole, update: S.ContentChunk): void {
    const block = update.content;
    if (block.type === 'text' && block.text === '') return;
    const messageId = update.messageId ?? undefined;
    const lastIndex = this.entries.length - 1;
    const last = this.entries[lastIndex];
    let index: number | undefined;
    if (last?.type === 'message' && last.role === role && (messageId === undefined || last.messageId === messageId)) {
      index = lastIndex; // the message goes on (the common case, no lookup)
    } else if (messageId !== undefined) {
      index = this.byMessageId.get(messageId); // a message resumed after something else
    }
    const entry = index === undefined ? undefined : this.entries[index];
    if (index === undefined || entry?.type !== 'message' || entry.role !== role) {
      this.addMessage(role, [ownBlock(block)], messageId);
      return;
    }
    const tail = entry.content[entry.content.length - 1];
    if (block.type === 'text' && tail?.type === 'text' && tail.annotations == null && block.annotations == null) {
      tail.text += block.text; // the tail is the model's own copy (see addMessage), never the agent's object
    } else {
      entry.content.push(ownBlock(block));
    }
    this.fire({ type: 'entry', index, added: false });
  }

  private addMessage(role: MessageRole, content: S.ContentBlock[], messageId?: string): void {
    const index = this.entries.length;
    this.entries.push(messageId === undefined ? { id: this.nextId++, type: 'message', role, content } : { id: this.nextId++, type: 'message', role, messageId, content });
    if (messageId !== undefined) this.byMessageId.set(messageId, index);
    this.fire({ type: 'entry', index, added: true });
  }

  /** A `tool_call` creates or updates; an update (or permission request) for an unknown id creates the entry. */
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
      assignExtras(call, update);
      const index = this.entries.length;
      this.entries.push({ id: this.nextId++, type: 'tool', call });
      this.tools.set(update.toolCallId, index);
      this.fire({ type: 'entry', index, added: true });
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
    assignExtras(call, update);
    this.fire({ type: 'entry', index: existing, added: false });
    return call;
  }

  // ---- permissions ---------------------------------------------------------------------------------------------

  /**
   * Holds a permission request until the user answers (`resolvePermission`), the turn is cancelled, or the signal
   * aborts (the agent cancelled it, or the connection closed). Always settles.
   */
  requestPermission(request: S.RequestPermissionRequest, signal?: AbortSignal): Promise<Outcome> {
    const call = this.upsertTool(request.toolCall);
    if (signal?.aborted) return Promise.resolve({ outcome: 'cancelled' });
    return new Promise<Outcome>((resolve) => {
      const id = this.nextId++;
      const onAbort = () => this.settle(id, { outcome: 'cancelled' });
      const settle = (outcome: Outcome) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.pending.set(id, { request: { id, toolCallId: call.toolCallId, options: request.options }, settle });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.fire({ type: 'permission', id, settled: false });
      if (this.turnState.phase === 'running') this.setTurn({ phase: 'awaiting-user' });
    });
  }

  /** The user chose an option. Returns false when the request is gone (answered, cancelled) or the option unknown. */
  resolvePermission(id: number, optionId: string): boolean {
    const pending = this.pending.get(id);
    if (!pending || !pending.request.options.some((o) => o.optionId === optionId)) return false;
    this.settle(id, { outcome: 'selected', optionId });
    return true;
  }

  private settle(id: number, outcome: Outcome): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.settle(outcome);
    this.fire({ type: 'permission', id, settled: true });
    if (this.pending.size === 0 && this.turnState.phase === 'awaiting-user') this.setTurn({ phase: 'running' });
  }

  private settleAllPermissions(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { outcome: 'cancelled' });
  }

  // ---- the turn ------------------------------------------------------------------------------------------------

  /** The user sent a prompt. */
  beginTurn(prompt: S.ContentBlock[]): void {
    this.addMessage('user', prompt.map(ownBlock));
    this.setTurn({ phase: 'running' });
  }

  /** The user asked to stop: pending permissions are answered `cancelled`, unfinished tool calls are cancelled. */
  cancelTurn(): void {
    if (this.turnState.phase === 'idle') return;
    this.settleAllPermissions();
    this.closeUnfinishedTools();
    this.setTurn({ phase: 'cancelling' });
  }

  /** The turn ended (v1: the prompt response; v2: a state change to idle). No tool call is left running. */
  endTurn(stopReason: S.StopReason): void {
    this.settleAllPermissions();
    this.closeUnfinishedTools();
    this.setTurn({ phase: 'idle', stopReason });
  }

  /** The turn failed (an error answer, the agent exited). */
  failTurn(error: string): void {
    this.settleAllPermissions();
    this.closeUnfinishedTools();
    this.setTurn({ phase: 'idle', error });
  }

  private closeUnfinishedTools(): void {
    for (const index of this.tools.values()) {
      const entry = this.entries[index];
      if (entry?.type === 'tool' && !FINISHED.has(entry.call.status)) {
        entry.call.status = 'cancelled';
        this.fire({ type: 'entry', index, added: false });
      }
    }
  }

  private setTurn(state: TurnState): void {
    this.turnState = state;
    this.fire({ type: 'turn' });
  }

  private fire(change: SessionChange): void {
    this.emitter.fire(change);
  }

  dispose(): void {
    this.settleAllPermissions();
    this.emitter.dispose();
  }
}

/** Text blocks are appended to in place, so the model keeps its own copy of them. */
function ownBlock(block: S.ContentBlock): S.ContentBlock {
  return block.type === 'text' ? { ...block } : block;
}

function assignExtras(call: ToolCallState, update: S.ToolCallUpdate): void {
  if (update.rawInput !== undefined) call.rawInput = update.rawInput;
  if (update.rawOutput !== undefined) call.rawOutput = update.rawOutput;
  if (update._meta != null) call.meta = { ...call.meta, ...update._meta };
}
