// Agent quirks come from what the agent says about itself in `initialize`, so a hand-configured Gemini CLI gets the
// same treatment as the preset; an explicit true or false in its `acp.agents` entry wins.
import * as assert from 'node:assert/strict';
import { activeQuirks, agentQuirks, levelModes, levelSetting, NO_QUIRKS } from '../../../src/acp/quirks';
import { parseAgents } from '../../../src/settings/agentConfig';

const GEMINI = { name: 'gemini-cli', title: 'Gemini CLI', version: '0.61.0' };

describe('agent quirks (keyed by agentInfo)', () => {
  it('reads missing files as empty for Gemini CLI, by its agentInfo name alone', () => {
    assert.equal(agentQuirks(GEMINI).readMissingAsEmpty, true);
    assert.equal(agentQuirks({ name: 'gemini-cli', version: '1.0.0' }).readMissingAsEmpty, true, 'whatever its version or title');
    assert.deepEqual(activeQuirks(agentQuirks(GEMINI)), ['readMissingAsEmpty']);
  });

  it('tells other agents the truth (-32002), and agents that sent no agentInfo too', () => {
    for (const info of [
      { name: 'claude-agent-acp', title: 'Claude Code', version: '0.9.1' },
      { name: 'codex-acp', version: '0.3.0' },
      { name: 'Gemini CLI', version: '0.61.0' }, // a title is not a name
      { name: '__proto__', version: '1' },
      { name: 'constructor', version: '1' },
      null,
      undefined,
    ]) {
      assert.deepEqual(agentQuirks(info), NO_QUIRKS, JSON.stringify(info));
    }
    assert.deepEqual(activeQuirks(agentQuirks(undefined)), []);
  });

  it('lets the agent entry override the quirk either way; an absent setting leaves it to agentInfo', () => {
    assert.equal(agentQuirks(GEMINI, { readMissingAsEmpty: false }).readMissingAsEmpty, false);
    assert.equal(agentQuirks({ name: 'my-agent', version: '1' }, { readMissingAsEmpty: true }).readMissingAsEmpty, true);
    assert.equal(agentQuirks(undefined, { readMissingAsEmpty: true }).readMissingAsEmpty, true, 'before initialize too');
    assert.equal(agentQuirks(GEMINI, { readMissingAsEmpty: undefined }).readMissingAsEmpty, true);
  });

  it('reads the override from acp.agents only when the entry sets it', () => {
    const { agents } = parseAgents({
      'Gemini CLI': { command: '/opt/gemini/bin/gemini', args: ['--acp'] },
      'Gemini, told no': { command: 'gemini', args: ['--acp'], readMissingAsEmpty: false },
      Other: { command: 'other', readMissingAsEmpty: true },
    });
    const quirks = agents.map((a) =>
      agentQuirks(a.name === 'Other' ? { name: 'other', version: '1' } : GEMINI, { readMissingAsEmpty: a.readMissingAsEmpty }),
    );
    assert.deepEqual(
      quirks.map((q) => q.readMissingAsEmpty),
      [true, false, true],
    );
    assert.equal('readMissingAsEmpty' in agents[0]!, false, 'a hand-written entry with only command and args sets nothing');
  });
});

describe('the agents’ own settings for a permission level (keyed by agentInfo)', () => {
  it('maps each level to claude-agent-acp’s modes, codex-acp’s approval presets and Copilot CLI’s allow_all, and nothing for others', () => {
    for (const name of ['@zed-industries/claude-agent-acp', '@agentclientprotocol/claude-agent-acp']) {
      const info = { name, version: '0.23.1' };
      assert.deepEqual(levelSetting(info, 'autoApproveEdits'), { mode: 'acceptEdits' });
      assert.deepEqual(levelSetting(info, 'allowAll'), { mode: 'bypassPermissions' });
      assert.deepEqual(levelSetting(info, 'ask'), { mode: 'default' });
      assert.deepEqual(levelModes(info), ['acceptEdits', 'bypassPermissions']);
    }
    const codex = { name: 'codex-acp', version: '0.9.0' };
    assert.deepEqual(
      (['ask', 'autoApproveEdits', 'allowAll'] as const).map((l) => levelSetting(codex, l)),
      [{ mode: 'read-only' }, { mode: 'auto' }, { mode: 'full-access' }],
    );
    const copilot = { name: 'Copilot', version: '1.0.102' };
    assert.deepEqual(levelSetting(copilot, 'allowAll'), { configId: 'allow_all', value: true });
    assert.deepEqual(levelSetting(copilot, 'autoApproveEdits'), { configId: 'allow_all', value: false });
    assert.deepEqual(levelModes(copilot), [], 'Copilot’s levels are an option, not modes');
    assert.equal(levelSetting({ name: 'gemini-cli', version: '0.61.0' }, 'allowAll'), undefined);
    assert.equal(levelSetting(undefined, 'allowAll'), undefined);
  });
});
