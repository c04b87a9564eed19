import * as assert from 'node:assert/strict';
import { diffLines } from 'diff';
import { lineDelta } from '../../../src/common/lineDelta';

/** The counts of a full line diff, unbounded: what lineDelta must equal on texts small enough for it. */
function reference(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const change of diffLines(before, after)) {
    if (change.added) added += change.count ?? 0;
    else if (change.removed) removed += change.count ?? 0;
  }
  return { added, removed };
}

describe('lineDelta', () => {
  it('counts as a line diff does: shared lines, rewrites, new and deleted files, CRLF, a last line without a break', () => {
    const cases: [string, string][] = [
      ['a\nb\nc\n', 'a\nB\nc\n'],
      ['a\nb\n', 'x\ny\nz\n'],
      ['', 'new\nfile\n'],
      ['gone\n', ''],
      ['a\r\nb\r\n', 'a\r\nc\r\n'],
      ['a\nb', 'a\nb\n'],
      ['same\n', 'same\n'],
      ['x', 'y'],
    ];
    for (const [before, after] of cases) assert.deepEqual(lineDelta(before, after), reference(before, after), JSON.stringify([before, after]));
  });

  it('agrees with the line diff on random small texts', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const text = () =>
      Array.from({ length: Math.floor(rand() * 8) }, () => ['a', 'b', 'c', 'd\r', ''][Math.floor(rand() * 5)]).join('\n') +
      (rand() < 0.5 ? '\n' : '');
    for (let i = 0; i < 500; i++) {
      const before = text();
      const after = text();
      assert.deepEqual(lineDelta(before, after), reference(before, after), JSON.stringify([before, after]));
    }
  });

  it('counts a file rewritten with no line in common without running the diff', () => {
    const before = Array.from({ length: 5000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 6000 }, (_, i) => `new ${i}`).join('\n');
    assert.deepEqual(lineDelta(before, after), { added: 6000, removed: 5000 }, 'exact, though far past the diff’s bound');
  });
});
