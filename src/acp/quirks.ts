// What particular agents do that the protocol does not say, in one place. A quirk that needs the client to act
// differently for one agent is keyed by what the agent says about itself in `initialize` (`agentInfo.name`), not by
// a setting the user must know: a Gemini CLI configured by hand (its own path to `gemini --acp`, nothing else)
// behaves like the preset. An agent's entry in `acp.agents` can still override each quirk (true or false).
// No `vscode` import: the core returns facts, and the host acts on them.
//
// Quirks every agent may show, handled for all of them where the data passes (the notes say where):
// - Older field names on tool calls (`id`, `name`, `arguments`, status `success`, `output`): mapped by
//   `mapLegacyToolCall` below, used by updates.ts (session/update) and, through it, connection.ts (permission
//   requests).
// - The same `tool_call` id announced twice, first with `rawInput: {}` and then in full: the session model
//   (sessionModel.ts `upsertTool`) upserts by id, so the second announcement updates the entry instead of adding one.
//   Permission requests and `tool_call_update`s for ids never announced create the entry there too (Gemini
//   announces edits only through `session/request_permission`).
// - Agents that run commands themselves (codex-acp) report the output in `_meta.terminal_output {terminal_id, data}`
//   and `_meta.terminal_exit`, and show it with content `{type: "terminal", terminalId}` for a terminal the client
//   never created. The client opts in with `clientCapabilities._meta.terminal_output: true` (agentClient.ts `start`),
//   and the session model (sessionModel.ts `applyExtras`) turns it into terminal output.
// - Agents with a mode of their own for a permission level (claude-agent-acp's acceptEdits, codex-acp's approval
//   presets, Copilot CLI's allow_all): `levelSettings` below; permissions/levelModes.ts sets it when the level changes.
import type * as S from './schema.gen';
import { clip } from './text';

/** What the client does differently for one agent. Each fact is false for an agent with no known quirk. */
export interface AgentQuirks {
  /**
   * Answer `fs/read_text_file` of a missing file with empty content instead of -32002. Gemini CLI creates a new
   * file by reading it first and fails its write on any error reply; agents that handle -32002 get the truth.
   */
  readonly readMissingAsEmpty: boolean;
  /**
   * The agent ends a command's text output with `<shellId: N completed with exit code N>` (Copilot CLI runs its shell
   * itself): the card shows that as its exit code, and the text without it (`takeShellExit`).
   */
  readonly shellExitInText: boolean;
  /**
   * The agent puts its "Info: <path>" notices in its message text, each a chunk of its own (Copilot CLI): they are
   * shown as notices, not as part of its answer (`infoNotice`).
   */
  readonly infoInText: boolean;
  /**
   * The agent's mode ids are URLs (Copilot CLI: `https://agentclientprotocol.com/protocol/session-modes#plan`): a
   * default or a saved choice names the mode by its fragment (`plan`), which reads and survives a new host (`modeName`).
   */
  readonly modeIdsAreUrls: boolean;
  /**
   * What each option of the agent's plan approval does, by its id, where the agent is known (the chat says it in plain
   * words: the names alone do not say that "clear context" forgets the conversation). Empty for other agents.
   */
  readonly planOptions: Readonly<Record<string, PlanOptionEffect>>;
  /**
   * The agent says a retry in progress, and an error of a turn other than the running one, in a `session_info_update`'s
   * `_meta.codex.error {message, codexErrorInfo, turnId, willRetry}` (codex-acp, to a client that is not JetBrains AIR):
   * they are shown as notices (`infoError`).
   */
  readonly errorsInInfo: boolean;
}

/**
 * What approving or rejecting a plan does. `approve…`: the agent leaves plan mode and works, asking before each edit and
 * command (`Ask`), editing without asking (`AcceptEdits`), deciding alone (`Auto`) or asking nothing (`Bypass`);
 * `…ClearContext`: it forgets the conversation and starts again from the plan alone. `keepPlanning`: it stays in plan
 * mode and waits to hear what to change.
 */
type PlanOptionEffect =
  | 'approve'
  | 'approveAsk'
  | 'approveAcceptEdits'
  | 'approveAuto'
  | 'approveBypass'
  | 'approveAcceptEditsClearContext'
  | 'approveAutoClearContext'
  | 'approveBypassClearContext'
  | 'keepPlanning'; // the chat's views list them too (chat/shared/views.ts)

