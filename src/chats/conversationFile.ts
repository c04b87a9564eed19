// A conversation written out for another session to read (Continue with Another Agent, Edit and Resend): a Markdown
// file in the extension's storage, private to the user, named by time and title; the newest are kept, the rest go.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

const KEPT = 20;

/** Writes `markdown` under `storage`/conversations and answers its path. */
export async function writeConversation(storage: string, title: string, markdown: string): Promise<string> {
  const folder = join(storage, 'conversations');
  await fs.mkdir(folder, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(folder, `${stamp}-${fileName(title)}.md`);
  await fs.writeFile(file, markdown, { encoding: 'utf8', mode: 0o600 });
  const names = (await fs.readdir(folder)).filter((n) => n.endsWith('.md')).sort();
  for (const old of names.slice(0, Math.max(0, names.length - KEPT))) await fs.rm(join(folder, old), { force: true }).catch(() => undefined);
  return file;
}

/** A title as part of a file name: letters, digits and dashes, bounded. */
function fileName(title: string): string {
  return (
    title
      .normalize('NFKD')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'chat'
  );
}
