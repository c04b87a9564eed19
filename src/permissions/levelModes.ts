// A chat's permission level, told to agents that have a setting of their own for it (acp/quirks.ts `levelSettings`:
// claude-agent-acp's acceptEdits and bypassPermissions, codex-acp's full-access, Copilot CLI's allow_all), so that
// the agent stops asking in the first place. Only a value the agent offers is set, only over one of its ordinary
// modes (a plan mode the user chose stays), and only when the level really changed. Going back to a level without a
// setting puts back what the client replaced, if the setting is still the client's. The client's own answers
// (levelRules.ts) still apply to whatever the agent asks anyway.
import type { AgentSession } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { levelSettings, type AllowingLevel, type LevelSettings } from '../acp/quirks';
import type { PermissionLevel } from './levelRules';

type Value = string | boolean;

/** How one agent's setting for the levels is read and written in a session. */
interface Setting {
  readonly name: string;
  current(): Value | undefined;
  offers(value: Value): boolean;
  /** A value the level may replace: an ordinary mode, or the option off. */
  ordinary(value: Value): boolean;
  target(level: PermissionLevel): Value | undefined;
  write(value: Value): Promise<void>;
}

function settingOf(settings: LevelSettings, session: AgentSession): Setting {
  const model = session.model;
  if ('modes' in settings) {
    return {
      name: 'mode',
      current: () => model.modes?.currentModeId,
      offers: (value) => model.modes?.availableModes.some((m) => m.id === value) ?? false,
      ordinary: (value) => typeof value === 'string' && settings.ordinary.includes(value),
      target: (level) => (level === 'ask' ? undefined : settings.modes[level]),
      write: (value) => session.setMode(String(value)),
    };
  }
  const option = () => model.configOptions.find((o) => o.id === settings.option && o.type === 'boolean');
  return {
    name: `option "${settings.option}"`,
    current: () => {
      const value = option()?.currentValue;
      return typeof value === 'boolean' ? value : undefined;
    },
    offers: () => option() !== undefined,
    ordinary: (value) => value === false,
    target: (level) => (level !== 'ask' && settings.on.includes(level as AllowingLevel) ? true : undefined),
    write: (value) => session.setConfigOption(settings.option, value),
  };
}

/** One chat's level as its agent's own setting; told each level in order, it acts only on a change. */
export class AgentLevel {
  private queue: Promise<void> = Promise.resolve();
  private told: PermissionLevel = 'ask';
  /** What the client set, and what it replaced, while the setting is still the client's. */
  private set: { readonly value: Value; readonly replaced: Value } | undefined;

  constructor(
    private readonly session: AgentSession,
    private readonly log: Logger,
  ) {}

  /** The chat is at `level` now; resolves once the agent's setting follows (or stays, with the reason logged). */
  tell(level: PermissionLevel): Promise<void> {
    this.queue = this.queue.then(() => this.apply(level));
    return this.queue;
  }

  private async apply(level: PermissionLevel): Promise<void> {
    if (level === this.told) return;
    this.told = level;
    const info = this.session.client.initialized.agentInfo;
    const settings = levelSettings(info);
    if (!settings) return;
    const setting = settingOf(settings, this.session);
    const agent = info?.name ?? 'the agent';
    const current = setting.current();
    if (current === undefined) return;
    // The user changed the setting since the client set it: it is theirs now, and stays.
    if (this.set && current !== this.set.value) this.set = undefined;
    const ours = this.set;
    const wanted = setting.target(level);
    try {
      if (wanted === undefined) {
        if (!ours) return;
        await setting.write(ours.replaced);
        this.set = undefined;
        this.log.info(`the level "${level}" put ${agent}'s ${setting.name} back to ${String(ours.replaced)}`);
        return;
      }
      if (current === wanted || !setting.offers(wanted) || (!ours && !setting.ordinary(current))) return;
      await setting.write(wanted);
      this.set = { value: wanted, replaced: ours ? ours.replaced : current };
      this.log.info(`the level "${level}" set ${agent}'s ${setting.name} to ${String(wanted)}`);
    } catch (error) {
      // The agent refused: the client keeps answering by the level itself.
      this.log.warn(`${agent} refused its ${setting.name} for the level "${level}": ${errorMessage(error)}`);
    }
  }
}