/**
 * claude-agent-acp 0.101's options for ExitPlanMode (permissions/options/shared.js): after a clear-context option
 * it denies the tool and starts a fresh context with only the plan. codex-acp 2.6's plan review at the end of a plan
 * turn: implementing switches to its default mode.
 */
const CLAUDE_PLAN_OPTIONS: Readonly<Record<string, PlanOptionEffect>> = {
  'exit-plan-clear-auto': 'approveAutoClearContext',
  'exit-plan-clear-bypass': 'approveBypassClearContext',
  'exit-plan-clear-accept-edits': 'approveAcceptEditsClearContext',
  'exit-plan-auto': 'approveAuto',
  'exit-plan-bypass': 'approveBypass',
  'exit-plan-accept-edits': 'approveAcceptEdits',
  'exit-plan-default': 'approveAsk',
  reject: 'keepPlanning',
};
const CODEX_PLAN_OPTIONS: Readonly<Record<string, PlanOptionEffect>> = { implement_plan: 'approve', revise_plan: 'keepPlanning' };

/** The user's overrides from the agent's `acp.agents` entry: a present value wins over what `agentInfo` implies. */
export type QuirkOverrides = { readonly [K in SwitchedQuirk]?: boolean | undefined };
/** The quirks a user's entry may turn on or off. */
type SwitchedQuirk = 'readMissingAsEmpty' | 'shellExitInText' | 'infoInText' | 'modeIdsAreUrls';

export const NO_QUIRKS: AgentQuirks = {
  readMissingAsEmpty: false,
  shellExitInText: false,
  infoInText: false,
  modeIdsAreUrls: false,
  planOptions: {},
  errorsInInfo: false,
};

/** Known agents by `agentInfo.name`, and where they differ from NO_QUIRKS. */
const BY_NAME: ReadonlyMap<string, Partial<AgentQuirks>> = new Map([
  // Seen with Gemini CLI 0.x: read-before-write of every new file.
  ['gemini-cli', { readMissingAsEmpty: true }],
  // Seen with Copilot CLI 1.0.102: its bash results end in the shell's exit line, "Info: <path>" notices come as
  // message text, and its mode ids are URLs.
  ['Copilot', { shellExitInText: true, infoInText: true, modeIdsAreUrls: true }],
  ['@agentclientprotocol/claude-agent-acp', { planOptions: CLAUDE_PLAN_OPTIONS }],
  // Seen with codex-acp 2.6: its retries ("Reconnecting... 2/5") and late errors in session_info_update's _meta.
  ['@agentclientprotocol/codex-acp', { planOptions: CODEX_PLAN_OPTIONS, errorsInInfo: true }],
]);

/** The quirks of the agent that answered `initialize` with `info` (absent before or without an answer). */
export function agentQuirks(info: S.Implementation | null | undefined, overrides: QuirkOverrides = {}): AgentQuirks {
  const known = typeof info?.name === 'string' ? BY_NAME.get(info.name) : undefined;
  const quirks: { -readonly [K in keyof AgentQuirks]: AgentQuirks[K] } = { ...NO_QUIRKS, ...known };
  for (const key of Object.keys(overrides) as SwitchedQuirk[]) {
    const value = overrides[key];
    if (typeof value === 'boolean' && typeof NO_QUIRKS[key] === 'boolean') quirks[key] = value;
  }
  return quirks;
}

/**
 * The agents whose ACP v2 (Preview) was tried with this client, by the word that names them on their command line (a
 * package or a command: `npx -y @agentclientprotocol/claude-agent-acp`, `codex-acp.cmd`), from the version tried.
 * `acp.protocol: auto` asks only these for v2; the protocol is chosen before the agent has said who it is, so the
 * launch names it. Tried: claude-agent-acp 0.101.0 and codex-acp 2.6.0 (test/agents/pins.ts).
 */
const V2_TESTED: readonly { readonly name: string; readonly since: readonly number[] }[] = [
  { name: 'claude-agent-acp', since: [0, 101, 0] },
  { name: 'codex-acp', since: [2, 6, 0] },
];

