// Edit and Resend: the one user message open for editing, kept by the conversation rather than by each message (a
// long chat has thousands of messages, and a state hook each was megabytes of the page's heap; see Message).
import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import type { EntryView } from '../../src/chat/protocol';
import type { Editing } from '../components/message';
import { resend } from '../intents';
import type { Row } from './useDeferredRows';

export function useEditing(ref: RefObject<HTMLElement | null>, entries: readonly EntryView[], idle: boolean) {
  // The message's text when it was opened tells it from another that came to have its id (a new session's).
  const [editing, setEditing] = useState<{ id: number; opened: string; text: string } | undefined>(undefined);
  /** Opens one of the user's messages of this session for editing. */
  const open = (entryId: number) => {
    const entry = entries.find((e) => e.id === entryId);
    if (entry?.kind === 'message' && entry.role === 'user') setEditing({ id: entryId, opened: entry.text, text: entry.text });
  };
  /** The editing of the message on `row`, when it is the one open. */
  const of = (row: Row): Editing | undefined => {
    const entry = row.entry;
    if (!editing || row.earlier || entry.id !== editing.id || entry.kind !== 'message' || entry.text !== editing.opened) return undefined;
    const { id, text } = editing;
    return {
      text,
      change: (next) => setEditing({ ...editing, text: next }),
      send: () => {
        // A turn that started while the box was open: the edit stays until the agent is idle again.
        if (text.trim() === '' || !idle) return;
        resend(id, text);
        setEditing(undefined);
      },
      cancel: () => {
        setEditing(undefined);
        // Back to its Edit button, once the message shows it again.
        requestAnimationFrame(() => ref.current?.querySelector<HTMLElement>(`[data-key="${row.key}"] button[data-act="edit"]`)?.focus());
      },
    };
  };
  return { open, of };
}
