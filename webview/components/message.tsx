// A message of the conversation: the user's (plain text), the agent's (markdown), or a thought (folded).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ImageView, MessageView } from '../../src/chat/protocol';
import { useImage } from '../images';
import { openImage } from '../intents';
import { t } from '../l10n';
import { renderMarkdown } from '../markdown';
import { memo } from '../memo';
import { markdownBlocks } from '../state';
import { Chip } from './chip';

/**
 * One block of markdown; a block that did not change is not rendered again. Its HTML is written into the element and
 * not kept: as a prop it stayed in memory beside the elements made of it, for every block of a long chat.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text, whole = false }: { text: string; whole?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (ref.current) ref.current.innerHTML = renderMarkdown(text);
  }, [text]);
  return <div class={whole ? 'markdown markdown-block' : 'markdown-block'} ref={ref} />;
});

/** Markdown, in blocks once it is long (see markdownBlocks); a short text is one element, not a block in a box. */
export function Markdown({ text }: { text: string }) {
  const blocks = markdownBlocks(text);
  if (blocks.length === 1) return <MarkdownBlock text={text} whole />;
  return (
    <div class="markdown">
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
}

/**
 * A user message opened for editing, in place: Enter resends it, Shift+Enter adds a line, Escape cancels. What is
 * typed is the box's own (only the box renders as it changes).
 */
function EditBox({ id, text: opened, send, cancel }: { id: number } & Editing) {
  const [text, setText] = useState(opened);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    box.current?.focus();
    box.current?.setSelectionRange(text.length, text.length);
  }, []);
  return (
    <div class="edit-message">
      <textarea
        ref={box}
        class="edit-box"
        aria-label={t('Edit your message')}
        aria-describedby={`edit-hint-${id}`}
        value={text}
        rows={Math.min(10, text.split('\n').length + 1)}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send(text);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            cancel();
          }
        }}
      />
      <p id={`edit-hint-${id}`} class="quiet">
        {t('Enter resends it, after the files go back to how they were before it; Escape cancels.')}
      </p>
    </div>
  );
}

/**
 * An image of the agent's (or an image file it linked to), shown at most as wide as the chat; a click (or Enter) opens
 * it full size in an editor. A linked file the host would not show says why.
 */
function ChatImage({ entryId, image }: { entryId: number; image: ImageView }) {
  const answer = useImage(entryId, image.index);
  const sized = 'width' in image ? image : undefined;
  const name = sized
    ? t('Image {0} ({1}×{2})', image.index + 1, sized.width, sized.height)
    : t('Image {0}: {1}', image.index + 1, 'file' in image ? image.file : '');
  if (answer && 'refused' in answer)
    return (
      <span class="chip image-refused">
        <span class="codicon codicon-file-media" aria-hidden="true" />
        {`${name}, ${answer.refused}`}
      </span>
    );
  return (
    <button
      type="button"
      class="image-button"
      aria-label={t('Open {0} Full Size', name)}
      title={t('Open full size')}
      onClick={() => openImage(entryId, image.index)}
    >
      {answer ? (
        <img src={answer.src} alt={name} {...(sized ? { width: sized.width, height: sized.height } : {})} />
      ) : (
        <span class="image-placeholder" style={{ aspectRatio: sized ? `${sized.width} / ${sized.height}` : '4 / 3' }} />
      )}
    </button>
  );
}

/** How a message sent into a running turn went, in the user's words. */
const STEER_WORDS: Record<NonNullable<MessageView['steer']>, () => string> = {
  sending: () => t('Sending into the running turn…'),
  injected: () => t('Added to the running turn'),
  startedNewTurn: () => t('Started a new turn'),
  failed: () => t('Not added to the turn'),
};

/** A message open for editing in place, with what its box does; its Conversation keeps which are open. */
export interface Editing {
  /** The message's text when it was opened: what the box starts with. */
  readonly text: string;
  send(text: string): void;
  cancel(): void;
}

