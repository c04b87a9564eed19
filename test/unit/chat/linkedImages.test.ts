// The image files an agent links to: which links are images (type, else name; files only), how they are numbered
// with the message's image blocks, and what is read of them (inside the chat's folders, regular files, bounded, and
// only when the bytes are the image the type says), against real files.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as S from '../../../src/acp/schema.gen';
import { imageSources, linkedImageType } from '../../../src/chat/images';
import { readLinkedImage } from '../../../src/chat/linkedImages';

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const link = (uri: string, mimeType?: string): Extract<S.ContentBlock, { type: 'resource_link' }> => ({
  type: 'resource_link',
  name: 'x',
  uri,
  ...(mimeType ? { mimeType } : {}),
});

describe('linked images', () => {
  it('takes a file link by its image type, else by its name; never another scheme or another declared type', () => {
    assert.equal(linkedImageType(link('file:///w/chart.png')), 'image/png');
    assert.equal(linkedImageType(link('file:///w/photo.JPG')), 'image/jpeg');
    assert.equal(linkedImageType(link('file:///w/shot', 'image/webp')), 'image/webp');
    assert.equal(linkedImageType(link('file:///w/chart.png', 'text/plain')), undefined);
    assert.equal(linkedImageType(link('file:///w/logo.svg')), undefined);
    assert.equal(linkedImageType(link('https://example.com/chart.png', 'image/png')), undefined);
    assert.equal(linkedImageType(link('file:///w/notes.md')), undefined);
  });

  it('numbers image blocks and image links in the order of the message', () => {
    const content: S.ContentBlock[] = [
      { type: 'text', text: 'a' },
      link('file:///w/one.png'),
      { type: 'image', mimeType: 'image/png', data: PIXEL.toString('base64') },
      link('file:///w/readme.md'),
      link('file:///w/two.gif'),
    ];
    assert.deepEqual(
      imageSources(content).map((s) => (s.kind === 'link' ? s.uri : s.kind)),
      ['file:///w/one.png', 'data', 'file:///w/two.gif'],
    );
  });

  describe('reading', () => {
    let root: string;
    let outside: string;
    before(() => {
      root = mkdtempSync(join(tmpdir(), 'acp-linked-'));
      outside = mkdtempSync(join(tmpdir(), 'acp-outside-'));
    });
    after(() => {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    });
    const read = (path: string, mimeType: 'image/png' | 'image/gif' = 'image/png') =>
      readLinkedImage({ kind: 'link', uri: pathToFileURL(path).href, mimeType }, [root]);

    it('reads an image inside the folders, and says why it does not read the others', async () => {
      writeFileSync(join(root, 'ok.png'), PIXEL);
      assert.deepEqual(await read(join(root, 'ok.png')), { base64: PIXEL.toString('base64') });
      writeFileSync(join(outside, 'out.png'), PIXEL);
      assert.deepEqual(await read(join(outside, 'out.png')), { refused: "not shown: the file is outside this chat's folders" });
      writeFileSync(join(root, 'fake.png'), 'text');
      assert.deepEqual(await read(join(root, 'fake.png')), { refused: 'not shown: not a PNG image' });
      assert.deepEqual(await read(join(root, 'ok.png'), 'image/gif'), { refused: 'not shown: not a GIF image' });
      writeFileSync(join(root, 'big.png'), Buffer.concat([PIXEL, Buffer.alloc(5 * 1024 * 1024)]));
      assert.deepEqual(await read(join(root, 'big.png')), { refused: 'not shown: larger than 4 MB' });
      assert.deepEqual(await read(join(root, 'missing.png')), { refused: 'not shown: the file cannot be read' });
    });

    it('never opens a FIFO (which would wait for a writer)', async () => {
      execFileSync('mkfifo', [join(root, 'pipe.png')]);
      assert.deepEqual(await read(join(root, 'pipe.png')), { refused: 'not shown: not a file' });
    });
  });
});
