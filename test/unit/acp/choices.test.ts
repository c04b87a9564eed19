// A chat's choices of its agent's settings: read from a session's modes and config options, and the calls that give
// another session the same, only with values it offers.
import * as assert from 'node:assert/strict';
import { currentChoices, planChoices, withoutLevelSettings, type SettingsState } from '../../../src/acp/choices';
import { levelSettings } from '../../../src/acp/quirks';
import type * as S from '../../../src/acp/schema.gen';

const model: S.SessionConfigOption = {
  id: 'model',
  name: 'Model',
  category: 'model',
  type: 'select',
  currentValue: 'fast',
  options: [
    { group: 'anthropic', name: 'Anthropic', options: [{ value: 'opus', name: 'Opus' }] },
    { group: 'local', name: 'Local', options: [{ value: 'fast', name: 'Fast' }] },
  ],
};
const effort: S.SessionConfigOption = {
  id: 'effort',
  name: 'Effort',
  type: 'select',
  currentValue: 'low',
  options: [
    { value: 'low', name: 'Low' },
    { value: 'high', name: 'High' },
  ],
};
const verbose: S.SessionConfigOption = { id: 'verbose', name: 'Verbose', type: 'boolean', currentValue: false };
const modes: S.SessionModeState = {
  currentModeId: 'default',
  availableModes: [
    { id: 'default', name: 'Default' },
    { id: 'plan', name: 'Plan' },
  ],
};

describe('choices', () => {
  const state: SettingsState = { modes, configOptions: [model, effort, verbose] };

  it('reads the mode, the model and the other options of a session', () => {
    assert.deepEqual(currentChoices(state), { mode: 'default', model: 'fast', options: { effort: 'low', verbose: false } });
    const modeOption: S.SessionConfigOption = { ...effort, id: 'agent-mode', category: 'mode', currentValue: 'high' };
    assert.equal(currentChoices({ modes, configOptions: [modeOption] }).mode, 'high', 'a config option of category mode stands for the mode');
    assert.deepEqual(currentChoices({ modes: undefined, configOptions: [] }), {});
  });

  it('plans only the calls for what differs and is offered (grouped values too), and lists what is not offered', () => {
    const plan = planChoices(state, { mode: 'plan', model: 'opus', options: { effort: 'low', verbose: true, colour: 'blue' } });
    assert.deepEqual(plan.calls, [
      { kind: 'mode', modeId: 'plan' },
      { kind: 'option', id: 'model', value: 'opus' },
      { kind: 'option', id: 'verbose', value: true },
    ]);
    assert.deepEqual(plan.missing, [{ what: 'colour', value: 'blue' }]);
    const refused = planChoices(state, { mode: 'yolo', model: 'gpt', options: { effort: true, verbose: 'yes' } });
    assert.deepEqual(refused.calls, []);
    assert.deepEqual(
      refused.missing.map((m) => m.what),
      ['mode', 'model', 'effort', 'verbose'],
      'a value of the wrong kind is not offered',
    );
    assert.deepEqual(planChoices({ modes: undefined, configOptions: [] }, { mode: 'plan' }).missing, [{ what: 'mode', value: 'plan' }]);
  });

  it('leaves out what a permission level sets in the agent, so a default carries the level and not the agent\u2019s allow-all', () => {
    const claude = levelSettings({ name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' });
    assert.deepEqual(withoutLevelSettings({ mode: 'bypassPermissions', model: 'opus' }, claude), { model: 'opus' });
    assert.deepEqual(
      withoutLevelSettings({ mode: 'auto' }, claude),
      {},
      'Claude’s auto decides alone: it is the level Agent decides, not a default mode',
    );
    assert.deepEqual(withoutLevelSettings({ mode: 'default' }, claude), { mode: 'default' });
    assert.deepEqual(withoutLevelSettings({ mode: 'plan' }, claude), { mode: 'plan' });
    const copilot = { option: 'allow_all', on: ['allowAll' as const] };
    assert.deepEqual(withoutLevelSettings({ options: { allow_all: true, effort: 'high' } }, copilot), { options: { effort: 'high' } });
    assert.deepEqual(withoutLevelSettings({ options: { allow_all: true } }, copilot), {});
    assert.deepEqual(withoutLevelSettings({ mode: 'plan' }, undefined), { mode: 'plan' });
  });
  it('names modes whose ids are URLs by their fragment, both ways, where the agent needs it', () => {
    const url = (name: string) => `https://agentclientprotocol.com/protocol/session-modes#${name}`;
    const copilot: SettingsState = {
      modes: {
        currentModeId: url('agent'),
        availableModes: [
          { id: url('agent'), name: 'Agent' },
          { id: url('plan'), name: 'Plan' },
        ],
      },
      configOptions: [],
    };
    const fragment = (id: string) => id.slice(id.lastIndexOf('#') + 1);
    assert.equal(currentChoices(copilot, fragment).mode, 'agent');
    assert.deepEqual(planChoices(copilot, { mode: 'plan' }, fragment).calls, [{ kind: 'mode', modeId: url('plan') }]);
    assert.deepEqual(planChoices(copilot, { mode: url('plan') }, fragment).calls, [{ kind: 'mode', modeId: url('plan') }], 'the full id too');
    assert.deepEqual(planChoices(copilot, { mode: 'agent' }, fragment).calls, [], 'already there');
  });
});
