// What the agent may ask of the client, served: the host's services behind one ClientHandler. Each request is
// checked against the open sessions first (an unknown session gets -32602), permission requests go through the
// client's own rules before the user is asked, and terminals run in the session's folder.
import { infoError } from './quirks';
import { applyV2 } from './v2/apply';
import type { ClientHandler } from './inbound';
import { AcpError, ConnectionClosedError, ErrorCodes } from './errors';
import type { EarlyUpdate } from './earlyUpdates';
import type * as S from './schema.gen';
import type { Session } from './sessionHandle';
import type { SessionModel } from './sessionModel';
import type { ToolCallState } from './sessionState';
import type { PendingElicitation } from './elicitations';
import type { InterSessionUpdate } from './sessionMessages';
import type { SubagentUpdate } from './subagents';
import type { TerminalManager } from './terminals';
import type { QuotaTracker, QuotaUpdate } from './quota';
import { preview } from './tolerance';

/**
 * Where a session's paths are held: `workspace`, the folders that stand for the workspace for its chat (a worktree
 * chat's worktree; undefined: the workspace folders), and `roots`, a subagent's own (Session.roots), which narrow it.
 */
export interface PathScope {
  readonly workspace?: readonly string[];
  readonly roots?: readonly string[];
  /** Files the chat's messages linked to: readable wherever they are, as the user gave them to the agent. */
  readonly linked?: ReadonlySet<string>;
}

/** What the host implements for the agent. Whatever is left out is not advertised. */
export interface HostServices {
  /** Paths outside the scope are asked about, as outside the workspace are. */
  readTextFile?(params: S.ReadTextFileRequest, signal: AbortSignal, scope: PathScope): Promise<S.ReadTextFileResponse>;
  writeTextFile?(params: S.WriteTextFileRequest, signal: AbortSignal, scope: PathScope): Promise<S.WriteTextFileResponse>;
  /** The client's own answer to a permission request (a rule, a setting), given before anyone is asked. */
  decidePermission?(request: PermissionContext): PermissionDecision | undefined;
  /** The user answered a permission request (an "always" answer can become a rule). */
  permissionAnswered?(request: PermissionContext, option: S.PermissionOption): void;
  /** A question tied to a request outside any session (during sign-in or setup): the host asks it its own way. */
  elicitOutsideSession?(question: Omit<PendingElicitation, 'id'>, signal: AbortSignal): Promise<S.CreateElicitationResponse>;
  /** Hears of what the client declined without asking (an unknown elicitation mode), for the log. */
  declined?(why: string): void;
}

/** A permission request with what the client knows of its tool call (an earlier `tool_call` may carry the title). */
export interface PermissionContext {
  readonly sessionId: string;
  /** The chat's own session: a subagent's request is its root session's, for the chat's level and its session rules. */
  readonly chatSessionId: string;
  readonly cwd: string;
  /** A subagent's own roots (Session.roots): a path outside them is the user's to answer, as one outside the workspace. */
  readonly roots?: readonly string[];
  /** The folders that stand for the workspace for this chat (a worktree chat's worktree); undefined: the workspace's. */
  readonly workspace?: readonly string[];
  readonly call: Readonly<ToolCallState>;
  readonly options: readonly S.PermissionOption[];
}

export interface PermissionDecision {
  readonly optionId: string;
  /** Shown on the tool call and logged: nothing is answered silently. */
  readonly reason: string;
}

const MAX_URL_ELICITATIONS = 256;

/**
 * A permission request in `model`, settled as every one is: the client's own answer (a rule, a setting) first, else
 * the user's, which may become a rule. The client's own requests (an editor tool that runs a task) go this way too.
 */
export async function settlePermission(
  services: Pick<HostServices, 'decidePermission' | 'permissionAnswered'>,
  model: SessionModel,
  where: Omit<PermissionContext, 'call' | 'options'>,
  params: S.RequestPermissionRequest,
  signal?: AbortSignal,
): Promise<S.RequestPermissionOutcome> {
  const context: PermissionContext = { ...where, call: model.noteToolCall(params.toolCall), options: params.options };
  const decision = services.decidePermission?.(context);
  const chosen = decision && params.options.find((o) => o.optionId === decision.optionId);
  if (decision && chosen) {
    model.recordAutoAnswer(params.toolCall.toolCallId, chosen, decision.reason);
    return { outcome: 'selected', optionId: chosen.optionId };
  }
  const outcome = await model.requestPermission(params, signal);
  const picked = outcome.outcome === 'selected' ? params.options.find((o) => o.optionId === outcome.optionId) : undefined;
  if (picked) services.permissionAnswered?.(context, picked);
  return outcome;
}

/** A request for a session that is not open: refused. */
function unknownSession(sessionId: string): never {
  throw new AcpError(ErrorCodes.InvalidParams, `unknown session: ${preview(sessionId)}`);
}

