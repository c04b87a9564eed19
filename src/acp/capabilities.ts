// Every "does the agent support X" question, answered in one place from the `agentCapabilities` it sent in
// `initialize`. What the agent did not advertise is not called: the connection refuses such requests before they
// are sent (its gate asks here), and the agent client and the host ask here before they offer what needs it.
import type { McpServerAcp } from './mcpOverAcp';
import { unadvertisedExtensions } from './quirks';
import type * as S from './schema.gen';

/** Something the client may use only when the agent advertised it. */
export type AgentFeature =
  | 'logout'
  | 'quota'
  | 'loadSession'
  | 'listSessions'
  | 'resumeSession'
  | 'closeSession'
  | 'deleteSession'
  | 'additionalDirectories'
  | 'mcpHttp'
  | 'mcpSse'
  /** Unstable: MCP servers the client provides through the ACP connection (mcp/message, see mcpOverAcp.ts). */
  | 'mcpAcp'
  | 'promptImage'
  | 'promptAudio'
  | 'promptEmbeddedContext'
  /** Not ACP v1: the adapters' `_session/steering` (see methods.ts, ExtensionMethods). */
  | 'steering'
  /** Unstable (schema.unstable.json): `session/fork` and `session/set_title` (see methods.ts, UnstableMethods). */
  | 'forkSession'
  /** Not ACP: `session/fork` at one of the agent's messages, `_meta.jetbrains.air.fork` (see messageFork.ts). */
  | 'forkAtMessage'
  | 'setSessionTitle'
  /** Unstable: `systemPrompt` on session/new, load, resume and fork (in `append` mode). */
  | 'systemPrompt'
  /** Unstable: `session/status`, asked before a session is reopened. */
  | 'sessionStatus'
  /** Unstable: `session/archive`, `session/unarchive` and the `archived` filter of `session/list`. */
  | 'archiveSession'
  /** Unstable: `auth/status` (and the agent's `auth/status_update` notifications). */
  | 'authStatus';

interface FeatureDef {
  /** The capability's path in `agentCapabilities`, for messages and the log. */
  readonly capability: string;
  readonly advertised: (caps: S.AgentCapabilities) => boolean;
  /** Advertised in `_meta`, outside the protocol's schema (an extension some agents have). */
  readonly extension?: true;
  /** In the SDK's unstable schema only, not ACP v1. */
  readonly unstable?: true;
  /** In a draft RFD only, in no schema yet (DraftMethods in methods.ts). */
  readonly draft?: true;
}

const FEATURES: Record<AgentFeature, FeatureDef> = {
  logout: { capability: 'auth.logout', advertised: (c) => c.auth?.logout != null },
  // The draft RFD "Quotas and Limits": the agent reports the account's limits (`quota_update`, `quota/read`).
  quota: { capability: 'quota', advertised: (c) => isObject((c as { quota?: unknown }).quota), draft: true },
  loadSession: { capability: 'loadSession', advertised: (c) => c.loadSession === true },
  listSessions: { capability: 'sessionCapabilities.list', advertised: (c) => c.sessionCapabilities?.list != null },
  resumeSession: { capability: 'sessionCapabilities.resume', advertised: (c) => c.sessionCapabilities?.resume != null },
  closeSession: { capability: 'sessionCapabilities.close', advertised: (c) => c.sessionCapabilities?.close != null },
  deleteSession: { capability: 'sessionCapabilities.delete', advertised: (c) => c.sessionCapabilities?.delete != null },
  additionalDirectories: {
    capability: 'sessionCapabilities.additionalDirectories',
    advertised: (c) => c.sessionCapabilities?.additionalDirectories != null,
  },
  mcpHttp: { capability: 'mcpCapabilities.http', advertised: (c) => c.mcpCapabilities?.http === true },
  mcpSse: { capability: 'mcpCapabilities.sse', advertised: (c) => c.mcpCapabilities?.sse === true },
  mcpAcp: {
    capability: 'mcpCapabilities.acp',
    advertised: (c) => (c.mcpCapabilities as { acp?: unknown } | null | undefined)?.acp === true,
    unstable: true,
  },
  promptImage: { capability: 'promptCapabilities.image', advertised: (c) => c.promptCapabilities?.image === true },
  promptAudio: { capability: 'promptCapabilities.audio', advertised: (c) => c.promptCapabilities?.audio === true },
  promptEmbeddedContext: { capability: 'promptCapabilities.embeddedContext', advertised: (c) => c.promptCapabilities?.embeddedContext === true },
  steering: { capability: '_meta.steering', advertised: (c) => isAdvertised(c._meta?.['steering']), extension: true },
  forkSession: { capability: 'sessionCapabilities.fork', advertised: (c) => unstableSession(c, 'fork'), unstable: true },
  forkAtMessage: {
    capability: '_meta.jetbrains.air.fork',
    advertised: (c) => unstableSession(c, 'fork') && forksAtMessage(c._meta),
    extension: true,
  },
  setSessionTitle: { capability: 'sessionCapabilities.title', advertised: (c) => unstableSession(c, 'title'), unstable: true },
  systemPrompt: { capability: 'sessionCapabilities.systemPrompt', advertised: (c) => unstableSession(c, 'systemPrompt'), unstable: true },
  sessionStatus: { capability: 'sessionCapabilities.status', advertised: (c) => unstableSession(c, 'status'), unstable: true },
  authStatus: {
    capability: 'auth.status',
    advertised: (c) => isObject((c.auth as Record<string, unknown> | null | undefined)?.['status']),
    unstable: true,
  },
  archiveSession: { capability: 'sessionCapabilities.archive', advertised: (c) => unstableSession(c, 'archive'), unstable: true },
};

