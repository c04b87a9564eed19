// A permission request: what the agent asks, the plan it asks to approve (leaving plan mode), its options as buttons,
// and the diff it would make.
import { toolKind, type PermissionView } from '../../src/chat/protocol';
import { answerPermission, openPlanReview, showDiff } from '../intents';
import { t } from '../l10n';
import { Markdown } from './message';
import { planOptionHint } from './planOptions';

const OPTION_HINTS: Record<string, () => string> = {
  allow_once: () => t('Allow this time'),
  allow_always: () => t('Allow, and remember it for this kind of tool call'),
  reject_once: () => t('Reject this time'),
  reject_always: () => t('Reject, and remember it for this kind of tool call'),
};

/** `sessionId`: a subagent's request, answered on its session (the chat's own otherwise). */
export function Permission({ permission, agent, sessionId }: { permission: PermissionView; agent: string; sessionId?: string }) {
  return (
    <div class="permission" role="group" aria-label={t('Permission: {0}', permission.title || t('Tool call'))}>
      <p>
        <span class="codicon codicon-shield" aria-hidden="true" /> {t('{0} asks permission — {1}:', agent, t(toolKind(permission.toolKind).label))}{' '}
        <strong>{permission.title || t('Tool call')}</strong>
      </p>
      {permission.plan && (
        <section class="plan-approval" aria-label={t('The plan to approve')}>
          <Markdown text={permission.plan} />
        </section>
      )}
      {permission.planApproval && (
        <ul class="plan-options" aria-label={t('What each answer does')}>
          {permission.options.map((o) => (
            <li key={o.optionId}>
              <button
                type="button"
                class={o.kind.startsWith('allow') ? 'primary' : 'secondary'}
                data-kind={o.kind}
                aria-describedby={`plan-option-${permission.id}-${o.optionId}`}
                onClick={() => answerPermission(permission.id, o.optionId, sessionId)}
              >
                {o.name}
              </button>
              <span class="quiet" id={`plan-option-${permission.id}-${o.optionId}`}>
                {planOptionHint(o.effect, o.kind)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        {permission.planApproval?.canOpen && (
          <button type="button" class="secondary" onClick={() => openPlanReview(permission.id, sessionId)}>
            <span class="codicon codicon-go-to-file" aria-hidden="true" /> {t('Open Plan in Editor')}
          </button>
        )}
        {!permission.planApproval &&
          permission.options.map((o) => (
            <button
              key={o.optionId}
              type="button"
              class={o.kind.startsWith('allow') ? 'primary' : 'secondary'}
              data-kind={o.kind}
              title={OPTION_HINTS[o.kind]?.()}
              onClick={() => answerPermission(permission.id, o.optionId, sessionId)}
            >
              {o.name}
            </button>
          ))}
        {permission.hasDiff && (
          <button type="button" class="secondary" onClick={() => showDiff(permission.toolCallId, 0)}>
            {t('Show Diff')}
          </button>
        )}
      </div>
    </div>
  );
}
