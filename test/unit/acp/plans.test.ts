import * as assert from 'node:assert/strict';
import { PLAN_TEXT_LIMIT, PlanByIdUpdate, Plans } from '../../../src/acp/plans';

const read = (update: unknown) => PlanByIdUpdate.parse(update);
const items = (planId: string, entries: unknown[]) => read({ sessionUpdate: 'plan_update', plan: { type: 'items', planId, entries } });

describe('plans by id', () => {
  it('replaces a plan whole in its place, and removes it; removing an unknown plan changes nothing', () => {
    const plans = new Plans();
    assert.equal(plans.apply(items('a', [{ content: 'one', priority: 'low', status: 'pending' }])), true);
    plans.apply(read({ sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'b', content: '# B' } }));
    plans.apply(items('a', [{ content: 'one', priority: 'low', status: 'completed' }]));
    assert.deepEqual(
      plans.all.map((p) => p.planId),
      ['a', 'b'],
    );
    assert.deepEqual(plans.get('a'), { planId: 'a', kind: 'items', entries: [{ content: 'one', priority: 'low', status: 'completed' }] });
    plans.apply(read({ sessionUpdate: 'plan_update', plan: { type: 'file', planId: 'a', uri: 'file:///tmp/plan.md' } }));
    assert.deepEqual(plans.get('a'), { planId: 'a', kind: 'file', uri: 'file:///tmp/plan.md' }, 'a plan may change kind');
    assert.equal(plans.apply(read({ sessionUpdate: 'plan_removed', planId: 'b' })), true);
    assert.equal(plans.apply(read({ sessionUpdate: 'plan_removed', planId: 'nope' })), false);
    assert.deepEqual(
      plans.all.map((p) => p.planId),
      ['a'],
    );
  });

  it('skips the entries the schema would not take, alone, and refuses an update without a plan id or kind', () => {
    const plans = new Plans();
    plans.apply(
      items('a', [{ content: 'kept', priority: 'high', status: 'in_progress' }, { content: 1 }, 'x', { content: 'no status', priority: 'low' }]),
    );
    assert.deepEqual(plans.get('a'), { planId: 'a', kind: 'items', entries: [{ content: 'kept', priority: 'high', status: 'in_progress' }] });
    for (const bad of [
      { sessionUpdate: 'plan_update', plan: { type: 'items', entries: [] } },
      { sessionUpdate: 'plan_update', plan: { type: 'diagram', planId: 'a' } },
      { sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'a' } },
      { sessionUpdate: 'plan_removed' },
    ]) {
      assert.equal(PlanByIdUpdate.safeParse(bad).success, false, JSON.stringify(bad));
    }
  });

  it('is bounded: 50 plans, 64 K characters a plan, 256 K a session (the plans that came first go), Markdown cut and said so', () => {
    const plans = new Plans();
    for (let i = 0; i < 60; i++) plans.apply(items(`p${i}`, []));
    assert.equal(plans.all.length, 50);
    assert.equal(plans.all[0]?.planId, 'p10');
    const many = Array.from({ length: 5000 }, () => ({ content: 'x'.repeat(20_000), priority: 'low', status: 'pending' }));
    plans.apply(items('big', many));
    const big = plans.get('big');
    assert.ok(big?.kind === 'items');
    assert.equal(big.entries.length, 7, 'entries stop once the plan holds 64 K characters');
    assert.equal(big.entries[0]?.content.length, 10_001, 'an entry is cut at 10,000 characters');
    plans.apply(read({ sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'long', content: 'y'.repeat(PLAN_TEXT_LIMIT + 10) } }));
    const long = plans.get('long');
    assert.ok(long?.kind === 'markdown');
    assert.equal(long.markdown.length, PLAN_TEXT_LIMIT);
    assert.equal(long.truncated, true);
    for (let i = 0; i < 5; i++) {
      plans.apply(read({ sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: `m${i}`, content: 'z'.repeat(PLAN_TEXT_LIMIT) } }));
    }
    const total = plans.all.reduce(
      (sum, p) => sum + (p.kind === 'markdown' ? p.markdown.length : p.kind === 'items' ? p.entries.reduce((n, e) => n + e.content.length, 0) : 0),
      0,
    );
    assert.ok(total <= 256 * 1024, `${total} characters kept`);
    assert.equal(plans.get('m4')?.kind, 'markdown', 'the newest plan stays');
    assert.equal(plans.get('big'), undefined, 'the plans that came first went');
  });
});
