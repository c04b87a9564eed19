// What a permission level answers: Ask nothing, Auto-approve edits a file edit inside the session's folders with
// the agent's allow-once option, Allow all every request with the agent's allow option; neither answers a plan
// approval or a request about a path outside the workspace.
import * as assert from 'node:assert/strict';
import type * as S from '../../../src/acp/schema.gen';
import type { ToolCallState } from '../../../src/acp/sessionState';
import { isPlanApproval, planOf } from '../../../src/acp/toolCalls';
import { levelAnswer, neverAutomatic, PERMISSION_LEVELS } from '../../../src/permissions/levelRules';

const ROOTS = ['/w'];
const OPTIONS: S.PermissionOption[] = [
  { optionId: 'always', name: 'Always', kind: 'allow_always' },
  { optionId: 'once', name: 'Once', kind: 'allow_once' },
  { optionId: 'no', name: 'No', kind: 'reject_once' },
];

function call(overrides: Partial<ToolCallState>): ToolCallState {
  return { toolCallId: 't', title: 'x', kind: 'other', status: 'pending', content: [], locations: [], ...overrides };
}
const edit = (path: string) => call({ kind: 'edit', content: [{ type: 'diff', path, oldText: 'a', newText: 'b' }], locations: [{ path }] });

describe('permission levels', () => {
  it('are Ask, Auto-approve edits, Agent decides and Allow all, in the order of what they let through', () => {
    assert.deepEqual([...PERMISSION_LEVELS], ['ask', 'autoApproveEdits', 'agentDecides', 'allowAll']);
  });

  it('Agent decides answers nothing: what the agent still asks is the user\u2019s', () => {
    assert.equal(levelAnswer('agentDecides', edit('/w/a.ts'), OPTIONS, ROOTS), undefined);
  });

  it('Ask answers nothing', () => {
    assert.equal(levelAnswer('ask', edit('/w/a.ts'), OPTIONS, ROOTS), undefined);
  });

  it('Auto-approve edits answers an edit inside the folders with allow-once, and nothing else', () => {
    assert.equal(levelAnswer('autoApproveEdits', edit('/w/src/a.ts'), OPTIONS, ROOTS)?.optionId, 'once');
    assert.equal(levelAnswer('autoApproveEdits', call({ kind: 'execute', title: 'rm -rf /' }), OPTIONS, ROOTS), undefined, 'a command asks');
    assert.equal(levelAnswer('autoApproveEdits', call({ kind: 'edit' }), OPTIONS, ROOTS), undefined, 'an edit that names no file asks');
    const diff = { type: 'diff' as const, path: '/w/a.ts', newText: 'x' };
    for (const kind of ['execute', 'delete', 'move', 'other'] as const)
      assert.equal(
        levelAnswer('autoApproveEdits', call({ kind, content: [diff], locations: [{ path: '/w/a.ts' }] }), OPTIONS, ROOTS),
        undefined,
        `a ${kind} carrying a diff asks`,
      );
    assert.equal(levelAnswer('autoApproveEdits', edit('/w/a.ts'), [OPTIONS[0]!, OPTIONS[2]!], ROOTS), undefined, 'no allow-once option: it asks');
  });

  it('Allow all answers every request with allow-once, else allow-always', () => {
    assert.equal(levelAnswer('allowAll', call({ kind: 'execute', title: 'npm test' }), OPTIONS, ROOTS)?.optionId, 'once');
    assert.equal(levelAnswer('allowAll', call({ kind: 'fetch' }), [OPTIONS[0]!, OPTIONS[2]!], ROOTS)?.optionId, 'always');
    assert.equal(levelAnswer('allowAll', call({ kind: 'fetch' }), [OPTIONS[2]!], ROOTS), undefined, 'no allow option: it asks');
  });

  it('never answers a plan approval or a path outside the workspace, at any level', () => {
    const plan = call({ kind: 'switch_mode', title: 'Ready to code?', rawInput: { plan: '1. Fix it' } });
    const planByInput = call({ kind: 'other', title: 'ExitPlanMode', rawInput: { plan: '1. Fix it' } });
    assert.ok(isPlanApproval(plan) && isPlanApproval(planByInput));
    const outside = edit('/etc/hosts');
    const sneaky = call({ kind: 'edit', locations: [{ path: '/w/a.ts' }], content: [{ type: 'diff', path: '/w/../etc/passwd', newText: 'x' }] });
    for (const level of PERMISSION_LEVELS) {
      for (const c of [plan, planByInput, outside, sneaky]) assert.equal(levelAnswer(level, c, OPTIONS, ROOTS), undefined, `${level}: ${c.title}`);
    }
    assert.equal(neverAutomatic(plan, ROOTS), 'plan');
    assert.equal(neverAutomatic(outside, ROOTS), 'outside');
    assert.equal(neverAutomatic(edit('/w/a.ts'), ROOTS), undefined);
  });

  it('finds the plan a request asks to approve, bounded, and nothing in other requests', () => {
    assert.equal(planOf({ rawInput: { plan: '1. Fix it' } }), '1. Fix it');
    assert.equal(planOf({ rawInput: { plan: '   ' } }), undefined);
    assert.equal(planOf({ rawInput: { command: 'ls' } }), undefined);
    assert.equal(planOf({ rawInput: 'plan' }), undefined);
    assert.equal(planOf({ rawInput: { plan: 'x'.repeat(70_000) } })?.length, 64 * 1024 + 1);
  });
});
