// The width and height an image says it has, read from its header without decoding it: PNG (IHDR), GIF (logical
// screen), JPEG (the first start-of-frame marker) and WebP (VP8, VP8L, VP8X). Undefined when the header is not one
// of these or is cut short. Pure: it reads at most the bytes given.

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

export function imageSize(bytes: Uint8Array, mimeType: string): ImageSize | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mimeType) {
    case 'image/png':
      if (b.length < 24 || b.toString('latin1', 1, 4) !== 'PNG' || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
      return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    case 'image/gif':
      return gifSize(b);
    case 'image/jpeg':
      return jpegSize(b);
    case 'image/webp':
      return webpSize(b);
    default:
      return undefined;
  }
}

/** A GIF's logical screen, or its first frame where that is larger (a decoder draws the frame whole). */
function gifSize(b: Buffer): ImageSize | undefined {
  if (b.length < 13 || b.toString('latin1', 0, 3) !== 'GIF') return undefined;
  let width = b.readUInt16LE(6);
  let height = b.readUInt16LE(8);
  let at = 13 + (b[10]! & 0x80 ? 3 * 2 ** ((b[10]! & 0x07) + 1) : 0);
  // Extensions (each a run of sub-blocks) up to the first image descriptor.
  while (at < b.length && b[at] === 0x21) {
    at += 2;
    while (at < b.length && b[at] !== 0) at += b[at]! + 1;
    at++;
  }
  if (b[at] === 0x2c && at + 9 <= b.length) {
    width = Math.max(width, b.readUInt16LE(at + 5));
    height = Math.max(height, b.readUInt16LE(at + 7));
  }
  return { width, height };
}

function jpegSize(b: Buffer): ImageSize | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  // Segment by segment (each step moves forward by its length, so the walk is linear), to a start-of-frame marker.
  for (let at = 2; at + 9 <= b.length;) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    if (length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}

function webpSize(b: Buffer): ImageSize | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  switch (b.toString('latin1', 12, 16)) {
    case 'VP8 ':
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    case 'VP8L': {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    case 'VP8X':
      return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    default:
      return undefined;
  }
}
