// Work that outlives its turn. Over ACP v1, as far as the client knows it for certain: the commands it runs for the
// agent (`terminal/*`) still running after the turn that started them ended, and the tool calls the agent left
// `in_progress` when its turn ended. Over v2, what the agent lists (`background` on its `state_update`): its own
// terminals, tool calls, subagents (unstable), and work of kinds the client does not know. The session model keeps one and tells it what
// happens; it says what to show.
import type * as S from './schema.gen';
import type { ToolCallState } from './sessionState';
import type { SubagentInfo } from './subagents';
import { clip } from './text';
import type { BackgroundRef } from './v2/updates';

/** One piece of work that outlived its turn. */
export interface BackgroundItem {
  /** `t:` and the terminal's id, `c:` and the tool call's id, `s:` and a subagent's session id, or `o:` for another kind. */
  readonly key: string;
  /** The tool call's title, else the command line. */
  readonly title: string;
  /** When it started (milliseconds since the epoch, the host's clock). */
  readonly startedAt: number;
  /** A command the client runs: the client can stop it. Absent when only the agent can. */
  readonly terminalId?: string;
  /** The tool call it is, or the one that shows its command. */
  readonly toolCallId?: string;
  /** v2: the agent listed it (its `background`): closing the session (`session/close`) stops it. */
  readonly listed?: true;
  /** v2: the agent's own terminal it is, whose output it shows. */
  readonly agentTerminalId?: string;
  /** The agent can stop it on request (v2: `tool_call/cancel`, `terminal/cancel`, a subagent's `session/cancel`), with this id. */
  readonly cancel?: { readonly type: 'tool_call' | 'terminal' | 'subagent'; readonly id: string };
}

/** What the client knows of one of the agent's own terminals (v2). */
interface AgentTerminal {
  command: string | undefined;
  readonly startedAt: number;
  /** It exited: forgotten once no list names it. */
  exited?: true;
}

/** The longest command line kept for a title (the agent writes it). */
const COMMAND_LIMIT = 500;

interface Command {
  readonly command: string;
  readonly startedAt: number;
  /** The turn that started it ended while it ran. */
  outlived: boolean;
}

export class BackgroundWork {
  /** The commands the client runs for this session that have not exited: bounded by the terminals a session may hold. */
  private readonly commands = new Map<string, Command>();
  /** When each unfinished tool call was first seen: forgotten once it finishes. */
  private readonly toolStarts = new Map<string, number>();
  /** Tool calls left in progress when their turn ended, and not dismissed. */
  private readonly tools = new Set<string>();
  /** Unfinished tool calls that left the background work (dismissed, or their command ended): they do not come back. */
  private readonly gone = new Set<string>();
  /** Unfinished tool calls whose permission request was refused or cancelled: they do not run on. */
  private readonly refusals = new Set<string>();
  /** Unfinished tool calls the running turn announced or updated: only those may run on after it. */
  private readonly thisTurn = new Set<string>();
  private turnRunning = false;
  /** v2: the agent's latest list, which replaces the client's own reading of tool calls left in progress. */
  private reported: readonly BackgroundRef[] | undefined;
  /** v2: the agent's terminals seen, bounded by the keys the agent lists (see `agentTerminal`). */
  private readonly agentTerminals = new Map<string, AgentTerminal>();
  /** v2: `c:`/`t:` keys of the tool calls and terminals the agent says it can stop now. */
  private readonly cancellable = new Set<string>();
  /** v2: when each item of the agent's list was first listed, by key. */
  private readonly listedAt = new Map<string, number>();