/** Whether the command line runs an agent whose v2 was tried (a pinned older version of it does not count). */
function v2Tested(commandLine: readonly string[]): boolean {
  for (const word of commandLine) {
    const m = /(?:^|[\\/@])([a-z0-9-]+?)(?:@(\d+)\.(\d+)\.(\d+)[^/\\]*)?(?:\.cmd|\.exe|\.js)?$/i.exec(word);
    const tested = m && V2_TESTED.find((t) => t.name === m[1]!.toLowerCase());
    if (!tested) continue;
    if (m[2] === undefined) return true;
    const version = [m[2], m[3], m[4]].map(Number);
    return compareVersions(version, tested.since) >= 0;
  }
  return false;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** `acp.protocol` (and an agent's `protocol`): v2 where it was tried, or always v1, or v2 of every agent. */
export type ProtocolChoice = 'auto' | 'v1' | 'v2';

/** The protocol version to ask for in `initialize`: the agent may still answer 1 (connection.ts). */
export function protocolToAsk(choice: ProtocolChoice, commandLine: readonly string[]): 1 | 2 {
  if (choice === 'v1') return 1;
  return choice === 'v2' || v2Tested(commandLine) ? 2 : 1;
}

/** What a known adapter implements without advertising it (capabilities.ts reads these as advertised). */
export interface UnadvertisedExtensions {
  /** `session/fork` at one of its messages, `_meta.jetbrains.air.fork` version 1 (messageFork.ts). */
  readonly forkAtMessage: boolean;
}

/**
 * The adapters that fork at a message without advertising `_meta.jetbrains.air.fork`, by `agentInfo.name`, from the
 * first version that does (claude-agent-acp 0.75.1, codex-acp 1.10.0). An earlier version would ignore the point and
 * copy the whole session, so the version is checked, and one that is not plain `x.y.z` does not count. Only the
 * packages' own names: Zed's Rust adapter also calls itself `codex-acp`, and does not fork at a message.
 */
const FORK_AT_MESSAGE_SINCE: ReadonlyMap<string, readonly [number, number, number]> = new Map([
  ['@agentclientprotocol/claude-agent-acp', [0, 75, 1]],
  ['@agentclientprotocol/codex-acp', [1, 10, 0]],
]);

export function unadvertisedExtensions(info: S.Implementation | null | undefined): UnadvertisedExtensions {
  const since = typeof info?.name === 'string' ? FORK_AT_MESSAGE_SINCE.get(info.name) : undefined;
  const version = typeof info?.version === 'string' ? /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})$/.exec(info.version) : null;
  if (!since || !version) return { forkAtMessage: false };
  const parts = version.slice(1).map(Number);
  const newer = parts.findIndex((part, i) => part !== since[i]);
  return { forkAtMessage: newer < 0 || (parts[newer] as number) > (since[newer] as number) };
}

/** The names of the quirks that are on, for a log line. */
export function activeQuirks(quirks: AgentQuirks): string[] {
  return (Object.keys(quirks) as (keyof AgentQuirks)[]).filter((key) => quirks[key] === true);
}

/** The client's permission levels for a chat, from asking every time to allowing everything (permissions/levels.ts). */
export const PERMISSION_LEVEL_NAMES = ['ask', 'autoApproveEdits', 'agentDecides', 'allowAll'] as const;
/** The levels that agents may have a setting of their own for. */
export type AllowingLevel = Exclude<(typeof PERMISSION_LEVEL_NAMES)[number], 'ask'>;

/**
 * What an agent itself does for the permission levels, so that it asks exactly when the level says and a chat never
 * shows Ask while the agent approves by itself:
 * - a mode of its own: the mode each level runs in (`forLevel`), the mode that asks before edits and commands
 *   (`asking`: Ask, and a level without a mode of its own), which of its modes approve by themselves and the lowest
 *   level that allows as much (`approves`), and the modes a level never moves it out of (`kept`: a plan mode is the
 *   user's until they leave it);
 * - or a boolean config option turned on for some levels.
 * The client still answers what the agent asks anyway (levelRules.ts).
 */
export type LevelSettings =
  | {
      readonly asking: string;
      readonly forLevel: Readonly<Partial<Record<AllowingLevel, string>>>;
      readonly approves: Readonly<Record<string, AllowingLevel>>;
      readonly kept: readonly string[];
    }
  | { readonly option: string; readonly on: readonly AllowingLevel[] };

/**
 * claude-agent-acp: `default` is "Manual: always ask before making changes"; `acceptEdits` edits without asking;
 * `auto` (0.101.0 starts every session there) lets Claude decide what to ask; `bypassPermissions` never asks.
 */
const CLAUDE_LEVELS: LevelSettings = {
  asking: 'default',
  forLevel: { autoApproveEdits: 'acceptEdits', agentDecides: 'auto', allowAll: 'bypassPermissions' },
  approves: { acceptEdits: 'autoApproveEdits', auto: 'agentDecides', bypassPermissions: 'allowAll' },
  kept: ['plan'],
};

