// A context compaction of the agent's, where it happened in the conversation: how it went, the tokens before and
// after, and the agent's summary folded, rendered as the agent's messages are.
import type { CompactionView } from '../../src/chat/protocol';
import { t } from '../l10n';
import { memo } from '../memo';
import { Markdown } from './message';

function heading(status: string): { text: string; icon: string } {
  switch (status) {
    case 'completed':
      return { text: t('Context compacted'), icon: 'fold' };
    case 'failed':
      return { text: t('Context compaction failed'), icon: 'error' };
    case 'cancelled':
      return { text: t('Context compaction cancelled'), icon: 'circle-slash' };
    default:
      return { text: t('Compacting context…'), icon: 'loading codicon-modifier-spin' };
  }
}

/** "150,000 → 30,000 tokens", or the one of the two the agent said. */
function tokensOf({ tokensBefore: before, tokensAfter: after }: CompactionView): string | undefined {
  if (before !== undefined && after !== undefined) return t('{0} → {1} tokens', before.toLocaleString(), after.toLocaleString());
  if (before !== undefined) return t('{0} tokens before', before.toLocaleString());
  if (after !== undefined) return t('{0} tokens after', after.toLocaleString());
  return undefined;
}

export const Compaction = memo(function Compaction({ entry }: { entry: CompactionView }) {
  const { text, icon } = heading(entry.status);
  const tokens = tokensOf(entry);
  const head = (
    <>
      <span class={`codicon codicon-${icon}`} aria-hidden="true" />
      <strong>{text}</strong>
      {tokens && <span class="quiet"> · {tokens}</span>}
    </>
  );
  return (
    <section class={`compaction ${entry.status}`} aria-label={tokens ? `${text}, ${tokens}` : text}>
      {entry.summary === '' ? (
        <p class="compaction-head">{head}</p>
      ) : (
        <details>
          <summary class="compaction-head">
            {head}
            <span class="quiet"> · {t('Summary')}</span>
          </summary>
          <Markdown text={entry.summary} />
          {entry.truncated && <p class="quiet">{t('The summary was longer than the chat keeps; the rest is not shown.')}</p>}
        </details>
      )}
      {entry.error && (
        <p class="compaction-error" role="note">
          {entry.error}
        </p>
      )}
    </section>
  );
});
