// Errors of the protocol core. Each failure a user can meet has its own type and carries what happened as a fact
// (`Failure`), so the host can word it in the user's language (common/failureText.ts) and offer the right action.
// Their English `message` is for the log.

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

/** What we refused to send, because the agent did not advertise it. */
export type Refusal =
  | { readonly what: 'method'; readonly method: string; readonly capability: string }
  | { readonly what: 'content'; readonly content: 'image' | 'audio' | 'resource' | string }
  | { readonly what: 'additionalDirectories' }
  | { readonly what: 'mcpTransport'; readonly transport: string; readonly server: string };

/** Why a prompt was not sent at all; nothing of it was lost. */
export type PromptRefusal =
  | { readonly reason: 'closed' }
  | { readonly reason: 'agentEnded'; readonly cause: Failure }
  | { readonly reason: 'busy' }
  | { readonly reason: 'noTurn' }
  | { readonly reason: 'empty' }
  | { readonly reason: 'notConnected'; readonly agent: string }
  /** An attachment past its bound waits for the user's Attach Anyway; `size` is as the chip shows it. */
  | { readonly reason: 'attachmentWaiting'; readonly label: string; readonly size: string };

/** A failure as a fact: what happened, in data. The host words it; the agent's own words pass through as they are. */
export type Failure =
  | { readonly kind: 'exited'; readonly code: number | null; readonly signal: string | null; readonly lastLine: string | undefined }
  | { readonly kind: 'commandNotFound'; readonly command: string }
  | { readonly kind: 'startFailed'; readonly reason: 'missingFolder' | 'os'; readonly detail: string }
  | { readonly kind: 'spawnRefused'; readonly command: string; readonly detail: string }
  | { readonly kind: 'initializeTimeout'; readonly seconds: number }
  | { readonly kind: 'protocolVersion'; readonly agentVersion: string; readonly supported: readonly number[] }
  | { readonly kind: 'connectionClosed'; readonly cause: Failure | undefined }
  /** The connection to an agent at a URL ended, or never opened (socket.ts). */
  | { readonly kind: 'disconnected'; readonly reason: DisconnectReason; readonly host: string; readonly detail: string }
  | ({ readonly kind: 'notSupported' } & Refusal)
  | ({ readonly kind: 'promptRefused' } & PromptRefusal)
  /** An error answer of the agent's: its own words. */
  | { readonly kind: 'agent'; readonly code: number; readonly message: string }
  /** Anything else (an OS error, a bug): its message as it is. */
  | { readonly kind: 'other'; readonly message: string };

/** A prompt was not sent at all (the chat is closed, the agent is gone, a turn is running, …); nothing was lost. */
export class PromptRefusedError extends Error {
  override readonly name = 'PromptRefusedError';
  constructor(readonly refusal: PromptRefusal) {
    super(refusalForLog(refusal));
  }
}

/** The refusal in English, for the log (the host words it for the user from the fact). */
function refusalForLog(r: PromptRefusal): string {
  switch (r.reason) {
    case 'closed':
      return 'this chat is closed';
    case 'agentEnded':
      return `the agent is not running (${r.cause.kind === 'exited' ? `exit code ${r.cause.code ?? r.cause.signal}` : r.cause.kind})`;
    case 'busy':
      return 'the agent is still working on the previous message';
    case 'noTurn':
      return 'no turn is running';
    case 'empty':
      return 'the message is empty';
    case 'notConnected':
      return `${r.agent} is not connected yet`;
    case 'attachmentWaiting':
      return `${r.label} (${r.size}) waits for Attach Anyway`;
  }
}

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
  constructor(readonly refusal: Refusal) {
    super(refusalMessage(refusal));
  }
}

function refusalMessage(r: Refusal): string {
  switch (r.what) {
    case 'method':
      return `the agent does not support ${r.method} (it did not advertise ${r.capability})`;
    case 'content':
      return `this agent does not accept ${contentName(r.content)} in prompts`;
    case 'additionalDirectories':
      return 'the agent does not support additional workspace directories';
    case 'mcpTransport':
      return `the agent does not support ${r.transport} MCP servers (${r.server})`;
  }
}

function contentName(type: string): string {
  return type === 'image' ? 'images' : type === 'audio' ? 'audio' : type === 'resource' ? 'embedded files' : `${type} content`;
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
  constructor(
    readonly reason: 'missingFolder' | 'os',
    /** The missing folder, or the OS's words. */
    readonly detail: string,
  ) {
    super(`the agent could not start: ${reason === 'missingFolder' ? `the working folder ${detail} does not exist` : detail}`);
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

/**
 * Why the connection to an agent at a URL ended or never opened: the agent closed it, it could not be reached, it
 * refused the token (HTTP 401 or 403), its certificate was not trusted, the URL is not allowed (no TLS off loopback),
 * it sent a binary or an oversized frame, it stopped answering pings, or another error.
 */
export type DisconnectReason =
  'closed' | 'unreachable' | 'unauthorized' | 'certificate' | 'insecure' | 'binaryFrame' | 'frameTooLarge' | 'unresponsive' | 'error';

/** The connection to an agent at a URL ended (or never opened). `expected`: the client closed it. */
export class AgentDisconnectedError extends Error {
  override readonly name = 'AgentDisconnectedError';
  constructor(
    readonly reason: DisconnectReason,
    /** The agent's host (and port), as the URL names it. */
    readonly host: string,
    /** The server's or the OS's words (a close reason, an HTTP status, a TLS error). */
    readonly detail: string,
    readonly expected = false,
  ) {
    super(`the connection to ${host} ${reason === 'closed' ? 'closed' : `failed (${reason})`}${detail ? `: ${detail}` : ''}`);
  }
}

/** The agent's end was the client's own doing (Stop, a restart, a closed window): nothing to show the user. */
export function endedByClient(end: unknown): boolean {
  return (end instanceof AgentExitError || end instanceof AgentDisconnectedError) && end.expected;
}

/** The connection is closed: every request still waiting is settled with this. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  constructor(readonly reason?: Error) {
    super(reason ? `the connection to the agent closed: ${reason.message}` : 'the connection to the agent closed');
  }
}

/** What `error` says happened, as a fact. */
export function failureOf(error: unknown): Failure {
  if (error instanceof AgentExitError)
    return { kind: 'exited', code: error.code, signal: error.signal, lastLine: error.stderrTail[error.stderrTail.length - 1] };
  if (error instanceof CommandNotFoundError) return { kind: 'commandNotFound', command: error.command };
  if (error instanceof AgentDisconnectedError) return { kind: 'disconnected', reason: error.reason, host: error.host, detail: error.detail };
  if (error instanceof AgentStartError) return { kind: 'startFailed', reason: error.reason, detail: error.detail };
  if (error instanceof ProtocolVersionError) return { kind: 'protocolVersion', agentVersion: String(error.agentVersion), supported: error.supported };
  if (error instanceof ConnectionClosedError) return { kind: 'connectionClosed', cause: error.reason && failureOf(error.reason) };
  if (error instanceof NotSupportedError) return { kind: 'notSupported', ...error.refusal };
  if (error instanceof PromptRefusedError) return { kind: 'promptRefused', ...error.refusal };
  if (error instanceof AcpError) return { kind: 'agent', code: error.code, message: error.message };
  if (error instanceof Error && 'failure' in error) return (error as { failure: Failure }).failure;
  return { kind: 'other', message: errorMessage(error) };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
