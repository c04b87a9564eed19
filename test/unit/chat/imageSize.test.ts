import * as assert from 'node:assert/strict';
import { imageSize } from '../../../src/chat/imageSize';
import { shownImage } from '../../../src/chat/images';

function png(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

function gif(screen: [number, number], frame?: [number, number]): Buffer {
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(screen[0], 6);
  head.writeUInt16LE(screen[1], 8);
  head[10] = 0x80; // a global colour table of 2 entries
  const table = Buffer.alloc(6);
  // A graphic control extension, then the first frame's descriptor.
  const extension = Buffer.from([0x21, 0xf9, 0x04, 0, 0, 0, 0, 0]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  if (frame) {
    descriptor.writeUInt16LE(frame[0], 5);
    descriptor.writeUInt16LE(frame[1], 7);
  }
  return Buffer.concat([head, table, extension, descriptor]);
}

function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x04, 0x00, 0x00]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.alloc(8)]);
}

describe('image sizes and the images the chat shows', () => {
  it('reads the size from PNG, GIF (its first frame when larger), JPEG and WebP headers', () => {
    assert.deepEqual(imageSize(png(640, 480), 'image/png'), { width: 640, height: 480 });
    assert.deepEqual(imageSize(gif([1, 1]), 'image/gif'), { width: 1, height: 1 });
    assert.deepEqual(imageSize(gif([1, 1], [5000, 4000]), 'image/gif'), { width: 5000, height: 4000 });
    assert.deepEqual(imageSize(jpeg(1920, 1080), 'image/jpeg'), { width: 1920, height: 1080 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(799, 24, 3);
    webp.writeUIntLE(599, 27, 3);
    assert.deepEqual(imageSize(webp, 'image/webp'), { width: 800, height: 600 });
  });

  it('answers nothing for a cut or foreign header, and never reads past the bytes given', () => {
    assert.equal(imageSize(png(1, 1).subarray(0, 20), 'image/png'), undefined);
    assert.equal(imageSize(Buffer.from('<svg/>'), 'image/png'), undefined);
    assert.equal(imageSize(jpeg(10, 10).subarray(0, 8), 'image/jpeg'), undefined);
    assert.equal(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00, 0, 0, 0, 0, 0]), 'image/jpeg'), undefined);
    assert.deepEqual(imageSize(gif([2, 3]).subarray(0, 13), 'image/gif'), { width: 2, height: 3 });
  });

  it('shows bounded raster images only, and says why it does not show the others', () => {
    const shown = (mimeType: string, data: string) => shownImage({ type: 'image', mimeType, data });
    assert.deepEqual(shown('image/png', png(100, 50).toString('base64')), { width: 100, height: 50 });
    assert.match(JSON.stringify(shown('image/svg+xml', 'PHN2Zy8+')), /not PNG, JPEG, GIF or WebP/);
    assert.match(JSON.stringify(shown('image/png', 'not base64!')), /not base64/);
    assert.match(JSON.stringify(shown('image/png', png(20_000, 20_000).toString('base64'))), /more than the chat shows/);
    assert.match(JSON.stringify(shown('image/gif', gif([1, 1], [60_000, 60_000]).toString('base64'))), /more than the chat shows/);
    assert.match(JSON.stringify(shown('image/png', 'A'.repeat(6 * 1024 * 1024))), /larger than 4 MB/);
  });
});
