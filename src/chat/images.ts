// Which of an agent's images the chat shows: PNG, JPEG, GIF or WebP (never SVG), valid base64, bounded in bytes and
// in pixels (read from the header, see imageSize.ts). An image is an `image` block, or a `resource_link` to an image
// file on this computer (by its type, or its name); one sequence numbers both, in the message's order. The page gets
// an image once, on request (not in every update of its message), as a `data:` URL its CSP allows for images only.
// Pure: no `vscode`, no disk (a linked file is read by linkedImages.ts).
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
type LinkBlock = Extract<S.ContentBlock, { type: 'resource_link' }>;
export type ShownImage = ImageSize | { readonly refused: string };

/** An image of an agent's message: its data, or a link to an image file on this computer. */
export type ImageSource =
  | { readonly kind: 'data'; readonly block: ImageBlock }
  | { readonly kind: 'link'; readonly uri: string; readonly mimeType: (typeof IMAGE_TYPES)[number] };

const EXTENSION_TYPES: Readonly<Record<string, (typeof IMAGE_TYPES)[number]>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The image type of a link to a file on this computer (its `mimeType`, else its name), or undefined. */
export function linkedImageType(link: LinkBlock): (typeof IMAGE_TYPES)[number] | undefined {
  if (!/^file:/i.test(link.uri)) return undefined;
  const declared = (IMAGE_TYPES as readonly string[]).find((t) => t === link.mimeType);
  if (declared) return declared as (typeof IMAGE_TYPES)[number];
  if (link.mimeType) return undefined; // another type, said outright
  const extension = /\.([a-z0-9]+)$/i.exec(link.uri.split(/[?#]/)[0]!)?.[1]?.toLowerCase();
  return extension ? EXTENSION_TYPES[extension] : undefined;
}

/** Image files of one message shown at most; the links past them stay links. */
export const MAX_LINKED_IMAGES = 20;

/**
 * The images of a message's content, in order: what `index` counts in `loadImage` and `openImage` (and view.ts
 * numbers alike): its image blocks, and its first MAX_LINKED_IMAGES links to image files.
 */
export function imageSources(content: readonly S.ContentBlock[]): ImageSource[] {
  const sources: ImageSource[] = [];
  let links = 0;
  for (const block of content) {
    if (block.type === 'image') sources.push({ kind: 'data', block });
    else if (block.type === 'resource_link' && links < MAX_LINKED_IMAGES) {
      const mimeType = linkedImageType(block);
      if (mimeType) {
        links++;
        sources.push({ kind: 'link', uri: block.uri, mimeType });
      }
    }
  }
  return sources;
}

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
  if (bytes > MAX_SHOWN_IMAGE_BYTES) return tooLarge();
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { refused: 'not shown: its data is not base64' };
  return checkHead(Buffer.from(data.slice(0, HEAD_BASE64_CHARS), 'base64'), type);
}

/** Whether a linked image file's bytes are shown, with its size, or why not. */
export function shownFile(bytes: Uint8Array, type: (typeof IMAGE_TYPES)[number]): ShownImage {
  return bytes.length > MAX_SHOWN_IMAGE_BYTES ? tooLarge() : checkHead(bytes, type);
}

/** The most bytes of a linked image file read. */
export const MAX_LINKED_IMAGE_BYTES = MAX_SHOWN_IMAGE_BYTES;

function tooLarge(): ShownImage {
  return { refused: `not shown: larger than ${MAX_SHOWN_IMAGE_BYTES / 1024 / 1024} MB` };
}

function checkHead(head: Uint8Array, type: string): ShownImage {
  const size = imageSize(head, type);
  if (!size || size.width === 0 || size.height === 0) return { refused: `not shown: not a ${type.slice(6).toUpperCase()} image` };
  if (size.width > MAX_SIDE || size.height > MAX_SIDE || size.width * size.height > MAX_PIXELS)
    return { refused: `not shown: ${size.width}×${size.height} pixels is more than the chat shows` };
  return size;
}

/** The image as the page's `src`. */
export function dataUrl(mimeType: string, base64: string): string {
  return `data:${mimeType};base64,${base64}`;
}
