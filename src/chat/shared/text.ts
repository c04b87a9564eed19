// Words and bounds both sides share: a chip's size, the images a prompt may carry and why one is refused.

/** "12 B", "3.4 KB", "2.1 MB": a chip's size. */
export function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A prompt's images travel as base64; this bounds one (the host checks it again). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The images the chat sends and shows: raster formats only (never SVG, which is a document with scripts). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

import type { Translate } from '../../acp/text';

export type { Translate };

/**
 * Why an image cannot be attached, or undefined when it can: the view checks before it reads the file, the host
 * again. An agent that does not take images gets it as a link to a saved copy (the host's part).
 */
export function imageRefusal(
  t: Translate,
  mimeType: string,
  bytes: number,
  maxBytes: number = MAX_IMAGE_BYTES,
  types: readonly string[] = IMAGE_TYPES,
): string | undefined {
  if (!types.includes(mimeType)) {
    return mimeType
      ? t('Only PNG, JPEG, GIF and WebP images can be attached (this one is {0}).', mimeType)
      : t('Only PNG, JPEG, GIF and WebP images can be attached (this one is of an unknown type).');
  }
  if (bytes > maxBytes)
    return t('The image is {0} MB; images up to {1} MB can be attached.', (bytes / 1024 / 1024).toFixed(1), maxBytes / 1024 / 1024);
  return undefined;
}
