// Copy on a message or a tool card: what goes to the clipboard, from the chat's own state (the view names an entry,
// never the text). A message gives its Markdown source; a tool card its output: its text, its commands' output, or
// else its raw output. Pure: no `vscode`.
import type { SessionModel } from '../acp/sessionModel';
import type { EntryView } from './protocol';
import { entryView } from './view';

/** Which entry: one of the session's, or one kept above it (an earlier session, a transcript). */
export interface EntryRef {
  readonly entryId: number;
  readonly earlier?: boolean;
}

/** The text Copy puts on the clipboard for `ref`, or undefined when there is no such entry or nothing to copy. */
export function copyText(
  ref: EntryRef,
  earlier: readonly EntryView[],
  session: { readonly model: SessionModel; readonly cwd: string } | undefined,
): string | undefined {
  const view = ref.earlier ? earlier.find((e) => e.id === ref.entryId) : liveView(ref.entryId, session);
  if (!view) return undefined;
  const text = (() => {
    switch (view.kind) {
      case 'message':
        return view.text;
      case 'compaction':
        return view.summary;
      case 'tool': {
        const parts = [...view.content, ...view.terminals.map((t) => t.output)].filter((p) => p.trim() !== '');
        return parts.length > 0 ? parts.join('\n\n') : (view.rawOutput ?? '');
      }
    }
  })();
  return text.trim() === '' ? undefined : text;
}

function liveView(entryId: number, session: { readonly model: SessionModel; readonly cwd: string } | undefined): EntryView | undefined {
  const entry = session?.model.entries.find((e) => e.id === entryId);
  return entry && session ? entryView(entry, session.cwd, session.model.terminals) : undefined;
}
