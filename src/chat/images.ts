// Which of an agent's images the chat shows: PNG, JPEG, GIF or WebP (never SVG), valid base64, bounded in bytes and
// in pixels (read from the header, see imageSize.ts). The page gets an image once, on request (not in every update
// of its message), as a `data:` URL its CSP allows for images only. Pure: no `vscode`.
import type * as S from '../acp/schema.gen';
import { IMAGE_TYPES } from './shared/text';
import { imageSize, type ImageSize } from './imageSize';

/** The most bytes of one image the chat shows. */
const MAX_SHOWN_IMAGE_BYTES = 4 * 1024 * 1024;
/** The most pixels, and the longest side. */
const MAX_PIXELS = 40_000_000;
const MAX_SIDE = 16_384;
/** The head of the data decoded to read the size (a JPEG's frame header may follow 64 KB of EXIF). */
const HEAD_BASE64_CHARS = 96 * 1024;

type ImageBlock = Extract<S.ContentBlock, { type: 'image' }>;
export type ShownImage = ImageSize | { readonly refused: string };

const checked = new WeakMap<ImageBlock, ShownImage>();

/** Whether `block` is shown, with its size, or why not (checked once per block). */
export function shownImage(block: ImageBlock): ShownImage {
  const known = checked.get(block);
  if (known) return known;
  const result = check(block);
  checked.set(block, result);
  return result;
}

function check(block: ImageBlock): ShownImage {
  const type = block.mimeType;
  if (!(IMAGE_TYPES as readonly string[]).includes(type)) return { refused: `not shown: ${type || 'an unknown type'} is not PNG, JPEG, GIF or WebP` };
  const data = block.data;
  const bytes = Math.floor((data.length * 3) / 4);
  if (bytes > MAX_SHOWN_IMAGE_BYTES) return { refused: `not shown: larger than ${MAX_SHOWN_IMAGE_BYTES / 1024 / 1024} MB` };
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { refused: 'not shown: its data is not base64' };
  const size = imageSize(Buffer.from(data.slice(0, HEAD_BASE64_CHARS), 'base64'), type);
  if (!size || size.width === 0 || size.height === 0) return { refused: `not shown: not a ${type.slice(6).toUpperCase()} image` };
  if (size.width > MAX_SIDE || size.height > MAX_SIDE || size.width * size.height > MAX_PIXELS)
    return { refused: `not shown: ${size.width}×${size.height} pixels is more than the chat shows` };
  return size;
}

/** The `index`th image of a message's content. */
export function imageAt(content: readonly S.ContentBlock[], index: number): ImageBlock | undefined {
  return content.filter((b): b is ImageBlock => b.type === 'image')[index];
}

/** The image as the page's `src`. */
export function dataUrl(block: ImageBlock): string {
  return `data:${block.mimeType};base64,${block.data}`;
}
