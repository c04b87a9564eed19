// Below the conversation: how the turn is going or how it ended, and the agent error with what the user can do.
import type { AgentErrorView, ErrorAction, TurnUsageView, TurnView } from '../../src/chat/protocol';
import { runErrorAction } from '../intents';
import { t } from '../l10n';
import { Spinner } from './spinner';

const STOP_TEXT: Record<string, () => string> = {
  cancelled: () => t('Stopped.'),
  max_tokens: () => t('The agent stopped: it reached its token limit.'),
  max_turn_requests: () => t('The agent stopped: it reached its limit of requests for one turn.'),
  refusal: () => t('The agent refused. Your message and everything after it were left out of the agent’s context.'),
};

/** Under a turn: the tokens it used, as its agent reported them. */
export function TurnUsage({ usage }: { usage: TurnUsageView }) {
  const n = (value: number) => value.toLocaleString();
  const parts = [t('{0} in', n(usage.input)), t('{0} out', n(usage.output))];
  if (usage.thought !== undefined) parts.push(t('{0} thought', n(usage.thought)));
  if (usage.cachedRead !== undefined) parts.push(t('{0} cached', n(usage.cachedRead)));
  const text = parts.join(' · ');
  return (
    <p class="turn-usage quiet" aria-label={t('Tokens this turn: {0}', text)} title={t('{0} tokens in all', n(usage.total))}>
      <span class="codicon codicon-dashboard" aria-hidden="true" /> {text}
    </p>
  );
}

export function TurnStatus({ turn }: { turn: TurnView }) {
  if (turn.phase === 'running' || turn.phase === 'awaiting-user') {
    return (
      <p class="status busy">
        <Spinner />
        {turn.phase === 'running' ? t('Working…') : t('Waiting for your answer…')}
      </p>
    );
  }
  if (turn.phase === 'cancelling') return <p class="status">{t('Stopping…')}</p>;
  if (turn.error) {
    return (
      <p class="status error" role="alert">
        {t('The turn failed: {0}', turn.error)}
      </p>
    );
  }
  const text = turn.stopReason ? STOP_TEXT[turn.stopReason]?.() : undefined;
  return text ? (
    <p class={`status ${turn.stopReason === 'refusal' ? 'refusal' : ''}`} role="status">
      {text}
    </p>
  ) : null;
}

const ERROR_ACTION_LABELS: Record<ErrorAction, () => string> = {
  restart: () => t('Restart Agent'),
  signIn: () => t('Sign In'),
  setToken: () => t('Set Agent Token…'),
  stopReconnecting: () => t('Stop Reconnecting'),
  manageTrust: () => t('Manage Workspace Trust'),
  openSettings: () => t('Open Settings'),
  showLog: () => t('Show Log'),
};

export function AgentError({ error }: { error: AgentErrorView }) {
  return (
    <section class="agent-error" role="alert" aria-label={t('Agent stopped')}>
      <p>
        <span class="codicon codicon-error" aria-hidden="true" /> {error.message}
      </p>
      {error.stderr.length > 0 && <pre aria-label={t("The agent's last stderr lines")}>{error.stderr.join('\n')}</pre>}
      <div class="actions">
        {error.actions.map((action, i) => (
          <button key={action} type="button" class={i === 0 ? 'primary' : 'secondary'} onClick={() => runErrorAction(action)}>
            {ERROR_ACTION_LABELS[action]()}
          </button>
        ))}
      </div>
    </section>
  );
}
