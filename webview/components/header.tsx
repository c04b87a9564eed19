// Above the conversation: the session's title and the usage meter. Above the composer: the agent's plan.
import type { PlanEntryView, UsageView } from '../../src/chat/protocol';
import { t } from '../l10n';
import { compactNumber } from '../state';

export function Header({ title, agent, usage }: { title: string | undefined; agent: string; usage: UsageView | undefined }) {
  const share = usage && usage.size > 0 ? Math.min(1, usage.used / usage.size) : 0;
  return (
    <header class="chat-header">
      <h1 class="chat-title" title={title ?? agent}>
        {title ?? agent}
      </h1>
      {title && <span class="quiet agent-name">{agent}</span>}
      {usage && (
        <div class="usage" title={t('{0} of {1} tokens of context used', usage.used.toLocaleString('en'), usage.size.toLocaleString('en'))}>
          <div
            class="meter"
            role="meter"
            aria-label={t('Context used')}
            aria-valuemin={0}
            aria-valuemax={usage.size}
            aria-valuenow={usage.used}
            aria-valuetext={
              usage.cost
                ? t('{0} of {1} tokens, {2}', compactNumber(usage.used), compactNumber(usage.size), usage.cost)
                : t('{0} of {1} tokens', compactNumber(usage.used), compactNumber(usage.size))
            }
          >
            <div class={`meter-fill ${share > 0.9 ? 'high' : ''}`} style={{ width: `${(share * 100).toFixed(1)}%` }} />
          </div>
          <span class="usage-text">
            {compactNumber(usage.used)} / {compactNumber(usage.size)}
            {usage.cost ? ` · ${usage.cost}` : ''}
          </span>
        </div>
      )}
    </header>
  );
}

const PLAN_ICONS: Record<PlanEntryView['status'], string> = {
  completed: 'pass-filled',
  in_progress: 'circle-large-filled',
  pending: 'circle-large-outline',
};
const PLAN_STATUS: Record<PlanEntryView['status'], () => string> = {
  completed: () => t('done'),
  in_progress: () => t('in progress'),
  pending: () => t('to do'),
};
/** What a screen reader hears after an entry: its status, then its priority. */
const PLAN_PRIORITY: Record<PlanEntryView['priority'], (status: string) => string> = {
  high: (status) => t('{0}, high priority', status),
  medium: (status) => t('{0}, medium priority', status),
  low: (status) => t('{0}, low priority', status),
};

export function Plan({ entries }: { entries: readonly PlanEntryView[] }) {
  if (entries.length === 0) return null;
  const done = entries.filter((e) => e.status === 'completed').length;
  return (
    <details class="plan" open>
      <summary>
        <span class="codicon codicon-checklist" aria-hidden="true" />
        {t('Plan')} <span class="quiet">{t('({0} of {1} done)', done, entries.length)}</span>
      </summary>
      <ul aria-label={t('Plan')}>
        {entries.map((entry, i) => (
          <li key={i} class={`plan-entry ${entry.status}`}>
            <span class={`codicon codicon-${PLAN_ICONS[entry.status]}`} aria-hidden="true" />
            <span class="plan-text">{entry.content}</span>
            <span class="visually-hidden">, {PLAN_PRIORITY[entry.priority](PLAN_STATUS[entry.status]())}</span>
            {entry.priority === 'high' && (
              <span class="priority" aria-hidden="true">
                {t('high')}
              </span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
