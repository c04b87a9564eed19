// A chat's permission level, told to agents that have a setting of their own for it (acp/quirks.ts `levelSetting`:
// claude-agent-acp's acceptEdits and bypassPermissions, codex-acp's approval presets, Copilot CLI's allow_all), so
// that the agent stops asking in the first place. Only a value the agent offers is set; going back to Ask leaves a
// mode the user chose (plan, say) alone and leaves only the modes that belong to the other levels. The client's own
// answers (levelRules.ts) still apply to whatever the agent asks anyway.
import type { AgentSession } from '../acp/agentClient';
import { errorMessage } from '../acp/errors';
import type { Logger } from '../acp/log';
import { levelModes, levelSetting, type PermissionLevelId } from '../acp/quirks';

/** Sets the agent's own mode or option for `level`, where it has one; resolves with what was set, if anything. */
export async function tellAgentLevel(session: AgentSession, level: PermissionLevelId, log: Logger): Promise<string | undefined> {
  const info = session.client.initialized.agentInfo;
  const setting = levelSetting(info, level);
  if (!setting) return undefined;
  const model = session.model;
  try {
    if ('mode' in setting) {
      const modes = model.modes;
      if (!modes?.availableModes.some((m) => m.id === setting.mode) || modes.currentModeId === setting.mode) return undefined;
      // Ask leaves only a mode that another level set: a plan mode the user picked stays.
      if (level === 'ask' && !levelModes(info).includes(modes.currentModeId)) return undefined;
      await session.setMode(setting.mode);
      log.info(`[permissions] the level "${level}" set ${info?.name ?? 'the agent'}'s mode to "${setting.mode}"`);
      return `mode ${setting.mode}`;
    }
    const option = model.configOptions.find((o) => o.id === setting.configId);
    if (option?.type !== 'boolean' || option.currentValue === setting.value) return undefined;
    await session.setConfigOption(setting.configId, setting.value);
    log.info(`[permissions] the level "${level}" set ${info?.name ?? 'the agent'}'s option "${setting.configId}" to ${String(setting.value)}`);
    return `${setting.configId} ${String(setting.value)}`;
  } catch (error) {
    // The agent refused: the client keeps answering by the level itself.
    log.warn(`[permissions] ${info?.name ?? 'the agent'} refused the setting for the level "${level}": ${errorMessage(error)}`);
    return undefined;
  }
}
