import * as assert from 'node:assert/strict';
import { elapsed } from '../../../webview/elapsed';

describe('background work in the chat', () => {
  it('says how long each item has run, in seconds, minutes or hours', () => {
    assert.equal(elapsed(-5), '0 s', 'a clock behind the host’s never shows a negative time');
    assert.equal(elapsed(45_900), '45 s');
    assert.equal(elapsed(185_000), '3 min 5 s');
    assert.equal(elapsed(2 * 3_600_000 + 10 * 60_000), '2 h 10 min');
  });
});
