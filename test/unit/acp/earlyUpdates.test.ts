// Updates for a session id before the answer that names it: kept while a request is on its way, handed to the
// session its answer names, bounded, and the rest reported once no request is on its way.
import * as assert from 'node:assert/strict';
import { applyEarly, EarlyUpdates, MAX_EARLY_SESSIONS, MAX_EARLY_UPDATES } from '../../../src/acp/earlyUpdates';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import { readV2Update } from '../../../src/acp/v2/updates';

const say = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }) as S.SessionUpdate;

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('early updates', () => {
  it('keeps nothing while no session is being opened', () => {
    assert.equal(new EarlyUpdates().keep('s1', say('x')), false);
  });

  it('hands the updates for the id the answer names to that session, and reports the ids nobody claimed', async () => {
    const early = new EarlyUpdates();
    const answer = deferred<{ sessionId: string }>();
    const unclaimed: string[] = [];
    const opened = early.open(
      () => answer.promise,
      (id) => unclaimed.push(id),
    );
    assert.equal(early.keep('s1', say('a')), true);
    assert.equal(early.keep('other', say('b')), true);
    assert.equal(early.keep('s1', say('c')), true);
    answer.resolve({ sessionId: 's1' });
    const { early: kept } = await opened;
    assert.deepEqual(kept, [say('a'), say('c')]);
    assert.deepEqual(unclaimed, ['other']);
    assert.equal(early.keep('s1', say('late')), false, 'nothing is kept once no request is on its way');
  });

  it('keeps them until the last of several requests is answered, and after a failed one reports them', async () => {
    const early = new EarlyUpdates();
    const first = deferred<{ sessionId: string }>();
    const second = deferred<{ sessionId: string }>();
    const unclaimed: string[] = [];
    const one = early.open(
      () => first.promise,
      (id) => unclaimed.push(id),
    );
    const two = early.open(
      () => second.promise,
      (id) => unclaimed.push(id),
    );
    early.keep('b', say('for b'));
    first.reject(new Error('refused'));
    await assert.rejects(one, /refused/);
    assert.deepEqual(unclaimed, [], 'the second request may still name it');
    second.resolve({ sessionId: 'b' });
    assert.deepEqual((await two).early, [say('for b')]);
    assert.deepEqual(unclaimed, []);
  });

  it('applies v1’s updates and v2’s events to the new session, but for what its answer says itself', () => {
    const v2 = (update: Record<string, unknown>) => {
      const r = readV2Update({ sessionId: 's1', update });
      assert.ok(r.ok, 'a valid v2 update');
      return r.event;
    };
    const model = new SessionModel('s1', { configOptions: [] });
    applyEarly(model, [
      say('v1 chunk'),
      v2({ sessionUpdate: 'agent_message', messageId: 'm1', content: [{ type: 'text', text: 'v2 whole message' }] }),
      v2({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'npm test', output: { data: Buffer.from('ok\n').toString('base64') } }),
      v2({
        sessionUpdate: 'config_option_update',
        configOptions: [{ configId: 'y', name: 'Y', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'A' }] }],
      }),
      { sessionUpdate: 'config_option_update', configOptions: [{ id: 'x', name: 'X', type: 'select', currentValue: 'a', options: [] }] },
    ]);
    const texts = model.entries.map((e) => (e.type === 'message' ? e.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : e.type));
    assert.deepEqual(texts, ['v1 chunk', 'v2 whole message']);
    assert.equal(model.terminals.get('t1')?.text, 'ok\n', 'the agent’s terminal, announced before the answer');
    assert.deepEqual(model.configOptions, [], 'the answer’s config options stand');
  });

  it('is bounded in sessions and in updates', async () => {
    const early = new EarlyUpdates();
    const answer = deferred<{ sessionId: string }>();
    const opened = early.open(
      () => answer.promise,
      () => undefined,
    );
    for (let i = 0; i < MAX_EARLY_SESSIONS; i++) assert.equal(early.keep(`s${i}`, say('x')), true);
    assert.equal(early.keep('one-too-many', say('x')), false);
    let kept = MAX_EARLY_SESSIONS;
    while (early.keep('s0', say('y'))) kept++;
    assert.equal(kept, MAX_EARLY_UPDATES);
    answer.resolve({ sessionId: 's0' });
    assert.equal((await opened).early.length, MAX_EARLY_UPDATES - (MAX_EARLY_SESSIONS - 1));
  });
});