  constructor(
    /** What runs in the background changed (an item came or went, or a background command printed). */
    private readonly changed: () => void,
    /** The session's tool calls, and the subagents it announced. */
    private readonly lookup: {
      toolCall(toolCallId: string): ToolCallState | undefined;
      subagent(sessionId: string): SubagentInfo | undefined;
    },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The client started a command for the agent (`terminal/create`): `command` is its command line. One started while
   * no turn runs is background work at once.
   */
  commandStarted(terminalId: string, command: string): void {
    this.commands.set(terminalId, { command: clip(command, COMMAND_LIMIT), startedAt: this.now(), outlived: !this.turnRunning });
    if (!this.turnRunning) this.changed();
  }

  /** A command printed something: the strip shows the tail of a background command's output. */
  commandOutput(terminalId: string): void {
    if (this.commands.get(terminalId)?.outlived === true) this.changed();
  }

  /** A command exited: so did the work of a tool call that shows it, whatever the agent says of the call later. */
  commandExited(terminalId: string): void {
    const command = this.commands.get(terminalId);
    if (!command) return;
    this.commands.delete(terminalId);
    for (const toolCallId of this.tools) if (this.terminalOf(toolCallId) === terminalId) this.leave(toolCallId);
    if (command.outlived) this.changed();
  }

  private terminalOf(toolCallId: string): string | undefined {
    return this.lookup.toolCall(toolCallId)?.content.find((content) => content.type === 'terminal')?.terminalId;
  }

  /** v2: the agent's list of what runs on, whole (an empty list: nothing). */
  report(list: readonly BackgroundRef[]): void {
    this.reported = list;
    const keys = new Set(list.map(keyOf));
    for (const key of this.listedAt.keys()) if (!keys.has(key)) this.listedAt.delete(key);
    for (const key of keys) if (!this.listedAt.has(key)) this.listedAt.set(key, this.now());
    for (const [id, terminal] of this.agentTerminals) if (terminal.exited && !keys.has(`t:${id}`)) this.agentTerminals.delete(id);
    this.changed();
  }

  /** v2: one of the agent's terminals: its command line, whether it can be stopped now, and whether it exited. */
  agentTerminal(terminalId: string, update: { command?: string; cancellable?: boolean; exited?: boolean }): void {
    let terminal = this.agentTerminals.get(terminalId);
    // Kept for the terminals the agent lists (and the ones it announces before it lists them): at most as many.
    if (!terminal && this.agentTerminals.size < 1000) this.agentTerminals.set(terminalId, (terminal = { command: undefined, startedAt: this.now() }));
    if (terminal && update.command !== undefined) terminal.command = clip(update.command, COMMAND_LIMIT);
    this.setCancellable(`t:${terminalId}`, update.exited ? false : update.cancellable);
    // Forgotten once it exited and no list names it: a list may still name it until the agent sends the next.
    if (terminal && update.exited) terminal.exited = true;
    if (update.exited && !this.reported?.some((r) => r.type === 'terminal' && r.id === terminalId)) this.agentTerminals.delete(terminalId);
  }

  /** v2: whether the agent says it can stop a tool call now (absent: unchanged). */
  toolCancellable(toolCallId: string, cancellable: boolean | undefined): void {
    this.setCancellable(`c:${toolCallId}`, cancellable);
  }

  /** v2: a subagent's title or whether it may be cancelled may have changed: the strip shows it anew if it is listed. */
  subagentChanged(sessionId: string): void {
    if (this.reported?.some((r) => r.type === 'subagent' && r.id === sessionId)) this.changed();
  }

  /** v2: whether the agent said it can stop the tool call now. */
  canCancel(toolCallId: string): boolean {
    return this.cancellable.has(`c:${toolCallId}`);
  }

  private setCancellable(key: string, cancellable: boolean | undefined): void {
    if (cancellable === undefined || cancellable === this.cancellable.has(key)) return;
    if (cancellable) this.cancellable.add(key);
    else this.cancellable.delete(key);
    if (this.reported?.some((r) => keyOf(r) === key)) this.changed();
  }

  /** A tool call was announced, or changed: `finished` once it completed, failed or was cancelled. */
  toolChanged(toolCallId: string, finished: boolean): void {
    if (!finished) {
      if (!this.toolStarts.has(toolCallId)) this.toolStarts.set(toolCallId, this.now());
      if (this.turnRunning) this.thisTurn.add(toolCallId);
      if (this.tools.has(toolCallId)) this.changed();
      return;
    }
    this.toolStarts.delete(toolCallId);
    this.refusals.delete(toolCallId);
    this.gone.delete(toolCallId);
    this.thisTurn.delete(toolCallId);
    if (this.tools.delete(toolCallId)) this.changed();
  }

  /**
   * A permission request of the tool call was answered (by the user or by a rule). After a refusal or a cancel, some
   * agents never finish the call and leave it in progress (codex-acp): it is not work that runs on.
   */
  answered(toolCallId: string, options: readonly S.PermissionOption[], outcome: S.RequestPermissionOutcome): void {
    const kind = outcome.outcome === 'selected' ? options.find((o) => o.optionId === outcome.optionId)?.kind : undefined;
    if (kind === 'allow_once' || kind === 'allow_always') this.refusals.delete(toolCallId);
    else this.refusals.add(toolCallId);
  }

  /**
   * Whether an unfinished tool call stays as it is when a turn ends: it is background work already (an earlier turn
   * left it; only the agent's end closes it), or `inProgress` at the end of a turn that was not stopped, and that turn
   * announced or updated it (not a call replayed), no permission of it was refused, and it did not leave the
   * background before.
   */
  keeps(toolCallId: string, inProgress: boolean): boolean {
    // v2: what the agent lists runs on (pending and paused calls too), through a stop of the turn.
    if (this.reported?.some((r) => r.type === 'tool_call' && r.id === toolCallId)) return true;
    if (this.tools.has(toolCallId)) return true;
    return inProgress && this.thisTurn.has(toolCallId) && !this.refusals.has(toolCallId) && !this.gone.has(toolCallId);
  }

  /** A turn began. */
  turnBegan(): void {
    this.turnRunning = true;
    this.thisTurn.clear();
  }

  /** The turn ended: the commands still running and the tool calls `left` in progress outlive it. */
  turnEnded(left: Iterable<string>): void {
    const before = this.running;
    this.turnRunning = false;
    this.thisTurn.clear();
    for (const command of this.commands.values()) command.outlived = true;
    for (const toolCallId of left) this.tools.add(toolCallId);
    if (before || this.running) this.changed();
  }

  /** The agent is gone: its commands ended with it (released, their exits never told), and so did its own work. */
  agentGone(): void {
    const before = this.running;
    for (const set of [
      this.commands,
      this.toolStarts,
      this.tools,
      this.gone,
      this.refusals,
      this.thisTurn,
      this.agentTerminals,
      this.cancellable,
      this.listedAt,
    ])
      set.clear();
    this.reported = undefined;
    this.turnRunning = false;
    if (before) this.changed();
  }

  /** The user hid an item only the agent can stop, by its key. False when it was not shown. */
  dismiss(key: string): boolean {
    if (this.reported) {
      const kept = this.reported.filter((r) => keyOf(r) !== key);
      if (kept.length === this.reported.length) return false;
      this.reported = kept;
      this.changed();
      return true;
    }
    const toolCallId = key.startsWith('c:') ? key.slice(2) : undefined;
    if (toolCallId === undefined || !this.tools.has(toolCallId)) return false;
    this.leave(toolCallId);
    this.changed();
    return true;
  }

  private leave(toolCallId: string): void {
    this.tools.delete(toolCallId);
    this.gone.add(toolCallId);
  }

  /**
   * What runs in the background now, oldest first. A tool call that shows a background command is one item, which
   * the client can stop.
   */
  get items(): BackgroundItem[] {
    const items: BackgroundItem[] = this.reported ? this.reportedItems(this.reported) : [];
    const shown = new Set<string>();
    for (const toolCallId of this.reported ? [] : this.tools) {
      const call = this.lookup.toolCall(toolCallId);
      if (!call) continue;
      const terminalId = this.terminalOf(toolCallId);
      const command = terminalId === undefined ? undefined : this.commands.get(terminalId);
      if (command) shown.add(terminalId!);
      items.push({
        key: `c:${toolCallId}`,
        title: call.title,
        startedAt: command?.startedAt ?? this.toolStarts.get(toolCallId) ?? this.now(),
        toolCallId,
        ...(command ? { terminalId } : {}),
      });
    }
    for (const [terminalId, command] of this.commands) {
      if (!command.outlived || shown.has(terminalId)) continue;
      items.push({ key: `t:${terminalId}`, title: command.command, startedAt: command.startedAt, terminalId });
    }
    return items.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** v2: the agent's list as items, each stoppable where the agent says it can stop it. */
  private reportedItems(list: readonly BackgroundRef[]): BackgroundItem[] {
    return list.map((ref) => {
      const key = keyOf(ref);
      const cancel = {
        listed: true as const,
        ...(this.cancellable.has(key) && ref.type !== 'other' && { cancel: { type: ref.type, id: ref.id } }),
      };
      const listedAt = this.listedAt.get(key) ?? this.now();
      if (ref.type === 'tool_call') {
        const call = this.lookup.toolCall(ref.id);
        return { key, title: call?.title ?? ref.id, startedAt: this.toolStarts.get(ref.id) ?? listedAt, toolCallId: ref.id, ...cancel };
      }
      if (ref.type === 'terminal') {
        const terminal = this.agentTerminals.get(ref.id);
        return { key, title: terminal?.command ?? 'Terminal', startedAt: terminal?.startedAt ?? listedAt, agentTerminalId: ref.id, ...cancel };
      }
      if (ref.type === 'subagent') {
        // Its `cancel` capability is the child's own, from its `subagent_update`; `session/cancel` stops a child's
        // foreground work only, so an idle child listed for its own background work has nothing Stop could stop.
        const info = this.lookup.subagent(ref.id);
        const title = info?.title ?? info?.description ?? 'Subagent';
        const stoppable = info?.canCancel === true && info.state !== 'idle';
        return { key, title, startedAt: listedAt, listed: true, ...(stoppable && { cancel: { type: 'subagent', id: ref.id } }) };
      }
      return { key, title: `Work the agent runs (${ref.id.slice(0, ref.id.lastIndexOf('#'))})`, startedAt: listedAt, listed: true };
    });
  }

  /** True while anything runs in the background (what `items` would list, without building it). */
  get running(): boolean {
    if (this.reported) return this.reported.length > 0;
    if (this.tools.size > 0) return true;
    for (const command of this.commands.values()) if (command.outlived) return true;
    return false;
  }
}

const KEY_PREFIX: Readonly<Record<BackgroundRef['type'], string>> = { terminal: 't', tool_call: 'c', subagent: 's', other: 'o' };

function keyOf(ref: BackgroundRef): string {
  return `${KEY_PREFIX[ref.type]}:${ref.id}`;
}
