// `preview`, which every log line about agent data goes through: short JSON, and bounded whatever the agent sent.
import * as assert from 'node:assert/strict';
import { preview } from '../../src/acp/tolerance';

/** Runs `make` and returns its result with the milliseconds it took. */
function timed<T>(make: () => T): [T, number] {
  const start = performance.now();
  const result = make();
  return [result, performance.now() - start];
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
    const many = preview(Array.from({ length: 150 }, () => 0), 1000);
    assert.equal(many, `[${Array(100).fill('0').join(',')},…]`);
    assert.ok(!preview({ text: 'a\nb\u2028c' }).includes('\n'));
  });

  it('never throws, even when reading the value does', () => {
    const hostile = { ok: 1, get bad(): never { throw new Error('no') } };
    assert.equal(preview(hostile), '{"ok":1…');
    assert.equal(preview(10n), '10');
  });

  it('stays cheap and short for hostile values: deep nesting, a huge string, a huge array', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    let deepArray: unknown = [];
    for (let i = 0; i < 100_000; i++) deepArray = [deepArray];
    const cases: [string, unknown][] = [
      ['3,000 levels of objects', deep],
      ['100,000 levels of arrays', deepArray],
      // Flat, as JSON.parse makes it ('x'.repeat makes a rope, which the first slice would flatten at some cost).
      ['a 50 MB string', Buffer.alloc(50 * 1024 * 1024, 'x').toString('latin1')],
      ['a 1,000,000-item array', Array.from({ length: 1_000_000 }, (_, i) => ({ i }))],
    ];
    for (const [what, value] of cases) {
      for (const max of [80, 2000]) {
        const [text, ms] = timed(() => preview(value, max));
        assert.ok(text.length <= max + 1, `${what}: ${text.length} chars`);
        // Serializing any of these whole takes far longer (or throws); a bounded walk takes well under a millisecond.
        assert.ok(ms < 50, `${what}: ${ms.toFixed(1)} ms`);
      }
    }
  });
});
