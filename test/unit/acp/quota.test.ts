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

/** A pushed snapshot of `pools`, as of one fixed time. */
function pooled(pools: unknown[]): QuotaUpdate {
  return QuotaUpdate.parse({ sessionUpdate: 'quota_update', updatedAt: '2030-01-01T10:00:00Z', pools });
}

describe('quota', () => {
  it('takes a whole snapshot, ignores an older one of the same session, and keeps the first meters past the bound', () => {
    const tracker = new QuotaTracker();
    let changes = 0;
    tracker.onDidChange(() => changes++);
    tracker.takeSnapshot(update('2030-01-01T10:00:00Z', 40), 's1');
    assert.deepEqual(tracker.all, [{ id: 'plan/m0', usedPercent: 40, window: 'PT5H', resetsAt: Date.parse('2030-01-01T15:00:00Z') }]);
    tracker.takeSnapshot(update('2030-01-01T09:00:00Z', 10), 's1');
    assert.equal(tracker.all[0]?.usedPercent, 40, 'an older snapshot does not win');
    tracker.takeSnapshot(update('2030-01-01T11:00:00Z', 95, 17), 's1');
    assert.deepEqual(
      tracker.all.map((m) => m.id),
      Array.from({ length: 16 }, (_, i) => `plan/m${i}`),
    );
    assert.equal(changes, 2);
  });

  it('skips an invalid pool or meter and keeps the rest, with amounts and the pool’s name', () => {
    const tracker = new QuotaTracker();
    tracker.takeSnapshot(
      pooled([
        { id: 'broken', meters: 'none' },
        { label: 'no id', meters: [] },
        {
          id: 'credits',
          label: 'Credits',
          state: 'available',
          meters: [
            { id: 'balance', remaining: { value: '118.5', unit: 'credits' } },
            { id: 'bad', usedPercent: 'lots' },
            { id: 'silent', label: 'says nothing' },
            { id: 'over', status: 'exceeded', usedPercent: 1500 },
            { id: 'cap', label: 'Monthly spend limit', used: { value: '12.40', unit: 'USD' }, limit: { value: '1e9' }, usedPercent: 24.8 },
          ],
        },
      ]),
      's1',
    );
    assert.deepEqual(tracker.all, [
      { id: 'credits/over', label: 'Credits', pool: 'Credits', usedPercent: 100, status: 'exceeded' },
      { id: 'credits/cap', label: 'Monthly spend limit', pool: 'Credits', usedPercent: 24.8, used: { value: '12.40', unit: 'USD' } },
      { id: 'credits/balance', label: 'Credits', pool: 'Credits', remaining: { value: '118.5', unit: 'credits' } },
    ]);
  });

  it('keeps the account’s read apart: a session’s snapshot is shown over it, whatever their times', () => {
    const tracker = new QuotaTracker();
    tracker.takeSnapshot(update('2030-01-01T12:00:00Z', 30));
    assert.equal(tracker.all[0]?.usedPercent, 30, 'before any session, the account’s read');
    tracker.takeSnapshot(update('2030-01-01T10:00:00Z', 50), 's1');
    assert.equal(tracker.all[0]?.usedPercent, 50, 'a session’s, though older than the account’s read');
    tracker.takeSnapshot(update('2030-01-01T11:00:00Z', 60), 's2');
    assert.equal(tracker.all[0]?.usedPercent, 60, 'the newest session’s');
    tracker.takeSnapshot(update('2029-01-01T00:00:00Z', 70), 's3');
    assert.equal(tracker.all[0]?.usedPercent, 60, 'a session’s first snapshot is taken, but an older one is not shown over a newer');
    tracker.takeSnapshot(update('2030-01-01T13:00:00Z', 20));
    assert.equal(tracker.all[0]?.usedPercent, 60, 'the account’s read never replaces a session’s');
    for (const session of ['s1', 's2', 's3']) tracker.forget(session);
    assert.equal(tracker.all[0]?.usedPercent, 20, 'the sessions closed: the account’s read again');
    tracker.takeSnapshot(update('2030-01-01T14:00:00Z', 42), 's4');
    tracker.forget('s4');
    assert.equal(tracker.all[0]?.usedPercent, 42, 'a closed session’s newer word on the account stays: usage never seems to drop');
    tracker.clear();
    assert.deepEqual(tracker.all, [], 'signed out: nothing of the last account');
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

  it('ranks a limit the agent says is reached, or near, above a larger share', () => {
    const tracker = new QuotaTracker();
    tracker.takeSnapshot(
      pooled([
        {
          id: 'p',
          meters: [
            { id: 'share', usedPercent: 80 },
            { id: 'near', status: 'warning', remaining: { value: '3', unit: 'requests' } },
            { id: 'reached', status: 'exceeded', remaining: { value: '0', unit: 'requests' } },
          ],
        },
      ]),
      's1',
    );
    assert.deepEqual(
      tracker.all.map((m) => m.id),
      ['p/reached', 'p/near', 'p/share'],
    );
  });
});
