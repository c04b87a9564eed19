// A chat's permission level, kept true in agents that have a setting of their own for it (acp/quirks.ts
// `levelSettings`: claude-agent-acp's modes, codex-acp's, Copilot CLI's allow_all), so that the agent asks exactly
// when the level says:
// - each level runs the agent in its mode for that level, or in its asking mode when the mode it is in would approve
//   more than the level allows (claude-agent-acp 0.101.0 starts in `auto`, codex-acp 2.6.0 in `agent`: a chat at Ask
//   moves them to `default` and `read-only`, and says so once);
// - a mode the level never leaves (a plan mode) stays;
// - a mode the user picks, or that the agent takes after a plan approval, is theirs: when it approves more than the
//   chat's level, the level rises to match, so the chat never shows Ask while the agent approves by itself.
// The client's own answers (levelRules.ts) still apply to whatever the agent asks anyway.
import type { AgentSession } from '../acp/agentClient';
import { selectChoices } from '../acp/choices';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { levelSettings, type AllowingLevel, type LevelSettings } from '../acp/quirks';
import type * as S from '../acp/schema.gen';
import { LEVEL_NAMES, LEVEL_REACH, type PermissionLevel } from './levelRules';

type Value = string | boolean;

/** How one agent's setting for the levels is read and written in a session. */
interface Setting {
  current(): Value | undefined;
  offers(value: Value): boolean;
  /** The agent's own name for a value ("Manual"), or the value itself. */
  nameOf(value: Value): string;
  write(value: Value): Promise<void>;
}

function settingOf(settings: LevelSettings, session: AgentSession): Setting {
  const model = session.model;
  if ('forLevel' in settings) {
    // A config option of category `mode` supersedes the older session modes where the agent has both.
    const option = () =>
      model.configOptions.find((o): o is Extract<S.SessionConfigOption, { type: 'select' }> => o.category === 'mode' && o.type === 'select');
    return {
      current: () => {
        const found = option();
        return found ? found.currentValue : model.modes?.currentModeId;
      },
      offers: (value) => {
        const found = option();
        return found ? selectChoices(found).some((c) => c.value === value) : (model.modes?.availableModes.some((m) => m.id === value) ?? false);
      },
      nameOf: (value) => {
        const found = option();
        const name = found
          ? selectChoices(found).find((c) => c.value === value)?.name
          : model.modes?.availableModes.find((m) => m.id === value)?.name;
        return name || String(value);
      },
      write: (value) => {
        const found = option();
        return found ? session.setConfigOption(found.id, value) : session.setMode(String(value));
      },
    };
  }
  const option = () => model.configOptions.find((o) => o.id === settings.option && o.type === 'boolean');
  return {
    current: () => {
      const value = option()?.currentValue;
      return typeof value === 'boolean' ? value : undefined;
    },
    offers: (value) => option() !== undefined && typeof value === 'boolean',
    nameOf: (value) => `${option()?.name ?? settings.option}: ${value ? 'on' : 'off'}`,
    write: (value) => session.setConfigOption(settings.option, value),
  };
}

/** The lowest level that allows what `value` approves by itself (Ask for a value that approves nothing). */
export function levelOf(settings: LevelSettings, value: Value): PermissionLevel {
  if ('forLevel' in settings) return typeof value === 'string' ? (settings.approves[value] ?? 'ask') : 'ask';
  return value === true ? (settings.on[0] ?? 'allowAll') : 'ask';
}

/** What `level` runs the agent in, given what it runs in now and what it offers, or undefined to leave it. */
export function levelTarget(settings: LevelSettings, level: PermissionLevel, current: Value, offers: (value: Value) => boolean): Value | undefined {
  if ('forLevel' in settings) {
    if (typeof current === 'string' && settings.kept.includes(current)) return undefined;
    // A mode that approves exactly as much as the level stays: it may be the user's (codex-acp's workspace-write).
    if (levelOf(settings, current) === level) return undefined;
    const own = level === 'ask' ? undefined : settings.forLevel[level];
    if (own !== undefined && offers(own)) return own;
    return LEVEL_REACH[levelOf(settings, current)] > LEVEL_REACH[level] && offers(settings.asking) ? settings.asking : undefined;
  }
  if (level !== 'ask' && settings.on.includes(level as AllowingLevel)) return true;
  return LEVEL_REACH[levelOf(settings, current)] > LEVEL_REACH[level] ? false : undefined;
}

/** What the level tells its chat: a sentence for the user, and a higher level the chat now has. */
export interface LevelHost {
  /** Says something in the chat. */
  tell(text: string): void;
  /** The agent now runs in a mode the user chose that approves more than the chat's level: the chat takes `level`. */
  raise(level: PermissionLevel, because: string): void;
}

