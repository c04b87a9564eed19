// A picker under the composer: the session mode or one of the agent's config options, as a select or a toggle.
import type { PickerView } from '../../src/chat/protocol';
import { setConfig, setMode } from '../intents';
import { t } from '../l10n';

export function Picker({ picker, disabled }: { picker: PickerView; disabled: boolean }) {
  if (picker.type === 'boolean') {
    return (
      <label class="picker toggle" title={picker.description}>
        <input type="checkbox" checked={picker.current} disabled={disabled} onChange={(e) => setConfig(picker.id, e.currentTarget.checked)} />
        {picker.name}
      </label>
    );
  }
  const groups = [...new Set(picker.options.map((o) => o.group))];
  // The legacy mode list comes without a name of its own.
  const name = picker.name || t('Mode');
  const current = picker.options.find((o) => o.value === picker.current)?.name ?? picker.current;
  // A mode or a model reads as one by its value; any other option ("Allow all": "Off") is named beside it.
  const named = picker.target === 'config' && picker.category !== 'mode' && picker.category !== 'model';
  const optionsOf = (group: string | undefined) =>
    picker.options
      .filter((o) => o.group === group)
      .map((o) => (
        <option key={o.value} value={o.value} title={o.description}>
          {o.name}
        </option>
      ));
  const select = (
    <select
      class="picker"
      aria-label={t('{0}: {1}', name, current)}
      title={picker.description ?? name}
      value={picker.current}
      disabled={disabled}
      onChange={(e) => {
        const value = e.currentTarget.value;
        // The picker shows the agent's value until the agent confirms the change.
        e.currentTarget.value = picker.current;
        if (picker.target === 'mode') setMode(value);
        else setConfig(picker.id, value);
      }}
    >
      {groups.length > 1 || groups[0] !== undefined
        ? groups.map((g) => (
            <optgroup key={g ?? ''} label={g ?? ''}>
              {optionsOf(g)}
            </optgroup>
          ))
        : optionsOf(undefined)}
    </select>
  );
  if (!named) return select;
  return (
    <span class="picker-field">
      <span class="picker-name" aria-hidden="true">
        {name}
      </span>
      {select}
    </span>
  );
}
