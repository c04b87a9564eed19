import * as assert from 'node:assert/strict';
import { MAX_QUEUED, MessageQueue } from '../../../src/chat/queue';

const texts = (q: MessageQueue<string>) => q.all.map((i) => i.text);

describe('the message queue', () => {
  it('sends one message after each end_turn, in order, and can be reordered and edited', () => {
    const q = new MessageQueue<string>();
    const a = q.add('a', [])!;
    q.add('b', ['file'])!;
    const c = q.add('c', [])!;
    assert.ok(q.move(c.id, -1));
    assert.deepEqual(texts(q), ['a', 'c', 'b']);
    assert.equal(q.move(a.id, -1), false, 'the first cannot move up');
    assert.equal(q.remove(c.id)?.text, 'c');
    assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false })?.text, 'a');
    assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false })?.attachments[0], 'file');
    assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false }), undefined);
  });

  it('holds after a turn that ended any other way, until released', () => {
    for (const ended of [
      { stopReason: 'cancelled', failed: false },
      { stopReason: 'refusal', failed: false },
      { stopReason: 'max_tokens', failed: false },
      { failed: true },
    ]) {
      const q = new MessageQueue<string>();
      q.add('a', []);
      q.add('b', []);
      assert.equal(q.afterTurn(ended), undefined, JSON.stringify(ended));
      assert.equal(q.held, true);
      assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false }), undefined, 'still held after a later end_turn');
      assert.equal(q.release()?.text, 'a');
      assert.equal(q.held, false);
      assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false })?.text, 'b');
    }
  });

  it('sends a Stop and Send message first, whatever the stopped turn ended with', () => {
    const q = new MessageQueue<string>();
    q.add('queued', []);
    q.add('urgent', [], { next: true });
    assert.deepEqual(texts(q), ['urgent', 'queued']);
    assert.equal(q.afterTurn({ stopReason: 'cancelled', failed: false })?.text, 'urgent');
    assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false })?.text, 'queued');
  });

  it('holds messages brought back after a reload or a restart, and is bounded', () => {
    const q = new MessageQueue<string>();
    q.restore([{ text: 'kept', attachments: [] }]);
    assert.equal(q.held, true);
    assert.equal(q.afterTurn({ stopReason: 'end_turn', failed: false }), undefined);
    const full = new MessageQueue<string>();
    for (let i = 0; i < MAX_QUEUED; i++) assert.ok(full.add(`m${i}`, []));
    assert.equal(full.add('one too many', []), undefined);
  });
});
