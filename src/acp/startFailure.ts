// Why an agent did not start: it could not be spawned, exited early, did not answer `initialize` in time, or spoke
// another protocol version. A fact (`Failure`) that the host words, with the tail of what the agent wrote to stderr.
import { endedByClient, errorMessage, failureOf, type Failure } from './errors';
import type { AgentEnd } from './process';

/** Starting the agent failed: it could not be spawned, exited early, did not answer, or spoke another version. */
export class AgentStartFailure extends Error {
  override readonly name = 'AgentStartFailure';
  constructor(
    /** What happened, as a fact (the host words it). */
    readonly failure: Failure,
    readonly stderrTail: readonly string[],
    override readonly cause: unknown,
  ) {
    super(failureLogText(failure, cause));
  }
}

/** The English line for the log. */
function failureLogText(failure: Failure, cause: unknown): string {
  if (failure.kind === 'spawnRefused') return `${failure.command} could not be started: ${failure.detail}`;
  if (failure.kind === 'initializeTimeout') return `the agent did not answer initialize within ${failure.seconds} s`;
  return errorMessage(cause);
}

/** What failed, as a fact, from how the start ended: too slow, an early end (not one the client asked for), or the error. */
export function startFailure(error: unknown, end: AgentEnd | undefined, timedOut: boolean, timeoutMs: number): Failure {
  if (timedOut) return { kind: 'initializeTimeout', seconds: Number((timeoutMs / 1000).toFixed(1)) };
  if (end && !endedByClient(end)) return failureOf(end);
  return failureOf(error);
}
