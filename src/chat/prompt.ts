// The prompt a message becomes: its text, then each attachment as the agent accepts it. Pure: no `vscode`.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as S from '../acp/schema.gen';
import type { AttachmentView } from './protocol';
import type { PromptAccepts } from './view';

/** Something attached to the message being written. The host keeps it; the view shows its chip. */
export type Attachment =
  | { readonly id: string; readonly kind: 'file'; readonly path: string; readonly label: string }
  | {
      readonly id: string;
      readonly kind: 'selection';
      readonly path: string;
      readonly label: string;
      readonly text: string;
      /** 1-based, inclusive. */
      readonly startLine: number;
      readonly endLine: number;
      readonly languageId: string;
    }
  | { readonly id: string; readonly kind: 'image'; readonly label: string; readonly mimeType: string; readonly data: string };

/** An attachment before the panel gave it an id. */
export type NewAttachment = Attachment extends infer A ? (A extends Attachment ? Omit<A, 'id'> : never) : never;

export function attachmentView(a: Attachment): AttachmentView {
  return { id: a.id, kind: a.kind, label: a.label, detail: a.kind === 'image' ? a.mimeType : a.path };
}

/**
 * The content blocks of a message. `fileText` has the current text of each attached file (the editor's buffer,
 * unsaved edits included), or undefined when it is not text: such a file is only linked.
 */
export function buildPrompt(
  text: string,
  attachments: readonly Attachment[],
  fileText: ReadonlyMap<string, string | undefined>,
  accepts: PromptAccepts,
): S.ContentBlock[] {
  const blocks: S.ContentBlock[] = [];
  if (text.trim() !== '') blocks.push({ type: 'text', text });
  for (const a of attachments) {
    switch (a.kind) {
      case 'file': {
        const uri = pathToFileURL(a.path).href;
        const content = fileText.get(a.path);
        if (accepts.embeddedContext && content !== undefined) blocks.push({ type: 'resource', resource: { uri, text: content } });
        else blocks.push({ type: 'resource_link', uri, name: basename(a.path) });
        break;
      }
      case 'selection': {
        const uri = `${pathToFileURL(a.path).href}#L${a.startLine}-L${a.endLine}`;
        if (accepts.embeddedContext) {
          blocks.push({ type: 'resource', resource: { uri, text: a.text } });
        } else {
          // Without embedded context the agent gets the selection as text, with where it comes from.
          const fence = '`'.repeat(Math.max(3, longestBacktickRun(a.text) + 1));
          blocks.push({ type: 'text', text: `\n${a.label}:\n${fence}${a.languageId}\n${a.text}\n${fence}\n` });
          blocks.push({ type: 'resource_link', uri: pathToFileURL(a.path).href, name: basename(a.path) });
        }
        break;
      }
      case 'image':
        if (accepts.image) blocks.push({ type: 'image', mimeType: a.mimeType, data: a.data });
        break;
    }
  }
  return blocks;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