/** An unstable session capability: an object (`{}` or with options) advertises it, as the stable ones. */
function unstableSession(caps: S.AgentCapabilities, name: string): boolean {
  return isObject((caps.sessionCapabilities as Record<string, unknown> | null | undefined)?.[name]);
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Obj = Record<string, unknown>;

/** `_meta.jetbrains` and its `air`, each `{}` where absent or not an object. */
function airMeta(meta: Obj | null | undefined): { jetbrains: Obj; air: Obj } {
  const jetbrains = isObject(meta?.['jetbrains']) ? (meta?.['jetbrains'] as Obj) : {};
  return { jetbrains, air: isObject(jetbrains['air']) ? (jetbrains['air'] as Obj) : {} };
}

/** `{version: 1, inclusive: true}` at `_meta.jetbrains.air.fork`: the agent's fork keeps the message it is given. */
function forksAtMessage(meta: Obj | null | undefined): boolean {
  const fork = airMeta(meta).air['fork'];
  return isObject(fork) && (fork as Obj)['version'] === 1 && (fork as Obj)['inclusive'] === true;
}

/** `true` or an object (of options) advertises an extension; anything else does not. */
function isAdvertised(value: unknown): boolean {
  return value === true || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

/**
 * The capabilities an `initialize` answer advertises. Adapters put extensions (steering) in the answer's own `_meta`
 * rather than in `agentCapabilities`; they are read as part of the capabilities here, so one place answers for both.
 * So are the extensions a known adapter implements without advertising them (quirks.ts `unadvertisedExtensions`).
 */
export function advertisedCapabilities(result: Pick<S.InitializeResponse, 'agentCapabilities' | '_meta' | 'agentInfo'>): S.AgentCapabilities {
  let caps = result.agentCapabilities ?? {};
  const steering = result._meta?.['steering'];
  if (steering !== undefined && caps._meta?.['steering'] === undefined) caps = { ...caps, _meta: { ...caps._meta, steering } };
  const { jetbrains, air } = airMeta(caps._meta);
  // What the agent advertises itself wins, whatever it says.
  if (unadvertisedExtensions(result.agentInfo).forkAtMessage && air['fork'] === undefined) {
    caps = { ...caps, _meta: { ...caps._meta, jetbrains: { ...jetbrains, air: { ...air, fork: { version: 1, inclusive: true } } } } };
  }
  return caps;
}

/** Every feature of the protocol's schema, for tests that check each against it. */
export const AGENT_FEATURES = (Object.keys(FEATURES) as AgentFeature[]).filter(
  (f) => !FEATURES[f].extension && !FEATURES[f].unstable && !FEATURES[f].draft,
) as readonly AgentFeature[];

/** The features that are extensions some agents advertise in `_meta`, outside the schema. */
export const EXTENSION_FEATURES = (Object.keys(FEATURES) as AgentFeature[]).filter((f) => FEATURES[f].extension) as readonly AgentFeature[];

/** The features of the unstable schema only (schema.unstable.json), for the test that checks each against it. */
export const UNSTABLE_FEATURES = (Object.keys(FEATURES) as AgentFeature[]).filter((f) => FEATURES[f].unstable) as readonly AgentFeature[];

/** Whether the agent advertised `feature`. An agent not yet initialized supports nothing optional. */
export function supports(caps: S.AgentCapabilities | null | undefined, feature: AgentFeature): boolean {
  return caps != null && FEATURES[feature].advertised(caps);
}

/** Where `feature` is advertised ("sessionCapabilities.list"), for refusals and log lines. */
export function capabilityName(feature: AgentFeature): string {
  return FEATURES[feature].capability;
}

/** What a prompt block needs the agent to have advertised; text and resource links need nothing. */
export function promptFeature(block: Pick<S.ContentBlock, 'type'>): AgentFeature | undefined {
  switch (block.type) {
    case 'image':
      return 'promptImage';
    case 'audio':
      return 'promptAudio';
    case 'resource':
      return 'promptEmbeddedContext';
    default:
      return undefined;
  }
}

/** An MCP server the client may declare for a session: ACP v1's kinds, and (unstable) one it serves over ACP itself. */
export type OfferedMcpServer = S.McpServer | McpServerAcp;

/** An MCP server's transport when it needs a capability (http, sse, acp); undefined for stdio, which every agent takes. */
export function mcpTransport(server: OfferedMcpServer): 'http' | 'sse' | 'acp' | undefined {
  return 'type' in server && (server.type === 'http' || server.type === 'sse' || server.type === 'acp') ? server.type : undefined;
}

/** What an MCP server needs the agent to have advertised: http, sse and acp servers need their capability, stdio none. */
export function mcpFeature(server: OfferedMcpServer): AgentFeature | undefined {
  const transport = mcpTransport(server);
  return transport === 'http' ? 'mcpHttp' : transport === 'sse' ? 'mcpSse' : transport === 'acp' ? 'mcpAcp' : undefined;
}

/** What the agent accepts in a prompt besides text and resource links. */
export interface PromptAccepts {
  readonly image: boolean;
  readonly audio: boolean;
  readonly embeddedContext: boolean;
}

/** What a chat without an agent accepts: nothing but text and links. */
export const ACCEPTS_NOTHING: PromptAccepts = { image: false, audio: false, embeddedContext: false };

/**
 * The agent's capabilities as the client asks about them. Each answer comes from `supports`, so the connection's
 * gate and whoever offers a feature cannot disagree.
 */
export class AgentCapabilities {
  constructor(readonly advertised: S.AgentCapabilities | null | undefined) {}

  supports(feature: AgentFeature): boolean {
    return supports(this.advertised, feature);
  }

  get accepts(): PromptAccepts {
    return { image: this.supports('promptImage'), audio: this.supports('promptAudio'), embeddedContext: this.supports('promptEmbeddedContext') };
  }

  /** How an earlier session can be opened again: replayed (`session/load`, preferred), continued (`session/resume`), or not at all. */
  get reopens(): 'load' | 'resume' | undefined {
    return this.supports('loadSession') ? 'load' : this.supports('resumeSession') ? 'resume' : undefined;
  }
}

/**
 * What the client advertises in `initialize` beside `fs` and `terminal` (which follow from the handler, inbound.ts):
 * - `_meta.terminal_output`: agents that run commands themselves stream the output in `_meta` (quirks.ts);
 * - `session`: the chat shows notices, boolean config options (as a checkbox) and compactions (compactions.ts);
 * - `elicitation`: questions from the agent, forms in the chat and urls the user opens (elicitations.ts);
 * - `subagents` (unstable, schema.unstable.json): children of a session show as cards in its chat (subagents.ts);
 * - `plan` (unstable): plans by id, as items, Markdown or a file, beside ACP v1's one plan (plans.ts);
 * - `auth.terminal`: sign-in methods that run a command in a terminal, where the host can run them.
 */
export function clientCapabilities(options: { readonly terminalAuth: boolean }): Omit<S.ClientCapabilities, 'fs' | 'terminal'> {
  return {
    _meta: { terminal_output: true },
    // `quota` (the draft RFD "Quotas and Limits"): the account's limits, in `quota_update` (quota.ts).
    session: { notices: {}, configOptions: { boolean: {} }, compaction: {}, quota: {} },
    elicitation: { form: {}, url: {} },
    subagents: {},
    plan: {},
    ...(options.terminalAuth ? { auth: { terminal: true } } : {}),
  };
}