/** The handler for one agent: `route` finds an open session, `unknown` hears of ids that are not open. */
export function clientHandler(
  services: HostServices,
  terminals: TerminalManager | undefined,
  route: (sessionId: string) => Session | undefined,
  unknown: (sessionId: string, update?: EarlyUpdate) => void,
  /** A parent announced a child (subagents); the owner routes the child's traffic from then on. */
  adopt?: (parentSessionId: string, update: SubagentUpdate) => void,
  /** The root session a subagent (nested or not) belongs to; a chat's own session is its own root. */
  rootOf: (sessionId: string) => string = (sessionId) => sessionId,
  /** The account's limits the agent reports (quota.ts); the draft `quota_update` only where it advertised `quota`. */
  quota?: { readonly tracker: QuotaTracker; advertised(): boolean },
): ClientHandler {
  const session = (sessionId: string): Session => route(sessionId) ?? unknownSession(sessionId);
  /** Where a session's paths are held: its chat's workspace (a worktree), narrowed by a subagent's own roots. */
  const scopeOf = (target: Session): PathScope => {
    const chat = route(rootOf(target.sessionId)) ?? target;
    const workspace = chat.workspace ?? target.workspace;
    return { ...(workspace ? { workspace } : {}), ...(target.roots ? { roots: target.roots } : {}), linked: chat.linked };
  };
  /** Which session asked each url elicitation still waiting, so `elicitation/complete` finds it. */
  const urlSessions = new Map<string, string>();
  const handler: ClientHandler = {
    async requestPermission(params, signal) {
      const target = session(params.sessionId);
      const where = { sessionId: target.sessionId, chatSessionId: rootOf(target.sessionId), cwd: target.cwd, ...scopeOf(target) };
      return {
        outcome: await counted(route(rootOf(target.sessionId)) ?? target, signal, () =>
          settlePermission(services, target.model, where, params, signal),
        ),
      };
    },
    async createElicitation(params, signal) {
      const question = elicitationQuestion(params);
      if (!question) {
        services.declined?.(
          `elicitation/create with the unknown mode ${preview(String(params.mode))} was declined: ${preview(JSON.stringify(params))}`,
        );
        return { action: 'decline' };
      }
      if ('sessionId' in params && typeof params.sessionId === 'string') {
        const target = session(params.sessionId);
        if (question.url) {
          // Kept until `elicitation/complete` (a url the user opened stays until then); bounded, oldest first out.
          urlSessions.set(question.url.elicitationId, params.sessionId);
          if (urlSessions.size > MAX_URL_ELICITATIONS) urlSessions.delete(urlSessions.keys().next().value as string);
        }
        return counted(route(rootOf(target.sessionId)) ?? target, signal, () => target.model.elicitations.ask(question, signal));
      }
      if (!services.elicitOutsideSession) return { action: 'decline' };
      return services.elicitOutsideSession(question, signal);
    },
    completeElicitation(notification) {
      const sessionId = urlSessions.get(notification.elicitationId);
      urlSessions.delete(notification.elicitationId);
      // After the user agreed, the question stays (opened) until this; an id nobody knows is ignored.
      if (sessionId !== undefined) route(sessionId)?.model.elicitations.complete(notification.elicitationId);
    },
    ...(adopt
      ? {
          subagentUpdate: adopt,
          sessionMessage: (sessionId: string, update: InterSessionUpdate) => {
            const target = route(sessionId);
            if (target) target.model.applySessionMessage(update);
            else unknown(sessionId);
          },
        }
      : {}),
    planById(sessionId, update) {
      const target = route(sessionId);
      if (target) target.model.applyPlanById(update);
      else unknown(sessionId);
    },
    sessionUpdate(notification) {
      if (notification.update.sessionUpdate === 'usage_update') handler.usageMeta?.(notification.update._meta);
      const target = route(notification.sessionId);
      if (!target) return unknown(notification.sessionId, notification.update);
      target.model.apply(notification.update);
      const error = infoError(target.model.quirks, notification.update, target.model);
      if (error) target.model.apply(error);
    },
    ...quotaHandlers(quota, (sessionId) => route(sessionId) !== undefined),
    v2Update(sessionId, event) {
      const target = route(sessionId);
      if (target) applyV2(target.model, event, quota?.tracker);
      // Before the answer that names the session: kept for it, as v1's updates are.
      else unknown(sessionId, event);
    },
  };
  const read = services.readTextFile?.bind(services);
  if (read) {
    handler.readTextFile = async (params, signal) => read(params, signal, scopeOf(session(params.sessionId)));
  }
  const write = services.writeTextFile?.bind(services);
  if (write) {
    handler.writeTextFile = async (params, signal) => write(params, signal, scopeOf(session(params.sessionId)));
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

/** A form or url question from `elicitation/create`, or undefined for a mode this client does not know. */
function elicitationQuestion(params: S.CreateElicitationRequest): Omit<PendingElicitation, 'id'> | undefined {
  const toolCallId = 'toolCallId' in params && typeof params.toolCallId === 'string' ? params.toolCallId : undefined;
  const base = { message: params.message, ...(toolCallId ? { toolCallId } : {}) };
  if (params.mode === 'form' && 'requestedSchema' in params) return { ...base, form: params.requestedSchema as S.ElicitationSchema };
  if (params.mode === 'url' && 'url' in params && 'elicitationId' in params) {
    return { ...base, url: { elicitationId: String(params.elicitationId), url: String(params.url) } };
  }
  return undefined;
}

/**
 * Runs `ask` while it waits for the user. One still waiting when the connection closes was withdrawn with it: it is
 * counted on `chat` (the chat's own session) at once, before the agent's end is told, so the chat can say so.
 */
async function counted<T>(chat: Session, signal: AbortSignal, ask: () => Promise<T>): Promise<T> {
  const onAbort = () => {
    if (signal.reason instanceof ConnectionClosedError) chat.withdrawn++;
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await ask();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The account's limits the agent reports, where the client keeps them: the draft `quota_update` only where advertised. */
function quotaHandlers(
  quota: { readonly tracker: QuotaTracker; advertised(): boolean } | undefined,
  open: (sessionId: string) => boolean,
): Pick<ClientHandler, 'quotaUpdate' | 'usageMeta'> {
  if (!quota) return {};
  return {
    // A session's snapshot only while it is open: a closed or unknown one's would stay, unseen (quota.ts).
    quotaUpdate: (sessionId: string, update: QuotaUpdate) => {
      if (quota.advertised() && open(sessionId)) quota.tracker.takeSnapshot(update, sessionId);
    },
    usageMeta: (meta: unknown) => quota.tracker.takeClaudeMeta(meta),
  };
}
