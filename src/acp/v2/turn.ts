// When a v2 agent's idle state ends the running turn. State updates are snapshots, which the agent may repeat (with
// a new background list, say), and work may run that the user did not ask for: an idle ends the user's turn only once
// the agent has its prompt (it said `running`, or answered the prompt, or the user stopped the turn), and the agent's
// own turn only once it said `running`. Pure; the session model keeps one.
export class V2Turn {
  /** The agent said it runs foreground work (`running`), and has not said `idle` since. */
  running = false;
  /** The user's prompt of the running turn: not sent yet (the gates run), sent, or taken in (its answer came). */
  prompt: 'none' | 'sent' | 'taken' = 'none';
  /** The running turn is work the agent started by itself. */
  own = false;

  /** Whether an idle ends the running turn; `stopping`: the user stopped it. */
  idleEnds(stopping: boolean): boolean {
    if (this.own) return this.running;
    return this.prompt !== 'none' && (this.running || this.prompt === 'taken' || stopping);
  }

  /** The turn ended (or failed): the next one starts from nothing. */
  ended(): void {
    this.running = false;
    this.prompt = 'none';
    this.own = false;
  }
}
