// The command output one session shows: each terminal's kept text and exit, and the tool calls that show it (a
// `terminal` content, or an agent's own `_meta.terminal_output`), so that output changes those entries too.
import type * as S from './schema.gen';
import { TerminalState, type SessionChange } from './sessionState';

/** Characters of a command's output the session keeps for display (the agent's own copy has its own limit). */
export const TERMINAL_TEXT_LIMIT = 256 * 1024;

export class SessionTerminals {
  /** Command output by terminal id. */
  readonly states = new Map<string, TerminalState>();
  /** The entries (tool calls) that show each terminal. */
  private readonly tools = new Map<string, Set<number>>();

  constructor(private readonly fire: (change: SessionChange) => void) {}

  /** The tool call at entry `index` shows `terminalId`. */
  link(terminalId: string, index: number): void {
    let tools = this.tools.get(terminalId);
    if (!tools) this.tools.set(terminalId, (tools = new Set()));
    tools.add(index);
  }

  /** A command printed `text` (decoded, escapes and all). The kept text is bounded; the tail wins. */
  output(terminalId: string, text: string): void {
    if (text === '') return;
    this.state(terminalId).append(text, TERMINAL_TEXT_LIMIT);
    this.changed(terminalId, text);
  }

  exit(terminalId: string, exitStatus: S.TerminalExitStatus): void {
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

  private changed(terminalId: string, appended: string): void {
    this.fire({ type: 'terminal', terminalId, appended });
    for (const index of this.tools.get(terminalId) ?? []) this.fire({ type: 'entry', index, added: false });
  }
}