/** The words the host shows; the host localizes them (see chats/chatSession.ts). */
export interface LevelWords {
  /** The agent started in `from`, which approves alone; the chat's `level` moved it to `to`. */
  lowered(agent: string, from: string, level: PermissionLevel, to: string): string;
  /** The agent's mode is now `mode`, which approves alone: the chat's level is `level` now. */
  raised(agent: string, mode: string, level: PermissionLevel): string;
}

/** One chat's level as its agent's own setting; told each level in order, it acts only where the agent differs. */
export class AgentLevel {
  private queue: Promise<void> = Promise.resolve();
  private level: PermissionLevel | undefined;
  /** The value the client wrote last, so that the agent's echo of it is not taken for the user's choice. */
  private written: Value | undefined;
  /** The value seen last, so that only a change counts. */
  private seen: Value | undefined;
  /** Whether the chat was told already that the agent's starting mode was replaced. */
  private toldLowered = false;
  private readonly settings: LevelSettings | undefined;
  private readonly setting: Setting | undefined;

  constructor(
    private readonly session: AgentSession,
    private readonly log: Logger,
    private readonly host: LevelHost,
    private readonly words: LevelWords,
    private readonly agentName: string,
  ) {
    this.settings = levelSettings(session.client.initialized.agentInfo);
    this.setting = this.settings && settingOf(this.settings, session);
  }

  /** Whether the agent has a mode of its own for `level` (Agent decides is offered only then). */
  offers(level: PermissionLevel): boolean {
    if (level !== 'agentDecides') return true;
    const own = this.settings && 'forLevel' in this.settings ? this.settings.forLevel.agentDecides : undefined;
    return own !== undefined && (this.setting?.offers(own) ?? false);
  }

  /** For each level with a setting of the agent's, its name for it ("Manual"), for the level picker. */
  modeNames(): Partial<Record<PermissionLevel, string>> {
    const { settings, setting } = this;
    if (!settings || !setting || !('forLevel' in settings)) return {};
    const names: Partial<Record<PermissionLevel, string>> = {};
    if (setting.offers(settings.asking)) names.ask = setting.nameOf(settings.asking);
    for (const [level, value] of Object.entries(settings.forLevel) as [AllowingLevel, string][]) {
      if (setting.offers(value)) names[level] = setting.nameOf(value);
    }
    return names;
  }

  /** The chat is at `level` now; resolves once the agent's setting follows (or stays, with the reason logged). */
  tell(level: PermissionLevel): Promise<void> {
    this.queue = this.queue.then(() => this.apply(level));
    return this.queue;
  }

  /**
   * The agent's setting changed (a `current_mode_update` or a config option): when it is not the client's own
   * write and approves more than the chat's level, the chat's level rises to match.
   */
  settingChanged(): void {
    const { settings, setting, level } = this;
    const current = setting?.current();
    if (!settings || !setting || current === undefined || current === this.seen) return;
    this.seen = current;
    if (level === undefined || current === this.written) return;
    this.written = undefined;
    const wider = levelOf(settings, current);
    if (LEVEL_REACH[wider] <= LEVEL_REACH[level]) return;
    this.log.info(`${this.agentName} is now in its ${String(current)}, which approves as "${LEVEL_NAMES[wider]}" does: the chat's level follows`);
    this.host.raise(wider, this.words.raised(this.agentName, setting.nameOf(current), wider));
  }

  private async apply(level: PermissionLevel): Promise<void> {
    const first = this.level === undefined;
    this.level = level;
    const { settings, setting } = this;
    const current = setting?.current();
    if (!settings || !setting || current === undefined) return;
    this.seen = current;
    const wanted = levelTarget(settings, level, current, (value) => setting.offers(value));
    if (wanted === undefined || wanted === current) return;
    try {
      this.written = wanted;
      await setting.write(wanted);
      this.seen = setting.current();
      this.log.info(`the level "${LEVEL_NAMES[level]}" moved ${this.agentName} from ${String(current)} to ${String(wanted)}`);
      // The agent's own starting mode approved more than the level: the user hears it once.
      if (first && !this.toldLowered && LEVEL_REACH[levelOf(settings, current)] > LEVEL_REACH[level]) {
        this.toldLowered = true;
        this.host.tell(this.words.lowered(this.agentName, setting.nameOf(current), level, setting.nameOf(wanted)));
      }
    } catch (error) {
      this.written = undefined;
      // The agent refused: the client keeps answering by the level itself, and says what the agent does.
      this.log.warn(`${this.agentName} refused ${String(wanted)} for the level "${LEVEL_NAMES[level]}": ${errorMessage(error)}`);
      const wider = levelOf(settings, current);
      if (LEVEL_REACH[wider] > LEVEL_REACH[level]) this.host.raise(wider, this.words.raised(this.agentName, setting.nameOf(current), wider));
    }
  }
}
