// Above the composer: the agent's plans. ACP v1's one plan, and the plans an agent keeps by id (unstable
// `plan_update`): entries with their status, Markdown rendered as the agent's messages are, or a file the user opens.
import type { PlanByIdView, PlanEntryView } from '../../src/chat/protocol';
import { openPlan } from '../intents';
import { t } from '../l10n';
import { Markdown } from './message';

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

function Entries({ entries, name }: { entries: readonly PlanEntryView[]; name: string }) {
  const done = entries.filter((e) => e.status === 'completed').length;
  return (
    <details class="plan" open>
      <summary>
        <span class="codicon codicon-checklist" aria-hidden="true" />
        {name} <span class="quiet">{t('({0} of {1} done)', done, entries.length)}</span>
      </summary>
      <ul aria-label={name}>
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

function PlanById({ plan, name }: { plan: PlanByIdView; name: string }) {
  switch (plan.kind) {
    case 'items':
      return <Entries entries={plan.entries} name={name} />;
    case 'markdown':
      return (
        <details class="plan" open>
          <summary>
            <span class="codicon codicon-markdown" aria-hidden="true" />
            {name}
          </summary>
          <div class="plan-markdown" role="region" aria-label={name}>
            <Markdown text={plan.markdown} />
            {plan.truncated && <p class="quiet">{t('The plan was longer than the chat keeps; the rest is not shown.')}</p>}
            <button type="button" class="secondary" onClick={() => openPlan(plan.id)} aria-label={t('Open in Editor: {0}', name)}>
              <span class="codicon codicon-go-to-file" aria-hidden="true" /> {t('Open in Editor')}
            </button>
          </div>
        </details>
      );
    case 'file':
      return (
        <p class="plan plan-file">
          <span class="codicon codicon-file" aria-hidden="true" />
          {name}
          <button
            type="button"
            class="link"
            title={t('Open {0}', plan.name)}
            onClick={() => openPlan(plan.id)}
            aria-label={t('Open {0}: {1}', name, plan.name)}
          >
            {plan.name}
          </button>
        </p>
      );
  }
}

export function Plans({ entries, plans }: { entries: readonly PlanEntryView[]; plans: readonly PlanByIdView[] | undefined }) {
  const byId = plans ?? [];
  const count = byId.length + (entries.length > 0 ? 1 : 0);
  if (count === 0) return null;
  // One plan is "Plan"; several are told apart by the agent's id.
  const nameOf = (id: string) => (count > 1 ? t('Plan {0}', id) : t('Plan'));
  return (
    <div class="plans" data-find="plan">
      {entries.length > 0 && <Entries entries={entries} name={t('Plan')} />}
      {byId.map((plan) => (
        <PlanById key={plan.id} plan={plan} name={nameOf(plan.id)} />
      ))}
    </div>
  );
}
