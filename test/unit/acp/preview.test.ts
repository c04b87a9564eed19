// `preview`, which every log line about agent data goes through: short JSON, and bounded whatever the agent sent.
import * as assert from 'node:assert/strict';
import { preview } from '../../../src/acp/tolerance';

/** The fastest of three runs of `make`, in milliseconds (one run may take a garbage collection's pause). */
function fastest(make: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    make();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function nest(levels: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = wrap(value);
  return value;
}

describe('preview', () => {
  it('writes small values as JSON does, and cuts long ones to the bound plus …', () => {
    assert.equal(preview({ a: [1, 'x', null, true], b: { c: 2 } }), '{"a":[1,"x",null,true],"b":{"c":2}}');
    assert.equal(preview('say "hi"\n'), '"say \\"hi\\"\\n"');
    assert.equal(preview(undefined), 'undefined');
    assert.equal(preview({ skip: undefined, keep: 1 }), '{"keep":1}');
    assert.equal(preview(new Date(0)), '"1970-01-01T00:00:00.000Z"');
    assert.equal(preview('abcdefghij', 4), '"abc…');
    assert.equal(preview({ key: 'a'.repeat(100) }, 10), '{"key":"aa…');
  });

  it('shows nesting deeper than six levels, cycles and long lists as …, on one line', () => {
    assert.equal(preview({ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }), '{"a":{"b":{"c":{"d":{"e":{"f":…}}}}}}');
    const cycle: Record<string, unknown> = { name: 'x' };
    cycle['self'] = cycle;
    assert.equal(preview(cycle), '{"name":"x","self":…}');
    const many = preview(
      Array.from({ length: 150 }, () => 0),
      1000,
    );
    assert.equal(many, `[${Array(100).fill('0').join(',')},…]`);
    assert.ok(!preview({ text: 'a\nb\u2028c' }).includes('\n'));
  });

  it('never throws, even when reading the value does', () => {
    const hostile = {
      ok: 1,
      get bad(): never {
        throw new Error('no');
      },
    };
    assert.equal(preview(hostile), '{"ok":1…');
    assert.equal(preview(10n), '10');
  });

  it('stays cheap and short for hostile values: deep nesting, a huge string, a huge array', () => {
    const cases: [string, () => unknown][] = [
      ['3,000 levels of objects', () => nest(3000, (inner) => ({ a: inner }))],
      ['100,000 levels of arrays', () => nest(100_000, (inner) => [inner])],
      // Flat, as JSON.parse makes it ('x'.repeat makes a rope, which the first slice would flatten at some cost).
      ['a 50 MB string', () => Buffer.alloc(50 * 1024 * 1024, 'x').toString('latin1')],
      ['a 1,000,000-item array', () => Array.from({ length: 1_000_000 }, (_, i) => ({ i }))],
    ];
    for (const [what, make] of cases) {
      const value = make();
      for (const max of [80, 2000]) {
        const text = preview(value, max);
        assert.ok(text.length <= max + 1, `${what}: ${text.length} chars`);
        // Serializing any of these whole takes 10 ms to 2 s (or throws); a bounded walk takes under a millisecond.
        const ms = fastest(() => preview(value, max));
        assert.ok(ms < 50, `${what}: ${ms.toFixed(1)} ms`);
      }
    }
  });
});
