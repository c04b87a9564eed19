// Errors of the protocol core. Each failure a user can meet has its own type, so the UI can explain it in one
// sentence and offer the right action.

/** JSON-RPC and ACP error codes. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  AuthRequired: -32000,
  ResourceNotFound: -32002,
} as const;

/** An error answer: from the agent to one of our requests, or from our handlers to the agent. */
export class AcpError extends Error {
  override readonly name = 'AcpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  get isAuthRequired(): boolean {
    return this.code === ErrorCodes.AuthRequired;
  }

  get isCancelled(): boolean {
    return this.code === ErrorCodes.RequestCancelled;
  }
}

/** We refused to send something the agent did not advertise (an optional method or a content type). */
export class NotSupportedError extends Error {
  override readonly name = 'NotSupportedError';
}

/** The agent answered initialize with a protocol version we do not speak. */
export class ProtocolVersionError extends Error {
  override readonly name = 'ProtocolVersionError';
  constructor(
    readonly agentVersion: unknown,
    readonly supported: readonly number[],
  ) {
    super(`the agent speaks ACP version ${String(agentVersion)}, but this extension supports version ${supported.join(', ')}`);
  }
}

/** The agent's command does not exist (ENOENT). */
export class CommandNotFoundError extends Error {
  override readonly name = 'CommandNotFoundError';
  constructor(readonly command: string) {
    super(`command '${command}' was not found; install it or set the path`);
  }
}

/** The agent could not be started for a reason other than a missing command (a missing folder, no permission). */
export class AgentStartError extends Error {
  override readonly name = 'AgentStartError';
  constructor(reason: string) {
    super(`the agent could not start: ${reason}`);
  }
}

/** The agent process ended (or could not start). Carries what a user needs to understand why. */
export class AgentExitError extends Error {
  override readonly name = 'AgentExitError';
  constructor(
    readonly code: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: readonly string[],
    readonly expected = false,
  ) {
    super(AgentExitError.describe(code, signal, stderrTail));
  }

  private static describe(code: number | null, signal: string | null, tail: readonly string[]): string {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    const last = tail.length ? `: ${tail[tail.length - 1]}` : '';
    return `the agent ${how}${last}`;
  }
}

/** The connection is closed: every request still waiting is settled with this. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  constructor(readonly reason?: Error) {
    super(reason ? `the connection to the agent closed: ${reason.message}` : 'the connection to the agent closed');
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
