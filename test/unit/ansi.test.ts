import * as assert from 'node:assert/strict';
import { plainTerminalText } from '../../src/chat/ansi';

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
});
