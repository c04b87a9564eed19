// Every ACP v1 method, declared once: its wire name, the schemas of its params and result, and, for the
// optional ones, the feature the agent must have advertised before it may be called (see capabilities.ts).
import { z } from 'zod';
import { AdapterAuthStatusMessage, AuthStatusMessage } from './authStatus';
import type { AgentFeature } from './capabilities';
import { MCP_MESSAGE_METHOD, McpMessageRequest, McpOutcome, McpServerAcp } from './mcpOverAcp';
import { QuotaSnapshot } from './quota';
import * as S from './schema.gen';

export interface RequestDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly method: string;
  readonly params: P;
  readonly result: R;
}

export interface NotificationDef<P extends z.ZodType = z.ZodType> {
  readonly method: string;
  readonly params: P;
}

/** An agent method the client may only call when the agent advertised this feature. */
export interface GatedRequestDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> extends RequestDef<P, R> {
  readonly feature: AgentFeature;
}

const request = <P extends z.ZodType, R extends z.ZodType>(method: string, params: P, result: R): RequestDef<P, R> => ({
  method,
  params,
  result,
});

const gated = <P extends z.ZodType, R extends z.ZodType>(method: string, params: P, result: R, feature: AgentFeature): GatedRequestDef<P, R> => ({
  method,
  params,
  result,
  feature,
});

/** Requests the client sends to the agent. */
export const AgentMethods = {
  initialize: request('initialize', S.InitializeRequest, S.InitializeResponse),
  authenticate: request('authenticate', S.AuthenticateRequest, S.AuthenticateResponse),
  logout: gated('logout', S.LogoutRequest, S.LogoutResponse, 'logout'),
  newSession: request('session/new', S.NewSessionRequest, S.NewSessionResponse),
  loadSession: gated('session/load', S.LoadSessionRequest, S.LoadSessionResponse, 'loadSession'),
  listSessions: gated('session/list', S.ListSessionsRequest, S.ListSessionsResponse, 'listSessions'),
  resumeSession: gated('session/resume', S.ResumeSessionRequest, S.ResumeSessionResponse, 'resumeSession'),
  closeSession: gated('session/close', S.CloseSessionRequest, S.CloseSessionResponse, 'closeSession'),
  deleteSession: gated('session/delete', S.DeleteSessionRequest, S.DeleteSessionResponse, 'deleteSession'),
  setMode: request('session/set_mode', S.SetSessionModeRequest, S.SetSessionModeResponse),
  setConfigOption: request('session/set_config_option', S.SetSessionConfigOptionRequest, S.SetSessionConfigOptionResponse),
  prompt: request('session/prompt', S.PromptRequest, S.PromptResponse),
} as const;

/**
 * Steering: a message added to the running turn. Not in ACP v1: claude-agent-acp and codex-acp advertise it in
 * `initialize`'s `_meta.steering` and answer how it went. The spec's draft (`session/inject`) would replace it; only
 * this declaration and the feature's test in capabilities.ts would change.
 */
const SteeringRequest = z.looseObject({ sessionId: z.string(), prompt: z.array(S.ContentBlock) });
const SteeringResponse = z.looseObject({
  /** `injected` (into the running turn), `startedNewTurn` (the turn had ended), `failed`; anything else counts as failed. */
  outcome: z.string().max(100).catch('failed'),
});

/** Requests to the agent outside the protocol's schema, each gated on the extension the agent advertised. */
export const ExtensionMethods = {
  steer: gated('_session/steering', SteeringRequest, SteeringResponse, 'steering'),
} as const;

/**
 * Unstable methods (the SDK's schema.unstable.json, not ACP v1), each gated on the capability the agent advertised
 * in `sessionCapabilities`: forking a session (a new one with the same context), setting a session's title, asking
 * whether the agent has a session in memory (before reopening it), and archiving a session or bringing it back.
 */
const ForkSessionRequest = z.looseObject({
  sessionId: z.string(),
  cwd: z.string(),
  // As session/new takes them, and (unstable, `mcpCapabilities.acp`) one the client serves over ACP itself.
  mcpServers: z.array(z.union([S.McpServer, McpServerAcp])).optional(),
  additionalDirectories: z.array(z.string()).optional(),
});
const SetSessionTitleRequest = z.looseObject({ sessionId: z.string(), title: z.string() });
/** The title the agent stored (it may have normalized it): what the client shows. */
const SetSessionTitleResponse = z.looseObject({ title: z.string().max(10_000) });

const SessionStatusRequest = z.looseObject({ sessionId: z.string() });
/** `open` (in the agent's memory) or `saved`; a value the client does not know counts as `saved`, as the schema says. */
const SessionStatusResponse = z.looseObject({ status: z.string().max(100) });

const AuthStatusRequest = z.looseObject({});
const ArchiveSessionRequest = z.looseObject({ sessionId: z.string() });
const ArchiveSessionResponse = z.looseObject({});