/**
 * By `agentInfo.name`:
 * - claude-agent-acp, under each name it has had;
 * - the maintained codex-acp (TypeScript over codex's app server): `read-only` asks before edits and commands,
 *   `workspace-write` edits and runs commands in the workspace without asking, `agent` (where 2.6.0 starts) asks only
 *   for what its review finds unsafe, `agent-full-access` never asks. None approves edits alone, so Auto-approve edits
 *   runs it in `read-only` and the client answers the edits;
 * - Zed's earlier Rust codex-acp, which calls itself `codex-acp`: `read-only`, `auto`, `full-access`;
 * - Copilot CLI's `allow_all` option.
 */
const LEVEL_SETTINGS: ReadonlyMap<string, LevelSettings> = new Map<string, LevelSettings>([
  ['@zed-industries/claude-agent-acp', CLAUDE_LEVELS],
  ['@agentclientprotocol/claude-agent-acp', CLAUDE_LEVELS],
  ['claude-agent-acp', CLAUDE_LEVELS],
  [
    '@agentclientprotocol/codex-acp',
    {
      asking: 'read-only',
      forLevel: { agentDecides: 'agent', allowAll: 'agent-full-access' },
      approves: { 'workspace-write': 'agentDecides', agent: 'agentDecides', 'agent-full-access': 'allowAll' },
      kept: [],
    },
  ],
  [
    'codex-acp',
    {
      asking: 'read-only',
      forLevel: { agentDecides: 'auto', allowAll: 'full-access' },
      approves: { auto: 'agentDecides', 'full-access': 'allowAll' },
      kept: [],
    },
  ],
  ['Copilot', { option: 'allow_all', on: ['allowAll'] }],
]);

/** The agent's own settings for the permission levels, or undefined for an agent that has none known. */
export function levelSettings(info: S.Implementation | null | undefined): LevelSettings | undefined {
  return typeof info?.name === 'string' ? LEVEL_SETTINGS.get(info.name) : undefined;
}

type Obj = Record<string, unknown>;

const SHELL_EXIT = /\n?<shellId: [^<>\n]{1,100} completed with exit code (-?\d{1,10})>\s*$/;

/**
 * Copilot CLI's exit line at the end of a tool call's last text content: taken out of the text, and returned as the
 * exit code (`shellExitInText`). The call is left as it is when its text does not end so.
 */
export function takeShellExit(content: S.ToolCallContent[]): number | undefined {
  const last = content[content.length - 1];
  if (last?.type !== 'content' || last.content.type !== 'text') return undefined;
  const text = last.content.text;
  const match = SHELL_EXIT.exec(text.length > 300 ? text.slice(-300) : text);
  if (!match) return undefined;
  const kept = text.slice(0, text.length - match[0].length);
  content[content.length - 1] = { ...last, content: { ...last.content, text: kept } };
  return Number(match[1]);
}

/** One "Info: …" line, alone in its chunk (Copilot CLI's notices); bounded, so the match stays linear. */
const INFO_LINE = /^\n*Info: ([^\n]{1,2000})\n*$/;

/** Copilot CLI's "Info: <path>" notice, sent as a message chunk of its own: as a notice, or undefined for its own text. */
export function infoNotice(block: S.ContentBlock): S.Notice | undefined {
  if (block.type !== 'text' || block.text.length > 2100) return undefined;
  const match = INFO_LINE.exec(block.text);
  return match ? { severity: 'info', title: `Info: ${(match[1] ?? '').trim()}` } : undefined;
}

/** How an agent's mode id is named in a default or a saved choice: a URL's fragment (`modeIdsAreUrls`), else the id. */
export function modeName(quirks: Pick<AgentQuirks, 'modeIdsAreUrls'>): (id: string) => string {
  if (!quirks.modeIdsAreUrls) return (id) => id;
  return (id) => {
    const hash = id.lastIndexOf('#');
    return /^https?:\/\//.test(id) && hash >= 0 && hash < id.length - 1 ? id.slice(hash + 1) : id;
  };
}

/**
 * Maps the field names that older agents and the older docs use: `tool_call` with `id`/`name`/`arguments`,
 * `tool_call_update` with `id`, status `success` and `output`. Returns the update itself when nothing is old.
 */
