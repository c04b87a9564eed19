// The changes card under a turn: the files the turn changed, however they were changed, with Review, Undo and Keep.
// The host owns the changes and their state; the card shows them and posts what the user asks.
import { useState } from 'preact/hooks';
import type { ChangesView, FileChangeView } from '../../src/chat/protocol';
import { keepChanges, openChange, redoChanges, reviewChanges, sendFeedback, undoChanges } from '../intents';
import { t } from '../l10n';
import { memo } from '../memo';
import { filesChanged, lineCounts } from '../state';

function statusLabel(file: FileChangeView): string {
  switch (file.status) {
    case 'M':
      return t('Modified');
    case 'A':
      return t('Added');
    case 'D':
      return t('Deleted');
    case 'R':
      return file.oldPath === undefined ? t('Renamed') : t('Renamed from {0}', file.oldPath);
  }
}

// eslint-disable-next-line max-lines-per-function -- the card's render: each folder's files and their actions
export const Changes = memo(function Changes({ card }: { card: ChangesView }) {
  // A kept card is one line until the user opens it again; the host's state decides the rest.
  const [expanded, setExpanded] = useState(false);
  const kept = card.state === 'kept';
  const open = !kept || expanded;
  const { added, removed } = lineCounts(card.files);
  const summary = filesChanged(card.files.length);
  const counts = (
    <>
      <span class="diff-added" aria-label={t('{0} lines added', added)}>
        +{added}
      </span>
      <span class="diff-removed" aria-label={t('{0} lines removed', removed)}>
        −{removed}
      </span>
    </>
  );
  const feedback = card.comments > 0 && (
    <button
      type="button"
      class="secondary"
      title={t('Send the comments written on these changes to the agent')}
      onClick={() => sendFeedback(card.turn)}
    >
      <span class="codicon codicon-comment" aria-hidden="true" />
      {card.comments === 1 ? t('Send Feedback (1 comment)') : t('Send Feedback ({0} comments)', card.comments)}
    </button>
  );
  return (
    <section class={`changes ${card.state}`} role="region" aria-label={t('Changes of this turn')}>
      <div class="changes-head">
        {kept ? (
          <button type="button" class="changes-toggle" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
            <span class={`codicon codicon-chevron-${expanded ? 'down' : 'right'}`} aria-hidden="true" />
            {t('{0} · kept', summary)}
          </button>
        ) : (
          <span class="changes-title">
            <span class="codicon codicon-diff-multiple" aria-hidden="true" />
            {summary}
          </span>
        )}
        {counts}
        {kept && !expanded && feedback}
      </div>
      {open && (
        <ul class="changes-files" aria-label={summary}>
          {card.files.map((file, index) => (
            <FileRow key={`${index}:${file.path}`} file={file} onOpen={() => openChange(card.turn, index)} />
          ))}
        </ul>
      )}
      {card.note && (
        <p class="changes-note">
          <span class="codicon codicon-info" aria-hidden="true" />
          {card.note}
        </p>
      )}
      {card.state === 'undone' && (
        <p class="changes-undone" role="status">
          <span class="codicon codicon-discard" aria-hidden="true" />
          {t('Changes undone')}
        </p>
      )}
      {open && (
        <div class="actions">
          {card.state === 'undone' ? (
            <button type="button" class="secondary" onClick={() => redoChanges(card.turn)}>
              <span class="codicon codicon-redo" aria-hidden="true" />
              {t('Redo Changes')}
            </button>
          ) : (
            <>
              <button
                type="button"
                class="secondary"
                title={t('Open the diff of every file this turn changed')}
                onClick={() => reviewChanges(card.turn)}
              >
                <span class="codicon codicon-diff-multiple" aria-hidden="true" />
                {t('Review Changes')}
              </button>
              <button
                type="button"
                class="secondary"
                title={t('Put every file back to how it was before this turn')}
                onClick={() => undoChanges(card.turn)}
              >
                <span class="codicon codicon-discard" aria-hidden="true" />
                {t('Undo Changes')}
              </button>
              {!kept && (
                <button type="button" class="primary" title={t('Keep these changes')} onClick={() => keepChanges(card.turn)}>
                  <span class="codicon codicon-check" aria-hidden="true" />
                  {t('Keep')}
                </button>
              )}
            </>
          )}
          {feedback}
        </div>
      )}
    </section>
  );
});

function FileRow({ file, onOpen }: { file: FileChangeView; onOpen: () => void }) {
  const label = statusLabel(file);
  return (
    <li class="change">
      <span class={`change-status ${file.status}`} role="img" aria-label={label} title={label}>
        {file.status}
      </span>
      <button type="button" class="link change-path" title={t('Open Diff of {0}', file.path)} onClick={onOpen}>
        {file.path}
      </button>
      {file.oldPath !== undefined && (
        <span class="change-from quiet" aria-hidden="true">
          {t('from {0}', file.oldPath)}
        </span>
      )}
      {/* A rename that left the lines alone (or a binary file) has no counts worth showing. */}
      {file.added + file.removed > 0 && (
        <>
          <span class="diff-added" aria-label={t('{0} lines added', file.added)}>
            +{file.added}
          </span>
          <span class="diff-removed" aria-label={t('{0} lines removed', file.removed)}>
            −{file.removed}
          </span>
        </>
      )}
    </li>
  );
}
