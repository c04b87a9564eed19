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
//   presets, Copilot CLI's allow_all): `levelSetting` below; permissions/levelModes.ts sets it when the level changes.
import type * as S from './schema.gen';

/** What the client does differently for one agent. Each fact is false for an agent with no known quirk. */
export interface AgentQuirks {
  /**
   * Answer `fs/read_text_file` of a missing file with empty content instead of -32002. Gemini CLI creates a new
   * file by reading it first and fails its write on any error reply; agents that handle -32002 get the truth.
   */
  readonly readMissingAsEmpty: boolean;
}

/** The user's overrides from the agent's `acp.agents` entry: a present value wins over what `agentInfo` implies. */
export type QuirkOverrides = { readonly [K in keyof AgentQuirks]?: AgentQuirks[K] | undefined };

export const NO_QUIRKS: AgentQuirks = { readMissingAsEmpty: false };

/** Known agents by `agentInfo.name`, and where they differ from NO_QUIRKS. */
const BY_NAME: ReadonlyMap<string, Partial<AgentQuirks>> = new Map([
  // Seen with Gemini CLI 0.x: read-before-write of every new file.
  ['gemini-cli', { readMissingAsEmpty: true }],
]);

/** The quirks of the agent that answered `initialize` with `info` (absent before or without an answer). */
export function agentQuirks(info: S.Implementation | null | undefined, overrides: QuirkOverrides = {}): AgentQuirks {
  const known = typeof info?.name === 'string' ? BY_NAME.get(info.name) : undefined;
  const quirks: { -readonly [K in keyof AgentQuirks]: AgentQuirks[K] } = { ...NO_QUIRKS, ...known };
  for (const key of Object.keys(NO_QUIRKS) as (keyof AgentQuirks)[]) {
    const value = overrides[key];
    if (value !== undefined) quirks[key] = value;
  }
  return quirks;
}

/** The names of the quirks that are on, for a log line. */
export function activeQuirks(quirks: AgentQuirks): string[] {
  return (Object.keys(quirks) as (keyof AgentQuirks)[]).filter((key) => quirks[key]);
}

/** The client's permission levels (permissions/levels.ts), as far as agents have a mode of their own for them. */
export type PermissionLevelId = 'ask' | 'autoApproveEdits' | 'allowAll';

/**
 * What an agent itself does for a permission level, so that it stops asking in the first place: a mode of its own,
 * or a boolean config option. The client still answers what the agent asks anyway.
 */
export type LevelSetting = { readonly mode: string } | { readonly configId: string; readonly value: boolean };

type LevelSettings = Readonly<Record<PermissionLevelId, LevelSetting>>;

const CLAUDE_LEVELS: LevelSettings = {
  ask: { mode: 'default' },
  autoApproveEdits: { mode: 'acceptEdits' },
  allowAll: { mode: 'bypassPermissions' },
};

/** By `agentInfo.name`: claude-agent-acp's modes, codex-acp's approval presets, Copilot CLI's `allow_all` option. */
const LEVEL_SETTINGS: ReadonlyMap<string, LevelSettings> = new Map([
  ['@zed-industries/claude-agent-acp', CLAUDE_LEVELS],
  ['@agentclientprotocol/claude-agent-acp', CLAUDE_LEVELS],
  ['claude-agent-acp', CLAUDE_LEVELS],
  ['codex-acp', { ask: { mode: 'read-only' }, autoApproveEdits: { mode: 'auto' }, allowAll: { mode: 'full-access' } }],
  [
    'Copilot',
    {
      ask: { configId: 'allow_all', value: false },
      autoApproveEdits: { configId: 'allow_all', value: false },
      allowAll: { configId: 'allow_all', value: true },
    },
  ],
]);

/** The agent's own setting for `level`, or undefined for an agent that has none known. */
export function levelSetting(info: S.Implementation | null | undefined, level: PermissionLevelId): LevelSetting | undefined {
  return typeof info?.name === 'string' ? LEVEL_SETTINGS.get(info.name)?.[level] : undefined;
}

/** The modes an agent uses for levels other than Ask: leaving one of them is what going back to Ask means. */
export function levelModes(info: S.Implementation | null | undefined): readonly string[] {
  const settings = typeof info?.name === 'string' ? LEVEL_SETTINGS.get(info.name) : undefined;
  if (!settings) return [];
  return [settings.autoApproveEdits, settings.allowAll].flatMap((s) => ('mode' in s ? [s.mode] : []));
}

type Obj = Record<string, unknown>;

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
