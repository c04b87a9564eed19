// The account's limits as agents report them: the draft RFD's quota_update (a whole snapshot; an older one is
// ignored; bounded) and claude-agent-acp's _claude/rateLimit (one limit at a time, a fraction, seconds). The
// adapters' PromptResponse._meta.quota (token counts) is not quota and is never read.
import * as assert from 'node:assert/strict';
import { QuotaTracker, QuotaUpdate } from '../../../src/acp/quota';

function update(updatedAt: string, usedPercent: number, meters = 1): QuotaUpdate {
  return QuotaUpdate.parse({
    sessionUpdate: 'quota_update',
    updatedAt,
    pools: [
      {
        id: 'plan',
        meters: Array.from({ length: meters }, (_, i) => ({
          id: `m${i}`,
          usedPercent,
          window: 'PT5H',
          resetsAt: '2030-01-01T15:00:00Z',
          status: 'nope',
        })),
      },
    ],
  });
}

describe('quota', () => {
  it('takes a whole snapshot, ignores an older one, and bounds the meters', () => {
    const tracker = new QuotaTracker();
    let changes = 0;
    tracker.onDidChange(() => changes++);
    tracker.takeUpdate(update('2030-01-01T10:00:00Z', 40));
    assert.deepEqual(tracker.all, [{ id: 'plan/m0', usedPercent: 40, window: 'PT5H', resetsAt: Date.parse('2030-01-01T15:00:00Z') }]);
    tracker.takeUpdate(update('2030-01-01T09:00:00Z', 10));
    assert.equal(tracker.all[0]?.usedPercent, 40, 'an older snapshot does not win');
    tracker.takeUpdate(update('2030-01-01T11:00:00Z', 95, 16));
    assert.equal(tracker.all.length, 16);
    assert.equal(changes, 2);
    assert.throws(() => update('2030-01-01T12:00:00Z', 1, 17), 'a snapshot past the bound is refused whole');
  });

  it('reads claude-agent-acp’s rate limit beside the others, as a percentage with its window and reset', () => {
    const tracker = new QuotaTracker();
    tracker.takeClaudeMeta({
      '_claude/rateLimit': { status: 'allowed_warning', rateLimitType: 'seven_day', utilization: 0.93, resetsAt: 1893510000 },
    });
    tracker.takeClaudeMeta({ '_claude/rateLimit': { status: 'allowed', rateLimitType: 'five_hour', utilization: 0.1 } });
    tracker.takeClaudeMeta({ quota: { token_count: { totalTokens: 5 } } });
    tracker.takeClaudeMeta({ '_claude/rateLimit': { status: 'allowed', utilization: 'lots' } });
    tracker.takeClaudeMeta({ '_claude/rateLimit': { status: 'rejected', rateLimitType: 'seven_day_opus', utilization: 1, resetsAt: 1000 } });
    assert.deepEqual(
      tracker.all,
      [
        { id: 'claude/seven_day', label: 'seven_day', usedPercent: 93, window: 'P7D', resetsAt: 1893510000000, status: 'warning' },
        { id: 'claude/five_hour', label: 'five_hour', usedPercent: 10, window: 'PT5H', status: 'ok' },
      ],
      'a limit whose window has reset (1970) is not shown',
    );
  });
});
