// Every ACP v2 method, declared once (the v1 ones are in ../methods.ts): its wire name and the schemas of its params
// and result, generated from the pinned SDK's schema/v2/schema.json. v2 is in Preview: the client speaks it only to an
// agent that answered `initialize` with protocol version 2 (see ../protocolVersion.ts).
import type { NotificationDef, RequestDef } from '../methods';
import * as S from './schema.gen';

const request = <P extends RequestDef['params'], R extends RequestDef['result']>(method: string, params: P, result: R) => ({
  method,
  params,
  result,
});

/** Requests the client sends to a v2 agent. */
export const AgentMethodsV2 = {
  initialize: request('initialize', S.InitializeRequest, S.InitializeResponse),
  login: request('auth/login', S.LoginAuthRequest, S.LoginAuthResponse),
  logout: request('auth/logout', S.LogoutAuthRequest, S.LogoutAuthResponse),
  newSession: request('session/new', S.NewSessionRequest, S.NewSessionResponse),
  listSessions: request('session/list', S.ListSessionsRequest, S.ListSessionsResponse),
  deleteSession: request('session/delete', S.DeleteSessionRequest, S.DeleteSessionResponse),
  resumeSession: request('session/resume', S.ResumeSessionRequest, S.ResumeSessionResponse),
  closeSession: request('session/close', S.CloseSessionRequest, S.CloseSessionResponse),
  /** Stops one tool call, where the call advertised `capabilities.cancel`; the turn goes on. */
  cancelToolCall: request('tool_call/cancel', S.CancelToolCallRequest, S.CancelToolCallResponse),
  /** Stops one of the agent's terminals, where the terminal advertised `capabilities.cancel`. */
  cancelTerminal: request('terminal/cancel', S.CancelTerminalRequest, S.CancelTerminalResponse),
  setConfigOption: request('session/set_config_option', S.SetSessionConfigOptionRequest, S.SetSessionConfigOptionResponse),
  /** Answers once the prompt is accepted; the turn ends with an idle `state_update`. */
  prompt: request('session/prompt', S.PromptRequest, S.PromptResponse),
} as const satisfies Record<string, RequestDef>;

/** Notifications the client sends to a v2 agent. */
export const AgentNotificationsV2 = {
  /** Cancels the foreground work; what the latest `background` list names runs on. */
  cancel: { method: 'session/cancel', params: S.CancelSessionNotification },
} as const satisfies Record<string, NotificationDef>;

/** Requests a v2 agent sends to the client: no file system, no terminals (the agent runs its own). */
export const ClientMethodsV2 = {
  requestPermission: request('session/request_permission', S.RequestPermissionRequest, S.RequestPermissionResponse),
  createElicitation: request('elicitation/create', S.CreateElicitationRequest, S.CreateElicitationResponse),
} as const satisfies Record<string, RequestDef>;

/** Notifications a v2 agent sends to the client. */
export const ClientNotificationsV2 = {
  sessionUpdate: { method: 'session/update', params: S.UpdateSessionNotification },
  completeElicitation: { method: 'elicitation/complete', params: S.CompleteElicitationNotification },
} as const satisfies Record<string, NotificationDef>;
