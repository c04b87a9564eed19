// The command output one session shows: each terminal's kept text and exit, and the tool calls that show it (a
// `terminal` content, or an agent's own `_meta.terminal_output`), so that output changes those entries too.
import type { BackgroundWork } from './background';
import { readTerminalMeta } from './quirks';
import type * as S from './schema.gen';
import { TerminalState, type SessionChange, type ToolCallState } from './sessionState';

/** Characters of a command's output the session keeps for display (the agent's own copy has its own limit). */
export const TERMINAL_TEXT_LIMIT = 256 * 1024;

/** Terminals of the agent's whose output is decoded as a stream at once. */
const MAX_DECODERS = 100;

export class SessionTerminals {
  /** Command output by terminal id. */
  readonly states = new Map<string, TerminalState>();
  /** The entries (tool calls) that show each terminal. */
  private readonly tools = new Map<string, Set<number>>();
  /** v2: the decoder of each of the agent's running terminals (their output comes as bytes, in chunks). */
  private readonly decoders = new Map<string, TextDecoder>();

  constructor(
    private readonly fire: (change: SessionChange) => void,
    /** Told of the commands' output and exits: a command that outlived its turn is background work. */
    private readonly background: Pick<BackgroundWork, 'commandOutput' | 'commandExited'>,
  ) {}

  /**
   * The terminals the tool call at entry `index` shows: its `terminal` content, and the output of agents that run
   * commands themselves (`_meta.terminal_output` / `terminal_exit`, quirks.ts). Returns the rest of `meta`, if any.
   */
  shownBy(call: ToolCallState, index: number, meta: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
    for (const content of call.content) if (content.type === 'terminal') this.link(content.terminalId, index);
    if (meta == null) return undefined;
    const { rest, output, exit } = readTerminalMeta(meta);
    // The agent's own commands: what it says of them never touches the client's (background.ts), whatever id it uses.
    if (output) {
      this.link(output.terminalId, index);
      this.append(output.terminalId, output.data);
    }
    if (exit) {
      this.link(exit.terminalId, index);
      this.ended(exit.terminalId, exit.status);
    }
    return Object.keys(rest).length > 0 ? rest : undefined;
  }

  /** The tool call at entry `index` shows `terminalId`. */
  link(terminalId: string, index: number): void {
    let tools = this.tools.get(terminalId);
    if (!tools) this.tools.set(terminalId, (tools = new Set()));
    tools.add(index);
  }

  /** A command the client runs printed `text` (decoded, escapes and all). The kept text is bounded; the tail wins. */
  output(terminalId: string, text: string): void {
    if (!this.append(terminalId, text)) return;
    this.background.commandOutput(terminalId);
  }

  /**
   * One of a v2 agent's own terminals: `output` replaces what it printed (a `terminal_update`), or is added to it
   * (`append`, a `terminal_output_chunk`); an exit status says it ended. Never the client's commands (background.ts).
   */
  agent(terminalId: string, update: { output?: Uint8Array; append?: boolean; exitStatus?: S.TerminalExitStatus }): void {
    if (update.output !== undefined && update.append) this.append(terminalId, this.decoder(terminalId).decode(update.output, { stream: true }));
    else if (update.output !== undefined) {
      this.decoders.delete(terminalId);
      const state = this.state(terminalId);
      state.clear();
      state.append(new TextDecoder().decode(update.output), TERMINAL_TEXT_LIMIT);
      this.changed(terminalId, state.text, true);
    }
    if (update.exitStatus) {
      const rest = this.decoders.get(terminalId)?.decode(); // a character cut short at the end
      this.decoders.delete(terminalId);
      if (rest) this.append(terminalId, rest);
      this.ended(terminalId, update.exitStatus);
    }
  }

  /** The agent's output chunks of one terminal decode as one stream: a character may be split between two. */
  private decoder(terminalId: string): TextDecoder {
    let decoder = this.decoders.get(terminalId);
    if (decoder) return decoder;
    decoder = new TextDecoder();
    // One per running terminal; past the bound, a terminal's chunks decode alone.
    if (this.decoders.size < MAX_DECODERS) this.decoders.set(terminalId, decoder);
    return decoder;
  }

  /** A command the client runs exited. */
  exit(terminalId: string, exitStatus: S.TerminalExitStatus): void {
    this.background.commandExited(terminalId);
    this.ended(terminalId, exitStatus);
  }

  private append(terminalId: string, text: string): boolean {
    if (text === '') return false;
    this.state(terminalId).append(text, TERMINAL_TEXT_LIMIT);
    this.changed(terminalId, text);
    return true;
  }

  private ended(terminalId: string, exitStatus: S.TerminalExitStatus): void {
    const state = this.state(terminalId);
    if (state.exitStatus) return;
    state.exitStatus = exitStatus;
    this.changed(terminalId, '');
  }

  private state(terminalId: string): TerminalState {
    let state = this.states.get(terminalId);
    if (!state) this.states.set(terminalId, (state = new TerminalState()));
    return state;
  }

  private changed(terminalId: string, appended: string, replaced?: true): void {
    this.fire({ type: 'terminal', terminalId, appended, ...(replaced && { replaced }) });
    for (const index of this.tools.get(terminalId) ?? []) this.fire({ type: 'entry', index, added: false });
  }
}
