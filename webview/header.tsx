// Above the conversation: the session's title and the usage meter. Above the composer: the agent's plan.
import type { PlanEntryView, UsageView } from '../src/chat/protocol';
import { compactNumber } from './state';

export function Header({ title, agent, usage }: { title: string | undefined; agent: string; usage: UsageView | undefined }) {
  const share = usage && usage.size > 0 ? Math.min(1, usage.used / usage.size) : 0;
  return (
    <header class="chat-header">
      <h1 class="chat-title" title={title ?? agent}>
        {title ?? agent}
      </h1>
      {title && <span class="quiet agent-name">{agent}</span>}
      {usage && (
        <div class="usage" title={`${usage.used.toLocaleString('en')} of ${usage.size.toLocaleString('en')} tokens of context used`}>
          <div
            class="meter"
            role="meter"
            aria-label="Context used"
            aria-valuemin={0}
            aria-valuemax={usage.size}
            aria-valuenow={usage.used}
            aria-valuetext={`${compactNumber(usage.used)} of ${compactNumber(usage.size)} tokens${usage.cost ? `, ${usage.cost}` : ''}`}
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
const PLAN_STATUS: Record<PlanEntryView['status'], string> = { completed: 'done', in_progress: 'in progress', pending: 'to do' };

export function Plan({ entries }: { entries: readonly PlanEntryView[] }) {
  if (entries.length === 0) return null;
  const done = entries.filter((e) => e.status === 'completed').length;
  return (
    <details class="plan" open>
      <summary>
        <span class="codicon codicon-checklist" aria-hidden="true" />
        Plan <span class="quiet">({done} of {entries.length} done)</span>
      </summary>
      <ul aria-label="Plan">
        {entries.map((entry, i) => (
          <li key={i} class={`plan-entry ${entry.status}`}>
            <span class={`codicon codicon-${PLAN_ICONS[entry.status]}`} aria-hidden="true" />
            <span class="plan-text">{entry.content}</span>
            <span class="visually-hidden">
              , {PLAN_STATUS[entry.status]}, {entry.priority} priority
            </span>
            {entry.priority === 'high' && (
              <span class="priority" aria-hidden="true">
                high
              </span>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
