import * as assert from 'node:assert/strict';
import { DisposableStore, disposeAll } from '../../../src/common/disposables';

function recorder(log: string[], name: string, fail = false) {
  return {
    dispose() {
      log.push(name);
      if (fail) throw new Error(`${name} failed`);
    },
  };
}

describe('DisposableStore', () => {
  it('disposes what it holds once, in the order it came', () => {
    const log: string[] = [];
    const store = new DisposableStore(recorder(log, 'a'));
    store.push(recorder(log, 'b'), recorder(log, 'c'));
    const d = recorder(log, 'd');
    assert.equal(store.add(d), d, 'add hands the item back');
    assert.deepEqual(log, [], 'nothing is disposed before the store');
    store.dispose();
    store.dispose();
    assert.deepEqual(log, ['a', 'b', 'c', 'd']);
  });

  it('disposes at once what comes after it was disposed', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.dispose();
    store.push(recorder(log, 'late'));
    assert.deepEqual(log, ['late']);
  });

  it('clears what it holds and goes on holding what comes after', () => {
    const log: string[] = [];
    const store = new DisposableStore(recorder(log, 'first'));
    store.clear();
    store.push(recorder(log, 'second'));
    assert.deepEqual(log, ['first']);
    store.dispose();
    assert.deepEqual(log, ['first', 'second']);
  });

  it('disposes every item though one throws, then throws the first error', () => {
    const log: string[] = [];
    const store = new DisposableStore(recorder(log, 'a', true), recorder(log, 'b', true), recorder(log, 'c'));
    assert.throws(() => store.dispose(), /a failed/);
    assert.deepEqual(log, ['a', 'b', 'c']);
  });

  it('disposeAll disposes every member of a collection that each disposal shrinks, though one throws', () => {
    const log: string[] = [];
    const open = new Set<{ dispose(): void }>();
    for (const [name, fail] of [
      ['a', false],
      ['b', true],
      ['c', false],
    ] as const) {
      const item = {
        dispose() {
          open.delete(item); // as a chat panel leaves its registry when it is disposed
          recorder(log, name, fail).dispose();
        },
      };
      open.add(item);
    }
    assert.throws(() => disposeAll(open), /b failed/);
    assert.deepEqual(log, ['a', 'b', 'c']);
    assert.equal(open.size, 0);
  });
});
