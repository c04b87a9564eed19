// The prompt a message becomes: its text, then each attachment as the agent accepts it. Pure: no `vscode`.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as S from '../acp/schema.gen';
import type { AttachmentView } from '../chat/protocol';
import type { PromptAccepts } from '../acp/capabilities';

/** What the user must agree to before it is sent, and what the chip says of its size. */
interface Sized {
  /** Bytes it adds to the message, when known. */
  readonly size?: number;
  /** Past the bound: it waits for Attach Anyway. */
  readonly confirm?: boolean;
  /** The page's name for an image it pasted or dropped. */
  readonly token?: string;
}

/** Something attached to the message being written. The host keeps it; the view shows its chip. */
export type Attachment = Sized &
  (
    | { readonly id: string; readonly kind: 'file'; readonly path: string; readonly label: string }
    /** A folder: linked, with a listing of what is in it. */
    | { readonly id: string; readonly kind: 'folder'; readonly path: string; readonly label: string; readonly listing: string }
    /**
     * What VS Code knows that the agent does not (the problems, the terminal's last command, the uncommitted changes),
     * as text; `uri` names it when it is embedded, `link` is a file it is about.
     */
    | {
        readonly id: string;
        readonly kind: 'problems' | 'terminal' | 'changes' | 'commit' | 'chat' | 'url';
        readonly label: string;
        readonly text: string;
        readonly uri: string;
        readonly mimeType: string;
        readonly link?: string;
      }
    | {
        readonly id: string;
        /** A selection in an editor, or a symbol (its file and range). */
        readonly kind: 'selection' | 'symbol';
        readonly path: string;
        readonly label: string;
        readonly text: string;
        /** 1-based, inclusive. */
        readonly startLine: number;
        readonly endLine: number;
        readonly languageId: string;
      }
    | { readonly id: string; readonly kind: 'image'; readonly label: string; readonly mimeType: string; readonly data: string }
  );

/** An attachment before the panel gave it an id. */
export type NewAttachment = Attachment extends infer A ? (A extends Attachment ? Omit<A, 'id'> : never) : never;

export function attachmentView(a: Attachment): AttachmentView {
  const detail = a.kind === 'image' ? a.mimeType : 'path' in a ? a.path : a.link;
  return {
    id: a.id,
    kind: a.kind,
    label: a.label,
    ...(detail !== undefined ? { detail } : {}),
    ...(a.size !== undefined ? { size: a.size } : {}),
    ...(a.confirm ? { confirm: true } : {}),
    ...(a.token !== undefined ? { token: a.token } : {}),
  };
}

/** The text an attachment adds to a message, in bytes (a file's is read when it is sent). */
export function textSize(text: string): number {
  return Buffer.byteLength(text);
}

/**
 * The content blocks of a message. `fileText` has the current text of each attached file (the editor's buffer,
 * unsaved edits included), or undefined when it is not text: such a file is only linked.
 */
export function buildPrompt(
  text: string,
  attachments: readonly Attachment[],
  fileText: ReadonlyMap<string, string | undefined>,
  accepts: Pick<PromptAccepts, 'image' | 'embeddedContext'>,
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
      case 'folder': {
        const uri = pathToFileURL(a.path).href.replace(/\/?$/, '/');
        if (accepts.embeddedContext) blocks.push({ type: 'resource', resource: { uri, mimeType: 'text/plain', text: a.listing } });
        else {
          blocks.push({ type: 'text', text: quoted(`${a.label}`, 'text', a.listing) });
          blocks.push({ type: 'resource_link', uri, name: `${basename(a.path)}/` });
        }
        break;
      }
      case 'problems':
      case 'terminal':
      case 'changes':
      case 'commit':
      case 'chat':
      case 'url':
        if (accepts.embeddedContext) blocks.push({ type: 'resource', resource: { uri: a.uri, mimeType: a.mimeType, text: a.text } });
        else {
          blocks.push({ type: 'text', text: quoted(a.label, FENCE_LANGUAGES[a.mimeType] ?? 'text', a.text) });
          if (a.link) blocks.push({ type: 'resource_link', uri: a.link, name: basename(new URL(a.link).pathname) });
        }
        break;
      case 'selection':
      case 'symbol': {
        const uri = `${pathToFileURL(a.path).href}#L${a.startLine}-L${a.endLine}`;
        if (accepts.embeddedContext) {
          blocks.push({ type: 'resource', resource: { uri, text: a.text } });
        } else {
          // Without embedded context the agent gets the selection as text, with where it comes from.
          blocks.push({ type: 'text', text: quoted(a.label, a.languageId, a.text) });
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

/** `text` in a fence no line of it can close, under its label. */
/** The fence's language for a text attachment's type, when it is not plain text. */
const FENCE_LANGUAGES: Readonly<Record<string, string>> = { 'text/x-diff': 'diff', 'text/markdown': 'markdown' };

function quoted(label: string, language: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `\n${label}:\n${fence}${language}\n${text}\n${fence}\n`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
