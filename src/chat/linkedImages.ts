// An image the agent links to (a `resource_link` to an image file), read for the chat to show: only a regular file
// inside the chat's folders (the workspace's, or its worktree's), at most MAX_LINKED_IMAGE_BYTES, and only when its
// bytes are the raster image its type says (images.ts). Never fetched from the network.
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { checkPath } from '../common/paths';
import { MAX_LINKED_IMAGE_BYTES, shownFile, type ImageSource } from './images';

type LinkedImage = Extract<ImageSource, { kind: 'link' }>;

/** The linked file, when the chat may read it; else why not (a sentence). */
export function linkedImagePath(image: LinkedImage, roots: readonly string[]): { path: string } | { refused: string } {
  let path: string;
  try {
    path = fileURLToPath(image.uri);
  } catch {
    return { refused: 'not shown: the link is not a file on this computer' };
  }
  const verdict = checkPath(path, roots);
  if (verdict.kind !== 'inside') return { refused: "not shown: the file is outside this chat's folders" };
  return { path: verdict.path }; // its real path: what is opened is what was checked
}

/** The linked image's bytes (base64), when it is shown; else why not. */
export async function readLinkedImage(image: LinkedImage, roots: readonly string[]): Promise<{ base64: string } | { refused: string }> {
  const where = linkedImagePath(image, roots);
  if ('refused' in where) return where;
  let file;
  try {
    // A FIFO or a device is never opened (an open of a FIFO waits for a writer); nor one swapped in since (O_NONBLOCK).
    if (!(await stat(where.path)).isFile()) return { refused: 'not shown: not a file' };
    file = await open(where.path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { refused: 'not shown: the file cannot be read' };
  }
  try {
    // Checked on the open file: what is read is what was checked, whatever the path points at meanwhile.
    const stat = await file.stat();
    if (!stat.isFile()) return { refused: 'not shown: not a file' };
    if (stat.size > MAX_LINKED_IMAGE_BYTES) return { refused: `not shown: larger than ${MAX_LINKED_IMAGE_BYTES / 1024 / 1024} MB` };
    const bytes = Buffer.alloc(stat.size);
    const { bytesRead } = await file.read(bytes, 0, stat.size, 0);
    const shown = shownFile(bytes.subarray(0, bytesRead), image.mimeType);
    return 'refused' in shown ? shown : { base64: bytes.subarray(0, bytesRead).toString('base64') };
  } finally {
    await file.close();
  }
}
