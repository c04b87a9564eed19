// The messages written while a turn runs, under it: each marked "Queued", with Edit, Move Up, Move Down and Remove;
// and, when the last turn did not end with end_turn, the question whether to send them.
import type { QueueView } from '../../src/chat/protocol';
import { changeQueued, sendQueued } from '../intents';
import { t } from '../l10n';

const PREVIEW_CHARS = 300;

export function Queue({ queue, busy }: { queue: QueueView; busy: boolean }) {
  if (queue.items.length === 0) return null;
  const last = queue.items.length - 1;
  return (
    <section class="queue" aria-label={t('Queued messages')}>
      <ol>
        {queue.items.map((item, i) => (
          <li key={item.id} class="queued">
            <span class="queued-label">{item.next ? t('Next, once the turn has stopped') : t('Queued')}</span>
            <span class="queued-text">{item.text.length > PREVIEW_CHARS ? `${item.text.slice(0, PREVIEW_CHARS)}…` : item.text}</span>
            {item.attachments > 0 && (
              <span class="quiet">{item.attachments === 1 ? t('(1 attachment)') : t('({0} attachments)', item.attachments)}</span>
            )}
            <span class="queued-actions">
              <QueueButton icon="edit" label={t('Edit queued message')} title={t('Edit')} onClick={() => changeQueued(item.id, 'edit')} />
              <QueueButton icon="arrow-up" label={t('Move up')} disabled={i === 0} onClick={() => changeQueued(item.id, 'up')} />
              <QueueButton icon="arrow-down" label={t('Move down')} disabled={i === last} onClick={() => changeQueued(item.id, 'down')} />
              <QueueButton icon="close" label={t('Remove queued message')} title={t('Remove')} onClick={() => changeQueued(item.id, 'remove')} />
            </span>
          </li>
        ))}
      </ol>
      {queue.held && !busy && (
        <div class="queue-held" role="group" aria-label={t('Send the queued messages?')}>
          <span>{t('The last turn did not finish. Send the queued messages?')}</span>
          <button type="button" class="primary" onClick={() => sendQueued()}>
            {t('Send')}
          </button>
        </div>
      )}
    </section>
  );
}

function QueueButton(props: { icon: string; label: string; title?: string; disabled?: boolean; onClick: () => void }) {
  return (
    <button
      type="button"
      class="icon-button"
      aria-label={props.label}
      title={props.title ?? props.label}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      <span class={`codicon codicon-${props.icon}`} aria-hidden="true" />
    </button>
  );
}
