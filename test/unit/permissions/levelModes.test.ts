import * as assert from 'node:assert/strict';
import { levelSettings } from '../../../src/acp/quirks';
import { levelOf, levelTarget } from '../../../src/permissions/levelModes';
import type { PermissionLevel } from '../../../src/permissions/levelRules';

const claude = levelSettings({ name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' })!;
const codex = levelSettings({ name: '@agentclientprotocol/codex-acp', version: '2.6.0' })!;
const copilot = levelSettings({ name: 'Copilot', version: '1.0.102' })!;
const CLAUDE_MODES = ['default', 'acceptEdits', 'plan', 'auto'];
const CODEX_MODES = ['read-only', 'workspace-write', 'agent', 'agent-full-access'];
const offering = (values: readonly (string | boolean)[]) => (value: string | boolean) => values.includes(value);

describe('the agent’s own mode for each permission level', () => {
  it('moves the maintained adapters out of the modes they start in, which decide alone, when the chat is at Ask', () => {
    assert.equal(levelTarget(claude, 'ask', 'auto', offering(CLAUDE_MODES)), 'default', 'claude-agent-acp 0.101.0 starts in auto');
    assert.equal(levelTarget(codex, 'ask', 'agent', offering(CODEX_MODES)), 'read-only', 'codex-acp 2.6.0 starts in agent');
    assert.equal(levelTarget(codex, 'ask', 'workspace-write', offering(CODEX_MODES)), 'read-only', 'workspace-write runs commands alone');
    assert.equal(levelTarget(claude, 'ask', 'default', offering(CLAUDE_MODES)), undefined, 'a mode that asks stays');
  });

  it('gives each level the agent’s mode for it, and the asking mode where the agent has none that fits', () => {
    const table: [PermissionLevel, string, string | undefined][] = [
      ['autoApproveEdits', 'auto', 'acceptEdits'],
      ['agentDecides', 'default', 'auto'],
      ['allowAll', 'default', undefined], // bypassPermissions is not offered to this session: the client answers all
      ['ask', 'acceptEdits', 'default'],
    ];
    for (const [level, current, wanted] of table) {
      assert.equal(levelTarget(claude, level, current, offering(CLAUDE_MODES)), wanted, `Claude at ${level} from ${current}`);
    }
    assert.equal(levelTarget(claude, 'allowAll', 'default', offering([...CLAUDE_MODES, 'bypassPermissions'])), 'bypassPermissions');
    // Codex has no mode that approves only edits: its agent mode also runs commands, so the client answers the edits.
    assert.equal(levelTarget(codex, 'autoApproveEdits', 'agent', offering(CODEX_MODES)), 'read-only');
    assert.equal(levelTarget(codex, 'agentDecides', 'read-only', offering(CODEX_MODES)), 'agent');
    assert.equal(levelTarget(codex, 'agentDecides', 'workspace-write', offering(CODEX_MODES)), undefined, 'a mode that approves as much stays');
    assert.equal(levelTarget(codex, 'allowAll', 'read-only', offering(CODEX_MODES)), 'agent-full-access');
  });

  it('never moves the agent out of a plan mode, whatever the level', () => {
    for (const level of ['ask', 'autoApproveEdits', 'agentDecides', 'allowAll'] as const) {
      assert.equal(levelTarget(claude, level, 'plan', offering(CLAUDE_MODES)), undefined, level);
    }
  });

  it('says which level a mode the user picked approves as much as', () => {
    assert.equal(levelOf(claude, 'auto'), 'agentDecides');
    assert.equal(levelOf(claude, 'acceptEdits'), 'autoApproveEdits');
    assert.equal(levelOf(claude, 'bypassPermissions'), 'allowAll');
    assert.equal(levelOf(claude, 'plan'), 'ask');
    assert.equal(levelOf(codex, 'agent-full-access'), 'allowAll');
    assert.equal(levelOf(copilot, true), 'allowAll');
    assert.equal(levelOf(copilot, false), 'ask');
  });

  it('turns Copilot CLI’s allow_all on for Allow all only, and off again below it', () => {
    assert.equal(levelTarget(copilot, 'allowAll', false, offering([true, false])), true);
    assert.equal(levelTarget(copilot, 'ask', true, offering([true, false])), false);
    assert.equal(levelTarget(copilot, 'agentDecides', false, offering([true, false])), undefined);
  });
});
