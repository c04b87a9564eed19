// Why a turn failed, read only from the error's code and data: ACP's sign-in code, the draft quota RFD's code with its
// reset time, claude-agent-acp's errorKind and codex-acp's codexErrorInfo; never from the message's words.
import * as assert from 'node:assert/strict';
import { QUOTA_EXCEEDED, readTurnFailure } from '../../../src/acp/turnFailure';

describe('turn failures', () => {
  it('reads sign-in, a used-up quota with its limit and reset, and the adapters’ own kinds', () => {
    assert.deepEqual(readTurnFailure(-32000, undefined), { kind: 'signedOut' });
    assert.deepEqual(readTurnFailure(QUOTA_EXCEEDED, { meterId: 'five_hour', resetsAt: '2026-11-30T15:00:00Z' }), {
      kind: 'quotaExhausted',
      limit: 'five_hour',
      resetsAt: Date.parse('2026-11-30T15:00:00Z'),
    });
    const soon = readTurnFailure(QUOTA_EXCEEDED, { poolId: 'plan', retryAfter: 'PT1H30M' });
    assert.equal(soon?.limit, 'plan');
    assert.ok(Math.abs((soon?.resetsAt ?? 0) - (Date.now() + 90 * 60_000)) < 5_000, 'a retryAfter is from now');
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'overloaded' }), { kind: 'overloaded' });
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'rate_limit' }), { kind: 'rateLimited' });
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'billing_error' }), { kind: 'quotaExhausted' });
    assert.deepEqual(readTurnFailure(-32603, { message: 'x', codexErrorInfo: 'usageLimitExceeded' }), { kind: 'quotaExhausted' });
    assert.deepEqual(readTurnFailure(-32603, { codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } } }), { kind: 'network' });
    assert.deepEqual(readTurnFailure(-32603, { codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: 429 } } }), { kind: 'rateLimited' });
  });

  it('takes a rate limit for the used-up limit the agent’s quota says is exceeded, with its reset', () => {
    const resetsAt = Date.parse('2030-01-01T15:00:00Z');
    const meters = [
      { id: 'claude/seven_day', label: 'seven_day', usedPercent: 40, status: 'ok' as const },
      { id: 'claude/five_hour', label: 'five_hour', usedPercent: 100, resetsAt, status: 'exceeded' as const },
    ];
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'rate_limit' }, meters), { kind: 'quotaExhausted', limit: 'five_hour', resetsAt });
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'rate_limit' }, meters.slice(0, 1)), { kind: 'rateLimited' });
    assert.deepEqual(readTurnFailure(-32603, { errorKind: 'overloaded' }, meters), { kind: 'overloaded' });
  });

  it('guesses nothing: a message that mentions a limit, an unknown kind, or malformed fields are no kind', () => {
    assert.equal(readTurnFailure(-32603, { message: 'You have hit your usage limit' }), undefined);
    assert.equal(readTurnFailure(-32603, undefined), undefined);
    assert.equal(readTurnFailure(-32603, { errorKind: 'toString' }), undefined, 'not a key of the prototype');
    assert.equal(readTurnFailure(-32603, { errorKind: 'something_new' }), undefined);
    assert.deepEqual(readTurnFailure(QUOTA_EXCEEDED, { resetsAt: 'soon', retryAfter: 'P', meterId: 'x'.repeat(500) }), { kind: 'quotaExhausted' });
  });
});
