// The maintained adapters' failure records (JetBrains AIR's sessionFailure, as claude-agent-acp 0.101 and codex-acp
// 2.6 send them to a client that declares it): the kind from the category and actions alone, the words bounded, and
// a record in a session_info_update said as a notice only where it is news.
import * as assert from 'node:assert/strict';
import { clientCapabilities } from '../../../src/acp/capabilities';
import { failureRecordOf, RecordNotices, recordedFailure } from '../../../src/acp/failureRecords';

function meta(record: Record<string, unknown>): unknown {
  return { jetbrains: { air: { version: 1, sessionFailure: record } } };
}

const overloaded = {
  id: 't1:error',
  revision: 1,
  category: 'service',
  severity: 'error',
  title: 'Claude is temporarily overloaded.',
  actions: ['retry'],
};

describe('failure records', () => {
  it('is declared to the agent in initialize, as the adapters look for it', () => {
    const air = (clientCapabilities({ terminalAuth: false })._meta as { jetbrains: { air: { version: number; capabilities: string[] } } }).jetbrains
      .air;
    assert.equal(air.version, 1);
    assert.deepEqual(air.capabilities, ['sessionFailure']);
  });

  it('reads a record, bounded, and nothing from a _meta without one or with a broken one', () => {
    assert.deepEqual(failureRecordOf(meta(overloaded)), {
      id: 't1:error',
      revision: 1,
      category: 'service',
      severity: 'error',
      text: 'Claude is temporarily overloaded.',
      actions: ['retry'],
    });
    assert.equal(failureRecordOf(meta({ ...overloaded, details: 'HTTP 529' }))?.text, 'Claude is temporarily overloaded. (HTTP 529)');
    assert.ok((failureRecordOf(meta({ ...overloaded, title: 'x'.repeat(100_000) }))?.text.length ?? 0) <= 2001, 'bounded');
    assert.equal(failureRecordOf(meta({ ...overloaded, severity: 'catastrophic', actions: 'retry' }))?.severity, 'error');
    assert.equal(failureRecordOf(undefined), undefined);
    assert.equal(failureRecordOf({ jetbrains: { air: { version: 1 } } }), undefined);
    assert.equal(failureRecordOf(meta({ ...overloaded, title: '' })), undefined, 'a record with nothing to say is none');
    assert.equal(failureRecordOf({ jetbrains: 'air' }), undefined);
  });

  it('reads the kind from the category and the actions, never from the words', () => {
    const kind = (category: string, actions: string[], title = 'Overloaded: retry later') =>
      recordedFailure(failureRecordOf(meta({ ...overloaded, category, actions, title }))!)?.kind;
    assert.equal(kind('service', ['retry']), 'overloaded');
    assert.equal(kind('service', []), undefined);
    assert.equal(kind('access', ['login']), 'signedOut');
    assert.equal(kind('limit', ['retry']), 'rateLimited');
    assert.equal(kind('limit', []), 'quotaExhausted');
    assert.equal(kind('limit', ['new_session']), undefined, 'the session’s own budget or context is no quota');
    assert.equal(kind('connection', ['new_session']), 'network');
    assert.equal(kind('request', [], 'rate limit exceeded'), undefined);
    const quota = [{ id: 'claude/five_hour', label: 'five_hour', status: 'exceeded' as const, resetsAt: 1893510000000 }];
    assert.deepEqual(recordedFailure(failureRecordOf(meta({ ...overloaded, category: 'limit', actions: [] }))!, quota), {
      kind: 'quotaExhausted',
      limit: 'five_hour',
      resetsAt: 1893510000000,
    });
  });

  it('says a retry while the turn runs, once per revision, and a failure outside a turn only after one of its own', () => {
    const notices = new RecordNotices();
    const warning = meta({ ...overloaded, severity: 'warning', title: 'Retrying (attempt 1)' });
    assert.deepEqual(notices.noticeFor(warning, { phase: 'running' }), { severity: 'warning', title: 'Retrying (attempt 1)' });
    assert.equal(notices.noticeFor(warning, { phase: 'running' }), undefined, 'said once');
    assert.equal(notices.noticeFor(meta({ ...overloaded, severity: 'warning', revision: 2 }), { phase: 'running' })?.severity, 'warning');
    assert.equal(notices.noticeFor(meta({ ...overloaded, id: 'e2' }), { phase: 'running' }), undefined, 'the turn’s end says a failure in it');
    assert.equal(notices.noticeFor(meta({ ...overloaded, id: 'e3' }), { phase: 'idle' }), undefined, 'a reopened session’s history is no news');
    assert.equal(notices.noticeFor(meta({ ...overloaded, id: 'e4' }), { phase: 'idle', stopReason: 'end_turn' })?.severity, 'error');
    assert.equal(notices.noticeFor(meta({ ...overloaded, id: 'e5', severity: 'warning' }), { phase: 'idle', stopReason: 'end_turn' }), undefined);
    assert.equal(notices.noticeFor({ title: 'not a record' }, { phase: 'running' }), undefined);
  });
});