export function mapLegacyToolCall(update: Obj): Obj {
  const legacyId = update['toolCallId'] === undefined && update['id'] !== undefined;
  const legacyStatus = update['status'] === 'success';
  const legacyOutput = update['output'] !== undefined && update['rawOutput'] === undefined;
  if (!legacyId && !legacyStatus && !legacyOutput) return update;
  const mapped: Obj = { ...update };
  if (legacyId) {
    mapped['toolCallId'] = update['id'];
    delete mapped['id'];
    if (mapped['title'] === undefined && typeof update['name'] === 'string') mapped['title'] = update['name'];
    if (mapped['rawInput'] === undefined && update['arguments'] !== undefined) {
      mapped['rawInput'] = update['arguments'];
      delete mapped['arguments'];
    }
  }
  if (legacyStatus) mapped['status'] = 'completed';
  if (legacyOutput) {
    mapped['rawOutput'] = update['output'];
    delete mapped['output'];
  }
  return mapped;
}

/** `{terminal_id, ...}` as codex-acp sends it in `_meta`, or undefined. */
function terminalMeta(value: unknown): (Record<string, unknown> & { id: string }) | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const id = record['terminal_id'];
  return typeof id === 'string' && id !== '' ? { ...record, id } : undefined;
}

/**
 * A tool call's `_meta` from an agent that runs commands itself (codex-acp): the output it printed
 * (`terminal_output {terminal_id, data}`), how it ended (`terminal_exit {terminal_id, exit_code, signal}`), and the
 * rest of the `_meta`, kept as it is.
 */
export function readTerminalMeta(meta: Record<string, unknown>): {
  rest: Record<string, unknown>;
  output?: { terminalId: string; data: string };
  exit?: { terminalId: string; status: S.TerminalExitStatus };
} {
  const { terminal_output: output, terminal_exit: exit, ...rest } = meta;
  const printed = terminalMeta(output);
  const exited = terminalMeta(exit);
  const code = exited?.['exit_code'];
  const signal = exited?.['signal'];
  return {
    rest,
    ...(printed && typeof printed['data'] === 'string' ? { output: { terminalId: printed.id, data: printed['data'] } } : {}),
    ...(exited
      ? {
          exit: {
            terminalId: exited.id,
            status: { exitCode: typeof code === 'number' ? code : null, signal: typeof signal === 'string' ? signal : null },
          },
        }
      : {}),
  };
}

/** The codex errors each session has said, so that each is said once: over v2 every later patch carries it again. */
const said = new WeakMap<object, Set<string>>();
const MAX_SAID = 64;

/**
 * The error an agent with `errorsInInfo` says in a `session_info_update`, as a notice, once: the first retry of a turn
 * while a turn runs ("Reconnecting... 1/5", a warning), and an error (of another turn) while one runs or once the
 * session has had one of its own; a reopened session's old error is no news. Bounded. Undefined for any other update.
 */
export function infoError(
  quirks: AgentQuirks,
  update: S.SessionUpdate,
  // The session's turn as sessionState.ts says it (not imported: the chat page reads this file, and must not read that).
  session: { readonly turn: { readonly phase: string; readonly stopReason?: unknown; readonly error?: unknown } },
): Extract<S.SessionUpdate, { sessionUpdate: 'notice' }> | undefined {
  if (!quirks.errorsInInfo || update.sessionUpdate !== 'session_info_update') return undefined;
  const codex = update._meta?.['codex'];
  const error = codex && typeof codex === 'object' ? (codex as Record<string, unknown>)['error'] : undefined;
  if (!error || typeof error !== 'object') return undefined;
  const { message, willRetry, turnId } = error as Record<string, unknown>;
  if (typeof message !== 'string' || message.trim() === '') return undefined;
  const retrying = willRetry === true;
  const { turn } = session;
  const live = turn.phase !== 'idle';
  if (retrying ? !live : !live && turn.stopReason === undefined && turn.error === undefined) return undefined;
  const turnKey = typeof turnId === 'string' ? turnId.slice(0, 200) : '';
  const key = retrying ? `retry ${turnKey}` : `error ${turnKey} ${message.slice(0, 500)}`;
  const seen = said.get(session) ?? new Set<string>();
  said.set(session, seen);
  if (seen.has(key)) return undefined;
  seen.add(key);
  if (seen.size > MAX_SAID) seen.delete(seen.values().next().value!);
  return { sessionUpdate: 'notice', severity: retrying ? 'warning' : 'error', title: clip(message.trim(), 500) };
}