/**
 * A user message that `restorable` gets Restore Checkpoint: the host has the files as they were before it.
 *
 * It keeps no state and its buttons no handlers: a long chat has thousands of messages, and a hook or a closure each
 * was megabytes. Its buttons say what they do (`data-act`) and the conversation acts on their clicks
 * (`entryActions.ts`), from the message's id on the article.
 */
export const Message = memo(function Message({
  entry,
  restorable,
  forkable,
  earlier = false,
  editable = false,
  editing,
}: {
  entry: MessageView;
  restorable?: boolean;
  forkable?: boolean;
  /** A message kept above the session (an earlier session's, a transcript's). */
  earlier?: boolean;
  /** Edit and Resend is offered (the user's own message in this session, while no turn runs). */
  editable?: boolean;
  /** This message is open for editing. */
  editing?: Editing;
}) {
  if (entry.text === '' && entry.chips.length === 0 && !entry.images?.length) return null;
  if (entry.role === 'thought') {
    const words = entry.text.trim().split(/\s+/).length;
    return (
      <details class="message thought">
        <summary>
          <span class="codicon codicon-lightbulb" aria-hidden="true" />
          {t('Thought')} <span class="quiet">{words === 1 ? t('(1 word)') : t('({0} words)', words)}</span>
        </summary>
        <Markdown text={entry.text} />
      </details>
    );
  }
  const user = entry.role === 'user';
  const role = user ? t('You') : t('Agent');
  return (
    // An article, not a region: a conversation of many messages would be many landmarks of the same two names.
    // A user message takes the focus when Alt+Up/Alt+Down or the outline jumps to it (not a Tab stop).
    <article
      class={user ? 'message user' : 'message agent'}
      aria-label={role}
      data-entry={entry.id}
      {...(earlier ? { 'data-earlier': '' } : {})}
      {...(user ? { tabIndex: -1 } : {})}
    >
      {/* Who wrote it, in its head's ::before (the article says it to screen readers): no element of its own. */}
      <div class="message-head" data-role={role}>
        <button
          type="button"
          class="icon-button message-action codicon codicon-copy"
          title={t('Copy the message as Markdown')}
          aria-label={user ? t('Copy Your Message') : t("Copy the Agent's Message")}
          data-act="copy"
        />
        {user && editable && !editing && (
          <button
            type="button"
            class="icon-button message-action codicon codicon-edit"
            title={t('Edit this message and send it again, from the files as they were before it')}
            aria-label={t('Edit Message')}
            data-act="edit"
          />
        )}
        {user && forkable && (
          <button
            type="button"
            class="icon-button message-action codicon codicon-repo-forked"
            title={t("Fork: a new chat from this message, with the agent's copy of this conversation")}
            aria-label={t('Fork from Here')}
            data-act="fork"
          />
        )}
        {user && restorable && (
          <button
            type="button"
            class="icon-button message-action codicon codicon-discard"
            title={t('Restore all files to how they were before this message')}
            aria-label={t('Restore Checkpoint')}
            data-act="restore"
          />
        )}
      </div>
      {user && editing ? <EditBox id={entry.id} {...editing} /> : user ? <div class="text plain">{entry.text}</div> : <Markdown text={entry.text} />}
      {!earlier && entry.images && entry.images.length > 0 && (
        <div class="images">
          {entry.images.map((image) => (
            <ChatImage key={image.index} entryId={entry.id} image={image} />
          ))}
        </div>
      )}
      {entry.steer && (
        <p class={`steer ${entry.steer}`} role="status">
          {STEER_WORDS[entry.steer]()}
        </p>
      )}
      {entry.chips.length > 0 && entry.byAgent && <p class="recorded">{t('Links as the agent recorded this message')}</p>}
      {entry.chips.length > 0 && (
        <div class="chips" role="list" aria-label={entry.byAgent ? t('Links the agent recorded') : t('Attachments')}>
          {entry.chips.map((chip, i) => (
            <Chip key={i} kind={chip.kind} label={chip.label} />
          ))}
        </div>
      )}
    </article>
  );
});
