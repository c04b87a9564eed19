// Above the conversation: the session's title, its worktree's branch, the usage meter and the permission level.
import type { PermissionLevelName, PermissionLevelView, SessionView, TurnUsageView, UsageView } from '../../src/chat/protocol';
import { setPermissionLevel } from '../intents';
import { t } from '../l10n';
import { compactNumber } from '../state';

const LEVEL_NAMES: Record<PermissionLevelName, () => string> = {
  ask: () => t('Ask'),
  autoApproveEdits: () => t('Auto-approve edits'),
  agentDecides: () => t('Agent decides'),
  allowAll: () => t('Allow all'),
};
const LEVEL_HINTS: Record<PermissionLevelName, () => string> = {
  ask: () => t('The agent asks you before it edits files or runs commands'),
  autoApproveEdits: () => t('Edits to files inside the workspace are allowed once; everything else asks you'),
  agentDecides: () => t('The agent decides by itself what to ask you; what it asks still asks you'),
  allowAll: () => t('Every permission request is allowed, except plan approvals and the paths it names outside the workspace'),
};

/** What `name` means here: the level, and the agent's own mode it runs in, in the agent's words. */
function hintOf(level: PermissionLevelView, name: PermissionLevelName): string {
  const mode = level.modes?.[name];
  return mode ? `${LEVEL_HINTS[name]()} (${t('the agent\'s mode "{0}"', mode)})` : LEVEL_HINTS[name]();
}

/** Who the agent runs as, in words, or undefined when it did not say. */
function accountWords(account: SessionView['account']): string | undefined {
  if (!account) return undefined;
  if (account.state === 'unauthenticated') return t('Not signed in');
  if (account.state === 'not_required') return t('No sign-in needed');
  return account.names.length > 0 ? t('Signed in as {0}', account.names.join(', ')) : t('Signed in');
}

/** How the client answers the agent's permission requests in this chat: always in view, picked here. */
function LevelPicker({ level }: { level: PermissionLevelView }) {
  const restricted = level.offered.length < 2;
  return (
    <label
      class={`level-picker ${level.level}`}
      title={restricted ? t('Restricted Mode: every permission request asks you') : hintOf(level, level.level)}
    >
      <span class="codicon codicon-shield" aria-hidden="true" />
      <select
        class="picker"
        aria-label={t('Permission level: {0}', LEVEL_NAMES[level.level]())}
        value={level.level}
        disabled={restricted}
        onChange={(e) => {
          const picked = e.currentTarget.value as PermissionLevelName;
          // The picker shows the chat's level until the host confirms the change.
          e.currentTarget.value = level.level;
          setPermissionLevel(picked);
        }}
      >
        {level.offered.map((name) => (
          <option key={name} value={name} title={hintOf(level, name)}>
            {LEVEL_NAMES[name]()}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Header({
  title,
  agent,
  usage,
  lastTurn,
  level,
  worktree,
  account,
}: {
  title: string | undefined;
  agent: string;
  usage: UsageView | undefined;
  /** The tokens the last turn used, where its agent said. */
  lastTurn?: TurnUsageView | undefined;
  level: PermissionLevelView;
  /** The worktree the chat works in, if it does: its branch in the header, its folder in the tooltip. */
  worktree?: { readonly branch: string; readonly path: string } | undefined;
  /** Who the agent runs as, where it says: in the tooltip of the chat's title and of the agent's name. */
  account?: SessionView['account'];
}) {
  const share = usage && usage.size > 0 ? Math.min(1, usage.used / usage.size) : 0;
  const who = accountWords(account);
  const tip = (text: string) => (who ? `${text}\n${agent}: ${who}` : text);
  return (
    <header class="chat-header">
      <h1 class="chat-title" title={tip(title ?? agent)}>
        {title ?? agent}
      </h1>
      {title && (
        <span class="quiet agent-name" title={tip(agent)}>
          {agent}
        </span>
      )}
      {worktree && (
        <span
          class="quiet worktree"
          role="note"
          title={worktree.path}
          aria-label={t('In the worktree {0}, on the branch {1}', worktree.path, worktree.branch)}
        >
          <span class="codicon codicon-git-branch" aria-hidden="true" />
          {worktree.branch}
        </span>
      )}
      <span class="header-spacer" />
      {usage && (
        <div
          class="usage"
          title={
            t('{0} of {1} tokens of context used', usage.used.toLocaleString('en'), usage.size.toLocaleString('en')) +
            (lastTurn ? ` · ${t('last turn: {0} tokens', lastTurn.total.toLocaleString('en'))}` : '')
          }
        >
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
      {!usage && lastTurn && (
        <span class="usage usage-text" title={t('Tokens the last turn used, as the agent reported them')}>
          {t('{0} tokens', compactNumber(lastTurn.total))}
        </span>
      )}
      <LevelPicker level={level} />
    </header>
  );
}
