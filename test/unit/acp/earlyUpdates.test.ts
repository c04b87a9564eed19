// Updates for a session id before the answer that names it: kept while a request is on its way, handed to the
// session its answer names, bounded, and the rest reported once no request is on its way.
import * as assert from 'node:assert/strict';
import { EarlyUpdates, MAX_EARLY_SESSIONS, MAX_EARLY_UPDATES } from '../../../src/acp/earlyUpdates';
import type * as S from '../../../src/acp/schema.gen';

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
