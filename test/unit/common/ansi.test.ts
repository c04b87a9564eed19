import * as assert from 'node:assert/strict';
import { plainTerminalText } from '../../../src/common/ansi';

describe('terminal output as plain text', () => {
  it('removes colours, cursor moves, titles and stray control characters', () => {
    assert.equal(plainTerminalText('\u001b[1;31merror\u001b[0m: bad\u001b[K\n'), 'error: bad\n');
    assert.equal(plainTerminalText('\u001b]0;my title\u0007hi\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\'), 'hilink');
    assert.equal(plainTerminalText('a\u0007b\u0000c\td'), 'abc\td');
    assert.equal(plainTerminalText('\u009b2Jclear'), 'clear');
  });

  it('keeps what a redrawn line shows last, and CRLF as a newline', () => {
    assert.equal(plainTerminalText('10%\r50%\r100%\r\ndone\r\n'), '100%\ndone\n');
    assert.equal(plainTerminalText('progress 1\rprogress 2\r'), 'progress 2');
  });

  it('leaves ordinary text alone', () => {
    const text = 'const a = "[not an escape]";\n\u00e9\u{1f600}\n';
    assert.equal(plainTerminalText(text), text);
  });

  it('keeps the last drawing of a line that ends in several carriage returns', () => {
    assert.equal(plainTerminalText('a\r\r\nb\r\r'), 'a\nb');
  });

  it('takes linear time on hostile output: unterminated escapes, long runs of carriage returns', () => {
    // A pattern like /\r+\n/ over a million \r retries from each one: minutes. Linear, each takes milliseconds.
    const MB = 1024 * 1024;
    const csi = `\u001b[${'1;'.repeat(MB / 2)}`;
    const csis = `\u001b[${'0'.repeat(100)}`.repeat(MB / 102);
    const inputs: [string, string, string][] = [
      ['1 MB of OSC starts', '\u001b]'.repeat(MB / 2), ''],
      ['an OSC never terminated', `\u001b]0;${'t'.repeat(MB)}`, ''],
      ['1 MB of carriage returns', `${'\r'.repeat(MB)}x`, 'x'],
      ['carriage returns then a newline', `${'\r'.repeat(MB)}\nx`, '\nx'],
      // A CSI that never ends is not an escape yet: kept as it came.
      ['a CSI with a million parameters', csi, csi],
      ['many unfinished CSIs', csis, csis],
    ];
    for (const [what, input, expected] of inputs) {
      // A quadratic scan of these would run past the test's bound by far; their speed is the benchmarks' to measure.
      const text = plainTerminalText(input);
      assert.ok(text === expected, `${what}: unexpected text`);
    }
  });
});
