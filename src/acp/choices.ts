// What a chat chose of its agent's own settings (its mode, its model, its other config options), read from a session,
// and what it takes to give another session the same: the calls to make, only with values that session offers, and
// what it does not offer. Pure, so the host's defaults (acp.agentDefaults) and the chat's own choices after a reopen
// are applied by one rule. A config option of category `mode` stands for the mode where the agent has one (config
// options supersede the older session modes); the model is the option of category `model`.
import type { LevelSettings } from './quirks';
import type * as S from './schema.gen';

export interface Choices {
  readonly mode?: string;
  readonly model?: string;
  /** The other config options, by id. */
  readonly options?: Readonly<Record<string, string | boolean>>;
}

/** What a session shows of its settings: its modes and config options. */
export interface SettingsState {
  readonly modes: S.SessionModeState | undefined;
  readonly configOptions: readonly S.SessionConfigOption[];
}

export type ChoiceCall =
  { readonly kind: 'mode'; readonly modeId: string } | { readonly kind: 'option'; readonly id: string; readonly value: string | boolean };

/** A choice the session does not offer: what it was (`mode`, `model`, or the option's id) and its value. */
export interface Missing {
  readonly what: string;
  readonly value: string | boolean;
}

const byCategory = (state: SettingsState, category: string) => state.configOptions.find((o) => o.category === category);

/** How a mode is named in choices: its id, or what quirks.ts `modeName` makes of it (a URL's fragment). */
type ModeName = (id: string) => string;
const asIs: ModeName = (id) => id;

/** The session's choices as they are now. */
export function currentChoices(state: SettingsState, modeName: ModeName = asIs): Choices {
  const modeOption = byCategory(state, 'mode');
  const raw = modeOption ? modeOption.currentValue : state.modes?.currentModeId;
  const mode = typeof raw === 'string' ? modeName(raw) : undefined;
  const model = byCategory(state, 'model')?.currentValue;
  const options: Record<string, string | boolean> = {};
  for (const o of state.configOptions) if (o.category !== 'mode' && o.category !== 'model') options[o.id] = o.currentValue;
  return {
    ...(typeof mode === 'string' ? { mode } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
}

/** The calls that give `state` the `wanted` choices it does not have yet, and the choices it does not offer. */
export function planChoices(state: SettingsState, wanted: Choices, modeName: ModeName = asIs): { calls: ChoiceCall[]; missing: Missing[] } {
  const calls: ChoiceCall[] = [];
  const missing: Missing[] = [];
  const option = (what: string, found: S.SessionConfigOption | undefined, value: string | boolean) => {
    if (!found || !offers(found, value)) missing.push({ what, value });
    else if (found.currentValue !== value) calls.push({ kind: 'option', id: found.id, value });
  };
  if (wanted.mode !== undefined) {
    const named = (id: string) => id === wanted.mode || modeName(id) === wanted.mode;
    const modeOption = byCategory(state, 'mode');
    if (modeOption) option('mode', modeOption, (modeOption.type === 'select' && selectValues(modeOption).find(named)) || wanted.mode);
    else {
      const mode = state.modes?.availableModes.find((m) => named(m.id));
      if (!mode) missing.push({ what: 'mode', value: wanted.mode });
      else if (state.modes?.currentModeId !== mode.id) calls.push({ kind: 'mode', modeId: mode.id });
    }
  }
  if (wanted.model !== undefined) option('model', byCategory(state, 'model'), wanted.model);
  for (const [id, value] of Object.entries(wanted.options ?? {})) {
    option(
      id,
      state.configOptions.find((o) => o.id === id),
      value,
    );
  }
  return { calls, missing };
}

/** Whether an option takes `value`: one of a select's values (in groups too), or a boolean for a boolean. */
function offers(option: S.SessionConfigOption, value: string | boolean): boolean {
  if (option.type === 'boolean') return typeof value === 'boolean';
  return typeof value === 'string' && selectValues(option).includes(value);
}

/** A select's choices, in groups too: each value with its name. */
export function selectChoices(option: Extract<S.SessionConfigOption, { type: 'select' }>): { readonly value: string; readonly name: string }[] {
  return option.options.flatMap((o) => ('group' in o && Array.isArray(o.options) ? o.options : 'value' in o ? [o] : []));
}

/** A select's values, in groups too. */
function selectValues(option: Extract<S.SessionConfigOption, { type: 'select' }>): string[] {
  return selectChoices(option).map((c) => c.value);
}

/**
 * `choices` without what a permission level sets in the agent (quirks.ts `levelSettings`: a mode that approves by
 * itself, or the option): a default carries the level itself, so that an agent's own allow-all (or its `auto`) never
 * becomes a default by the back door.
 */
export function withoutLevelSettings(choices: Choices, settings: LevelSettings | undefined): Choices {
  if (!settings) return choices;
  if ('forLevel' in settings) {
    if (choices.mode === undefined || !(choices.mode in settings.approves)) return choices;
    const { mode: _level, ...rest } = choices;
    return rest;
  }
  if (!choices.options || !(settings.option in choices.options)) return choices;
  const { [settings.option]: _level, ...options } = choices.options;
  const { options: _all, ...rest } = choices;
  return Object.keys(options).length > 0 ? { ...rest, options } : rest;
}

/** What a chat keeps of its choices: at most 50 options, and ids and values of at most 500 characters. */
export function boundChoices(choices: Choices): Choices {
  const fits = (text: string) => text.length <= 500;
  const options = Object.entries(choices.options ?? {})
    .filter(([id, value]) => fits(id) && (typeof value === 'boolean' || fits(value)))
    .slice(0, 50);
  return {
    ...(choices.mode !== undefined && fits(choices.mode) ? { mode: choices.mode } : {}),
    ...(choices.model !== undefined && fits(choices.model) ? { model: choices.model } : {}),
    ...(options.length > 0 ? { options: Object.fromEntries(options) } : {}),
  };
}
