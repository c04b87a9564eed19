// The images a page pasted that are not chips yet: a send waits for their reads and names the posted ones until
// their chips come back.
import * as assert from 'node:assert/strict';
import { imagesNotBack, imagesRead, readingImage } from '../../../webview/imagesInFlight';

describe('images in flight', () => {
  it('waits for the reads, names the posted images until their chips come back, and forgets a read given up', async () => {
    const first = readingImage();
    const second = readingImage();
    let read = false;
    const reads = imagesRead().then(() => (read = true));
    first('token-1');
    await Promise.resolve();
    assert.equal(read, false, 'one image is still being read');
    second(); // given up (a read error): nothing to name
    await reads;
    assert.deepEqual(imagesNotBack([]), ['token-1']);
    assert.deepEqual(imagesNotBack(['token-1', undefined]), [], 'its chip is back');
    assert.deepEqual(imagesNotBack([]), [], 'and it is not named again');
    await imagesRead(); // nothing being read: at once
  });
});