export const UnstableMethods = {
  /** Answers like session/new: the new session's id, modes and config options. */
  forkSession: gated('session/fork', ForkSessionRequest, S.NewSessionResponse, 'forkSession'),
  setSessionTitle: gated('session/set_title', SetSessionTitleRequest, SetSessionTitleResponse, 'setSessionTitle'),
  sessionStatus: gated('session/status', SessionStatusRequest, SessionStatusResponse, 'sessionStatus'),
  /** Hides a session from `session/list` (the agent frees it, as `session/close` would); its history is kept. */
  archiveSession: gated('session/archive', ArchiveSessionRequest, ArchiveSessionResponse, 'archiveSession'),
  unarchiveSession: gated('session/unarchive', ArchiveSessionRequest, ArchiveSessionResponse, 'archiveSession'),
  /** The agent's sign-in state and accounts (see authStatus.ts). */
  authStatus: gated('auth/status', AuthStatusRequest, AuthStatusMessage, 'authStatus'),
} as const;

/**
 * Requests of draft RFDs, in no schema yet, each gated on the capability its RFD names: `quota/read` ("Quotas and
 * Limits"), the account's limits now, for a session or (without one) for the account a new session would use.
 */
const ReadQuotaRequest = z.looseObject({ sessionId: z.string().optional() });

export const DraftMethods = {
  readQuota: gated('quota/read', ReadQuotaRequest, QuotaSnapshot, 'quota'),
} as const;

/** Notifications the client sends to the agent. */
export const AgentNotifications = {
  cancel: { method: 'session/cancel', params: S.CancelNotification },
} as const satisfies Record<string, NotificationDef>;

/** Requests the agent sends to the client. The key names the handler that serves it. */
export const ClientMethods = {
  requestPermission: request('session/request_permission', S.RequestPermissionRequest, S.RequestPermissionResponse),
  readTextFile: request('fs/read_text_file', S.ReadTextFileRequest, S.ReadTextFileResponse),
  writeTextFile: request('fs/write_text_file', S.WriteTextFileRequest, S.WriteTextFileResponse),
  createTerminal: request('terminal/create', S.CreateTerminalRequest, S.CreateTerminalResponse),
  terminalOutput: request('terminal/output', S.TerminalOutputRequest, S.TerminalOutputResponse),
  releaseTerminal: request('terminal/release', S.ReleaseTerminalRequest, S.ReleaseTerminalResponse),
  waitForTerminalExit: request('terminal/wait_for_exit', S.WaitForTerminalExitRequest, S.WaitForTerminalExitResponse),
  killTerminal: request('terminal/kill', S.KillTerminalRequest, S.KillTerminalResponse),
  createElicitation: request('elicitation/create', S.CreateElicitationRequest, S.CreateElicitationResponse),
} as const;

/** Unstable requests the agent sends to the client (schema.unstable.json). The key names the handler that serves it. */
export const UnstableClientMethods = {
  /** MCP over ACP: a request to an MCP server the client declared for a session (mcpOverAcp.ts). */
  mcpMessage: request(MCP_MESSAGE_METHOD, McpMessageRequest, McpOutcome),
} as const;

/**
 * The agent's requests that wait on the user or on a command for as long as that takes. The reader bounds them apart
 * and never pauses for them: what ends them (the agent's cancel, a release, a later update) must still be read.
 */
export const WAITING_METHODS: readonly string[] = [
  ClientMethods.requestPermission.method,
  ClientMethods.createElicitation.method,
  ClientMethods.waitForTerminalExit.method,
  // An editor tool may wait for the user: a review before a write, a command to allow.
  UnstableClientMethods.mcpMessage.method,
];

/**
 * The agent's requests that end or release what others wait on (a command's exit): served whatever the bounds, so
 * that requests waiting on a command never keep out the request that would end them.
 */
export const ENDING_METHODS: readonly string[] = [ClientMethods.killTerminal.method, ClientMethods.releaseTerminal.method];

/** Notifications the agent sends to the client. */
export const ClientNotifications = {
  sessionUpdate: { method: 'session/update', params: S.SessionNotification },
  completeElicitation: { method: 'elicitation/complete', params: S.CompleteElicitationNotification },
} as const satisfies Record<string, NotificationDef>;

/** Unstable notifications the agent sends to the client (schema.unstable.json). */
export const UnstableNotifications = {
  /** The agent's sign-in state changed (see authStatus.ts). */
  authStatusUpdate: { method: 'auth/status_update', params: AuthStatusMessage },
} as const satisfies Record<string, NotificationDef>;

/** Extension notifications the agent sends to the client, read like the rest, outside the schema. */
export const ExtensionNotifications = {
  /** The maintained adapters' sign-in state (claude-agent-acp, codex-acp: see authStatus.ts). */
  authStatusUpdate: { method: '_auth/status_update', params: AdapterAuthStatusMessage },
} as const satisfies Record<string, NotificationDef>;

/** Protocol-level notification, both directions. */
export const CancelRequest = { method: '$/cancel_request', params: S.CancelRequestNotification } as const;

export type ClientMethodName = keyof typeof ClientMethods | keyof typeof UnstableClientMethods;
