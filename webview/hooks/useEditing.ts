// Edit and Resend: the user's messages open for editing, kept by the conversation rather than by each message (a
// long chat has thousands of messages, and a state hook each was megabytes of the page's heap; see Message). What is
// typed stays in the open box's own state, so typing renders only the box.
import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import type { EntryView } from '../../src/chat/protocol';
import type { Editing } from '../components/message';
import { resend } from '../intents';
import type { Row } from './useDeferredRows';

export function useEditing(ref: RefObject<HTMLElement | null>, entries: readonly EntryView[], idle: boolean) {
  // Each open message by id, with its text when it was opened: that tells it from another message that came to have
  // its id (a new session's), which is then not open.
  const [open, setOpen] = useState<ReadonlyMap<number, string>>(() => new Map());
  const close = (id: number) =>
    setOpen((now) => {
      const next = new Map(now);
      next.delete(id);
      return next;
    });
  /** Opens one of the user's messages of this session for editing. */
  const start = (entryId: number) => {
    const entry = entries.find((e) => e.id === entryId);
    if (entry?.kind === 'message' && entry.role === 'user') setOpen((now) => new Map(now).set(entryId, entry.text));
  };
  /** The editing of the message on `row`, when it is open. */
  const of = (row: Row): Editing | undefined => {
    const entry = row.entry;
    const opened = row.earlier ? undefined : open.get(entry.id);
    if (opened === undefined || entry.kind !== 'message' || entry.text !== opened) return undefined;
    return {
      text: opened,
      send: (text) => {
        // A turn that started while the box was open: the edit stays until the agent is idle again.
        if (text.trim() === '' || !idle) return;
        resend(entry.id, text);
        close(entry.id);
      },
      cancel: () => {
        close(entry.id);
        // Back to its Edit button, once the message shows it again.
        requestAnimationFrame(() => ref.current?.querySelector<HTMLElement>(`[data-key="${row.key}"] button[data-act="edit"]`)?.focus());
      },
    };
  };
  return { open: start, of };
}
