// Below the conversation: how the turn is going or how it ended, and the agent error with what the user can do.
import type { AgentErrorView, ErrorAction, TurnAction, TurnUsageView, TurnView } from '../../src/chat/protocol';
import { runErrorAction, runTurnAction } from '../intents';
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
  if (turn.failure) return <TurnFailure turn={turn} failure={turn.failure} />;
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

/** The limits the agents name, in words. */
const LIMIT_NAMES: Record<string, () => string> = {
  five_hour: () => t('5-hour'),
  seven_day: () => t('weekly'),
  seven_day_opus: () => t('weekly Opus'),
  seven_day_sonnet: () => t('weekly Sonnet'),
};

function failureText(failure: NonNullable<TurnView['failure']>): string {
  const resets =
    failure.resetsAt !== undefined ? new Date(failure.resetsAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : undefined;
  const limit = failure.limit !== undefined ? (LIMIT_NAMES[failure.limit]?.() ?? failure.limit) : undefined;
  switch (failure.kind) {
    case 'quotaExhausted':
      if (limit && resets) return t('Your {0} usage limit is used up. It resets {1}.', limit, resets);
      if (resets) return t('Your usage limit is used up. It resets {0}.', resets);
      return limit ? t('Your {0} usage limit is used up.', limit) : t('Your usage limit is used up.');
    case 'rateLimited':
      return resets ? t('Too many requests for now; try again after {0}.', resets) : t('Too many requests for now: wait a moment, then retry.');
    case 'signedOut':
      return t('You are signed out: sign in, then retry.');
    case 'overloaded':
      return t('The service is overloaded: retry in a moment.');
    case 'network':
      return t('The connection to the service failed: retry when the network is back.');
  }
}

const TURN_ACTION_LABELS: Record<TurnAction, () => string> = {
  retry: () => t('Retry'),
  signIn: () => t('Sign In'),
  switchModel: () => t('Switch Model'),
};

/** A failed turn whose kind the agent said: what happened, when a limit resets, and what fits (Retry resends it). */
function TurnFailure({ turn, failure }: { turn: TurnView; failure: NonNullable<TurnView['failure']> }) {
  return (
    <section class="status error turn-failure" role="alert" aria-label={t('The turn failed')}>
      <p>
        <span class="codicon codicon-warning" aria-hidden="true" /> {failureText(failure)}
      </p>
      {turn.error && <p class="quiet">{turn.error}</p>}
      <Actions actions={failure.actions} labels={TURN_ACTION_LABELS} run={runTurnAction} />
    </section>
  );
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
      <Actions actions={error.actions} labels={ERROR_ACTION_LABELS} run={runErrorAction} />
    </section>
  );
}

/** What the user can do, the first as the primary button. */
function Actions<A extends string>({ actions, labels, run }: { actions: readonly A[]; labels: Record<A, () => string>; run: (action: A) => void }) {
  return (
    <div class="actions">
      {actions.map((action, i) => (
        <button key={action} type="button" class={i === 0 ? 'primary' : 'secondary'} onClick={() => run(action)}>
          {labels[action]()}
        </button>
      ))}
    </div>
  );
}
