import * as assert from 'node:assert/strict';
import { decodeUtf8, looksBinary, sliceLines } from '../../../src/acp/text';

describe('sliceLines (fs/read_text_file line and limit)', () => {
  const text = 'one\ntwo\r\nthree\rfour';

  it('returns the whole text without line or limit', () => {
    assert.equal(sliceLines(text), text);
    assert.equal(sliceLines(text, null, null), text);
  });

  it('counts lines from 1 and keeps each line\u2019s own ending (LF, CRLF, CR)', () => {
    assert.equal(sliceLines(text, 1, 1), 'one\n');
    assert.equal(sliceLines(text, 2, 1), 'two\r\n');
    assert.equal(sliceLines(text, 3, 1), 'three\r');
    assert.equal(sliceLines(text, 2, 2), 'two\r\nthree\r');
    assert.equal(sliceLines(text, 4), 'four');
  });

  it('runs to the end when the limit goes past it, and is empty past the last line', () => {
    assert.equal(sliceLines(text, 3, 100), 'three\rfour');
    assert.equal(sliceLines('a\nb\n', 3), '');
    assert.equal(sliceLines('a\nb\n', 9, 2), '');
  });

  it('treats line 0 or below as line 1, and a zero limit as nothing', () => {
    assert.equal(sliceLines(text, 0, 1), 'one\n');
    assert.equal(sliceLines(text, -4, 1), 'one\n');
    assert.equal(sliceLines(text, 1, 0), '');
  });
});

describe('looksBinary and decodeUtf8', () => {
  it('calls a file with a NUL byte in its first 8 KiB binary', () => {
    assert.equal(looksBinary(new Uint8Array([104, 105, 0, 1])), true);
    assert.equal(looksBinary(new TextEncoder().encode('plain text ✓')), false);
    const late = new Uint8Array(9000).fill(65);
    late[8500] = 0;
    assert.equal(looksBinary(late), false);
  });

  it('decodes UTF-8, drops a BOM, and refuses invalid bytes', () => {
    assert.equal(decodeUtf8(new TextEncoder().encode('héllo 🎉')), 'héllo 🎉');
    assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), 'a');
    assert.equal(decodeUtf8(new Uint8Array([0xff, 0xfe, 0x61])), undefined);
  });
});
