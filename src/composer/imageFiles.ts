// Images the chat keeps as files in the extension's storage: an agent's image opened full size (VS Code's image
// preview needs a file), and an image pasted for an agent that does not take images (attached as a link to it). Named
// by their content, so the same image is one file; the newest are kept, the rest go. Plain Node.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

const KEPT = 50;
const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Writes the image (base64 `data` of a raster `mimeType`) under `storage`/images and answers its path. */
export async function saveImage(storage: string, mimeType: string, data: string): Promise<string> {
  const extension = EXTENSIONS[mimeType];
  if (!extension) throw new Error(`${mimeType} is not a PNG, JPEG, GIF or WebP image`);
  const folder = join(storage, 'images');
  await fs.mkdir(folder, { recursive: true });
  const bytes = Buffer.from(data, 'base64');
  const file = join(folder, `${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}.${extension}`);
  await fs.writeFile(file, bytes, { mode: 0o600 });
  // Touched now: the oldest by time go past the number kept.
  const now = new Date();
  await fs.utimes(file, now, now);
  const entries = await Promise.all(
    (await fs.readdir(folder)).map(async (name) => ({ name, time: (await fs.stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  entries.sort((a, b) => b.time - a.time);
  for (const old of entries.slice(KEPT)) await fs.rm(join(folder, old.name), { force: true }).catch(() => undefined);
  return file;
}
