// A child session of this chat's (a subagent), as a collapsible card in the conversation: its name and task, its
// live state, the task the parent sent it, its latest messages and tool calls, its reply to the parent, and its permission requests and questions, labelled with its
// name. Cancel where the agent allows it.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SubagentView } from '../../src/chat/protocol';
import { cancelSubagent } from '../intents';
import { t } from '../l10n';
import { Elicitation } from './elicitation';
import { Compaction } from './compaction';
import { Markdown, Message } from './message';
import { Permission } from './permission';
import { Tool } from './tool';

const STATE_WORDS: Record<string, () => string> = {
  running: () => t('working'),
  idle: () => t('idle'),
  requires_action: () => t('needs you'),
  unknown: () => t('state unknown'),
};

export function Subagent({ child, agent }: { child: SubagentView; agent: string }) {
  const waiting = child.permissions.length + child.elicitations.length;
  // Open while it works at first; afterwards the user's choice stands, except that a request waiting opens it.
  const [startOpen] = useState(() => waiting > 0 || child.state === 'running');
  const details = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (waiting > 0 && details.current) details.current.open = true;
  }, [waiting]);
  const state = waiting > 0 ? t('needs you') : child.state ? (STATE_WORDS[child.state]?.() ?? child.state) : undefined;
  const name = `${agent} › ${child.title}`;
  return (
    <details class="subagent" open={startOpen} ref={details} data-session={child.sessionId}>
      {/* Named by what it shows (a screen reader hears the same words as a sighted user reads), "Subagent" first. */}
      <summary>
        <span class="codicon codicon-hubot" aria-hidden="true" /> <span class="visually-hidden">{t('Subagent')} </span>
        <strong>{child.title}</strong>
        {state && <span class={`subagent-state ${child.state ?? ''}`}> · {state}</span>}
        {child.description && <span class="quiet"> — {child.description}</span>}
      </summary>
      <div class="subagent-body">
        {child.task && (
          <section class="subagent-message task" aria-label={t('Task from {0}', agent)}>
            <div class="role">{t('Task')}</div>
            <Markdown text={child.task} />
          </section>
        )}
        {child.earlier > 0 && <p class="quiet">{t('{0} earlier entries are not shown', child.earlier)}</p>}
        {child.entries.map((entry) =>
          entry.kind === 'message' ? (
            <Message key={entry.id} entry={entry} />
          ) : entry.kind === 'tool' ? (
            <Tool key={entry.id} entry={entry} permissions={undefined} agent={name} />
          ) : (
            <Compaction key={entry.id} entry={entry} />
          ),
        )}
        {child.reply && (
          <section class="subagent-message reply" aria-label={t('Reply to {0}', agent)}>
            <div class="role">{t('Reply')}</div>
            <Markdown text={child.reply} />
          </section>
        )}
        {child.permissions.map((p) => (
          <Permission key={`p${p.id}`} permission={p} agent={name} sessionId={child.sessionId} />
        ))}
        {child.elicitations.map((q) => (
          <Elicitation key={`q${q.id}`} question={q} agent={name} sessionId={child.sessionId} />
        ))}
        {child.canCancel && child.state === 'running' && (
          <button type="button" class="secondary" onClick={() => cancelSubagent(child.sessionId)}>
            {t('Cancel {0}', child.title)}
          </button>
        )}
      </div>
    </details>
  );
}
