// The images a page pasted that are not chips yet: a send takes the reads begun before it and the posted images
// whose chips are not back, each named once.
import * as assert from 'node:assert/strict';
import { imagesForSend, imagesPending, readingImage } from '../../../webview/imagesInFlight';

describe('images in flight', () => {
  it('takes the reads begun before the send and the posted images not back; names each once; a later paste waits', async () => {
    const first = readingImage();
    const given = readingImage();
    assert.equal(imagesPending([]), true);
    const sending = imagesForSend([]);
    const later = readingImage(); // pasted after the send: the next message's
    first('token-1');
    given(); // the read failed: nothing to name
    assert.deepEqual(await sending, ['token-1']);
    later('token-2');
    assert.equal(imagesPending(['token-2']), false, 'its chip is back');
    assert.deepEqual(await imagesForSend(['token-2']), [], 'a token on a chip goes with the chip');
    const stale = readingImage();
    stale('token-3'); // refused by the host: no chip ever
    assert.deepEqual(await imagesForSend([]), ['token-3']);
    assert.deepEqual(await imagesForSend([]), [], 'named once, never again');
    assert.equal(imagesPending([]), false, 'so an empty composer does not send');
  });
});
