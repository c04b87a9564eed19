// What the checkpoints ask before they move files, under the turn it is about: files the user changed since the
// agent did (overwrite them, skip them, or cancel), or the files a Restore Checkpoint would change. Then, after a
// restore, the line that offers to take it back. Nothing moves until the user answers here.
import type { CheckpointQuestion as Question, CheckpointsView } from '../../src/chat/protocol';
import { answerCheckpoint, redoRestore } from '../intents';
import { t } from '../l10n';

function overwriteLabel(question: Question): string {
  if (question.transition === 'undo') return t('Undo Anyway');
  if (question.transition === 'redo') return t('Redo Anyway');
  return t('Restore Anyway');
}

export function CheckpointQuestion({ question }: { question: Question }) {
  const count = question.files.length + question.more;
  const heading =
    question.kind === 'restore'
      ? count === 1
        ? t('Restore 1 file to how it was before this message?')
        : t('Restore {0} files to how they were before this message?', count)
      : question.kind === 'delete'
        ? count === 1
          ? t('This file did not exist before. Delete it?')
          : t('These {0} files did not exist before. Delete them?', count)
        : count === 1
          ? t('This file was changed after the agent changed it:')
          : t('{0} files were changed after the agent changed them:', count);
  return (
    <section class="checkpoint-question" role="group" aria-label={heading}>
      <p role="alert">
        <span
          class={`codicon codicon-${question.kind === 'restore' ? 'discard' : question.kind === 'delete' ? 'trash' : 'warning'}`}
          aria-hidden="true"
        />
        {heading}
      </p>
      <ul class="checkpoint-files">
        {question.files.map((file) => (
          <li key={file}>{file}</li>
        ))}
        {question.more > 0 && <li class="quiet">{t('…and {0} more', question.more)}</li>}
      </ul>
      {question.kind === 'conflicts' && (
        <p class="quiet">{t('Skip These Files keeps your version of them. Overwritten text stays in each editor’s Undo.')}</p>
      )}
      <div class="actions">
        {question.kind === 'restore' ? (
          <button type="button" class="primary" onClick={() => answerCheckpoint(question.id, 'restore')}>
            {t('Restore')}
          </button>
        ) : question.kind === 'delete' ? (
          <>
            <button type="button" class="primary" onClick={() => answerCheckpoint(question.id, 'skip')}>
              {t('Keep These Files')}
            </button>
            <button type="button" class="secondary" onClick={() => answerCheckpoint(question.id, 'overwrite')}>
              {t('Delete')}
            </button>
          </>
        ) : (
          <>
            <button type="button" class="primary" onClick={() => answerCheckpoint(question.id, 'skip')}>
              {t('Skip These Files')}
            </button>
            <button type="button" class="secondary" onClick={() => answerCheckpoint(question.id, 'overwrite')}>
              {overwriteLabel(question)}
            </button>
          </>
        )}
        <button type="button" class="secondary" onClick={() => answerCheckpoint(question.id, 'cancel')}>
          {t('Cancel')}
        </button>
      </div>
    </section>
  );
}

export function Restored({ restored }: { restored: NonNullable<CheckpointsView['restored']> }) {
  return (
    <p class="checkpoint-restored" role="status">
      <span class="codicon codicon-discard" aria-hidden="true" />
      {restored.files === 1
        ? t('Restored 1 file to how it was before this message.')
        : t('Restored {0} files to how they were before this message.', restored.files)}
      <button type="button" class="secondary" onClick={() => redoRestore()}>
        <span class="codicon codicon-redo" aria-hidden="true" />
        {t('Redo Changes')}
      </button>
    </p>
  );
}
