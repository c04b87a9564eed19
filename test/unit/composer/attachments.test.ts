// The composer's attachments: each once, taken by a send, and given back in front when the send is refused.
import * as assert from 'node:assert/strict';
import { Attachments } from '../../../src/composer/attachments';

describe('Attachments', () => {
  it('keeps each file once, and a refused send puts what it took back in front', () => {
    const a = new Attachments();
    a.add({ kind: 'file', path: '/w/a.ts', label: 'a.ts' });
    a.add({ kind: 'file', path: '/w/a.ts', label: 'a.ts' });
    a.add({ kind: 'file', path: '/w/b.ts', label: 'b.ts' });
    assert.deepEqual(
      a.views.map((v) => v.label),
      ['a.ts', 'b.ts'],
    );
    const taken = a.take([a.ids[1]!]);
    assert.deepEqual(
      taken.map((t) => t.label),
      ['b.ts'],
    );
    a.add({ kind: 'file', path: '/w/c.ts', label: 'c.ts' });
    a.giveBack(taken);
    assert.deepEqual(
      a.views.map((v) => v.label),
      ['b.ts', 'a.ts', 'c.ts'],
    );
    a.remove(a.ids[0]!);
    assert.deepEqual(
      a.views.map((v) => v.label),
      ['a.ts', 'c.ts'],
    );
  });
});
