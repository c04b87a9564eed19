// A message of the conversation: the user's (plain text), the agent's (markdown), or a thought (folded).
import { useMemo } from 'preact/hooks';
import type { MessageView } from '../../src/chat/protocol';
import { copyEntry, forkFrom, restoreCheckpoint } from '../intents';
import { t } from '../l10n';
import { renderMarkdown } from '../markdown';
import { memo } from '../memo';
import { markdownBlocks } from '../state';
import { Chip } from './chip';

/** One block of markdown; a block that did not change is not rendered again. */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

export function Markdown({ text }: { text: string }) {
  const blocks = markdownBlocks(text);
  return (
    <div class="markdown">
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
}

/** How a message sent into a running turn went, in the user's words. */
const STEER_WORDS: Record<NonNullable<MessageView['steer']>, () => string> = {
  sending: () => t('Sending into the running turn…'),
  injected: () => t('Added to the running turn'),
  startedNewTurn: () => t('Started a new turn'),
  failed: () => t('Not added to the turn'),
};

/** A user message that `restorable` gets Restore Checkpoint: the host has the files as they were before it. */
export const Message = memo(function Message({
  entry,
  restorable,
  forkable,
  earlier = false,
}: {
  entry: MessageView;
  restorable?: boolean;
  forkable?: boolean;
  /** A message kept above the session (an earlier session's, a transcript's). */
  earlier?: boolean;
}) {
  if (entry.text === '' && entry.chips.length === 0) return null;
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
  return (
    // An article, not a region: a conversation of many messages would be many landmarks of the same two names.
    // A user message takes the focus when Alt+Up/Alt+Down or the outline jumps to it (not a Tab stop).
    <article class={`message ${entry.role}`} aria-label={user ? t('You') : t('Agent')} {...(user ? { tabIndex: -1 } : {})}>
      <div class="message-head">
        <div class="role" aria-hidden="true">
          {user ? t('You') : t('Agent')}
        </div>
        <div class="message-actions">
          <button
            type="button"
            class="icon-button"
            title={t('Copy the message as Markdown')}
            aria-label={user ? t('Copy Your Message') : t("Copy the Agent's Message")}
            onClick={() => copyEntry(entry.id, earlier)}
          >
            <span class="codicon codicon-copy" aria-hidden="true" />
          </button>
          {user && forkable && (
            <button
              type="button"
              class="icon-button"
              title={t("Fork: a new chat from this message, with the agent's copy of this conversation")}
              aria-label={t('Fork from Here')}
              onClick={() => forkFrom(entry.id)}
            >
              <span class="codicon codicon-repo-forked" aria-hidden="true" />
            </button>
          )}
          {user && restorable && (
            <button
              type="button"
              class="icon-button"
              title={t('Restore all files to how they were before this message')}
              aria-label={t('Restore Checkpoint')}
              onClick={() => restoreCheckpoint(entry.id)}
            >
              <span class="codicon codicon-discard" aria-hidden="true" />
            </button>
          )}
        </div>
      </div>
      {user ? <div class="text plain">{entry.text}</div> : <Markdown text={entry.text} />}
      {entry.steer && (
        <p class={`steer ${entry.steer}`} role="status">
          {STEER_WORDS[entry.steer]()}
        </p>
      )}
      {entry.chips.length > 0 && (
        <div class="chips" role="list" aria-label={t('Attachments')}>
          {entry.chips.map((chip, i) => (
            <Chip key={i} kind={chip.kind} label={chip.label} />
          ))}
        </div>
      )}
    </article>
  );
});
