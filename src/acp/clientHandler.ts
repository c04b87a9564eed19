// What the agent may ask of the client, served: the host's services behind one ClientHandler. Each request is
// checked against the open sessions first (an unknown session gets -32602), permission requests go through the
// client's own rules before the user is asked, and terminals run in the session's folder.
import type { ClientHandler } from './connection';
import { AcpError, ErrorCodes } from './errors';
import type * as S from './schema.gen';
import type { Session } from './sessionHandle';
import type { ToolCallState } from './sessionModel';
import type { TerminalManager } from './terminals';
import { preview } from './tolerance';

/** What the host implements for the agent. Whatever is left out is not advertised. */
export interface HostServices {
  readTextFile?(params: S.ReadTextFileRequest, signal: AbortSignal): Promise<S.ReadTextFileResponse>;
  writeTextFile?(params: S.WriteTextFileRequest, signal: AbortSignal): Promise<S.WriteTextFileResponse>;
  /** The client's own answer to a permission request (a rule, a setting), given before anyone is asked. */
  decidePermission?(request: PermissionContext): PermissionDecision | undefined;
  /** The user answered a permission request (an "always" answer can become a rule). */
  permissionAnswered?(request: PermissionContext, option: S.PermissionOption): void;
}

/** A permission request with what the client knows of its tool call (an earlier `tool_call` may carry the title). */
export interface PermissionContext {
  readonly sessionId: string;
  readonly cwd: string;
  readonly call: Readonly<ToolCallState>;
  readonly options: readonly S.PermissionOption[];
}

export interface PermissionDecision {
  readonly optionId: string;
  /** Shown on the tool call and logged: nothing is answered silently. */
  readonly reason: string;
}

/** The handler for one agent: `route` finds an open session, `unknown` hears of ids that are not open. */
export function clientHandler(
  services: HostServices,
  terminals: TerminalManager | undefined,
  route: (sessionId: string) => Session | undefined,
  unknown: (sessionId: string) => void,
): ClientHandler {
  const session = (sessionId: string): Session => {
    const found = route(sessionId);
    if (!found) throw new AcpError(ErrorCodes.InvalidParams, `unknown session: ${preview(sessionId)}`);
    return found;
  };
  const handler: ClientHandler = {
    async requestPermission(params, signal) {
      const target = session(params.sessionId);
      const model = target.model;
      const context: PermissionContext = {
        sessionId: target.sessionId,
        cwd: target.cwd,
        call: model.noteToolCall(params.toolCall),
        options: params.options,
      };
      const decision = services.decidePermission?.(context);
      const chosen = decision && params.options.find((o) => o.optionId === decision.optionId);
      if (decision && chosen) {
        model.recordAutoAnswer(params.toolCall.toolCallId, chosen, decision.reason);
        return { outcome: { outcome: 'selected', optionId: chosen.optionId } };
      }
      const outcome = await model.requestPermission(params, signal);
      const picked = outcome.outcome === 'selected' ? params.options.find((o) => o.optionId === outcome.optionId) : undefined;
      if (picked) services.permissionAnswered?.(context, picked);
      return { outcome };
    },
    sessionUpdate(notification) {
      const target = route(notification.sessionId);
      if (target) target.model.apply(notification.update);
      else unknown(notification.sessionId);
    },
  };
  const read = services.readTextFile?.bind(services);
  if (read) {
    handler.readTextFile = async (params, signal) => {
      session(params.sessionId);
      return read(params, signal);
    };
  }
  const write = services.writeTextFile?.bind(services);
  if (write) {
    handler.writeTextFile = async (params, signal) => {
      session(params.sessionId);
      return write(params, signal);
    };
  }
  if (terminals) {
    handler.createTerminal = async (params) => terminals.create(params, session(params.sessionId).cwd);
    handler.terminalOutput = async (params) => terminals.output(params);
    handler.waitForTerminalExit = (params, signal) => terminals.waitForExit(params, signal);
    handler.killTerminal = async (params) => terminals.kill(params);
    handler.releaseTerminal = async (params) => terminals.release(params);
  }
  return handler;
}
