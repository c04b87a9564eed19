// The conversation: messages, thoughts, tool cards with their permission requests, and the turn's status. Agent
// text is markdown rendered with HTML off, or plain text nodes; nothing the agent sends becomes markup otherwise.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type {
  AgentErrorView,
  CheckpointsView,
  ElicitationView,
  EntryView,
  NoticeView,
  PermissionView,
  SubagentView,
  TurnView,
} from '../../src/chat/protocol';
import { useDeferredRows, type Row } from '../hooks/useDeferredRows';
import { copyCode, insertCode, openLink } from '../intents';
import { t } from '../l10n';
import { cardsAfter, turnEnds, WINDOW } from '../state';
import { Changes } from './changes';
import { Compaction } from './compaction';
import { Elicitation } from './elicitation';
import { Subagent } from './subagent';
import { CheckpointQuestion, Restored } from './checkpointQuestion';
import { Message } from './message';
import { Permission } from './permission';
import { Tool } from './tool';
import { AgentError, TurnStatus, TurnUsage } from './turnStatus';

export function Conversation(props: {
  agent: string;
  loaded: boolean;
  earlier: readonly EntryView[];
  /** The line below the earlier entries (default: where the agent was restarted). */
  divider?: string;
  entries: readonly EntryView[];
  permissions: readonly PermissionView[];
  elicitations: readonly ElicitationView[];
  subagents: readonly SubagentView[];
  turn: TurnView;
  notices: readonly NoticeView[];
  agentError: AgentErrorView | null;
  checkpoints: CheckpointsView;
  /** The agent forks sessions: user messages offer Fork from Here. */
  canFork?: boolean;
  /** The row to bring into view and mark (a search result opened at its match). */
  reveal?: { readonly key: string | undefined; readonly seq: number };
}) {
  const { agent, earlier, entries, permissions } = props;
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const lastTop = useRef(0);
  const [shown, setShown] = useState(WINDOW);
  const rows = useMemo<Row[]>(
    () => [
      ...earlier.map((entry) => ({ key: `e${entry.id}`, entry, earlier: true })),
      ...entries.map((entry) => ({ key: `n${entry.id}`, entry, earlier: false })),
    ],
    [earlier, entries],
  );
  const hidden = Math.max(0, rows.length - shown);
  const visible = hidden > 0 ? rows.slice(hidden) : rows;
  const byTool = useMemo(() => {
    const map = new Map<string, PermissionView[]>();
    for (const p of permissions) map.set(p.toolCallId, [...(map.get(p.toolCallId) ?? []), p]);
    return map;
  }, [permissions]);
  // Checkpoints and cards belong to this session's messages; an earlier session's entries have ids of their own.
  const cards = useMemo(
    () =>
      cardsAfter(
        visible.filter((row) => !row.earlier).map((row) => row.entry),
        props.checkpoints.cards,
      ),
    [rows, hidden, props.checkpoints.cards],
  );
  const restorable = useMemo(() => new Set(props.checkpoints.restorable), [props.checkpoints.restorable]);
  const usageAfter = useMemo(() => new Map((props.turn.usage ?? []).map((u) => [u.after, u])), [props.turn.usage]);
  // A question and a restore's line go under the turn they are about, after its card.
  const ends = useMemo(() => turnEnds(visible.filter((row) => !row.earlier).map((row) => row.entry)), [rows, hidden]);
  const { question, restored } = props.checkpoints;
  const questionAfter = question ? ends.get(question.turn) : undefined;
  const restoredAfter = restored ? ends.get(restored.turn) : undefined;
  const orphans = permissions.filter((p) => !entries.some((e) => e.kind === 'tool' && e.toolCallId === p.toolCallId));
  // A question goes under the tool call it belongs to, or at the end.
  const questionsAt = (toolCallId: string) => props.elicitations.filter((q) => q.toolCallId === toolCallId);
  const loose = props.elicitations.filter((q) => !q.toolCallId || !entries.some((e) => e.kind === 'tool' && e.toolCallId === q.toolCallId));

  const deferred = useDeferredRows(rows, visible, stick.current);

  // Anchored at the bottom unless the user scrolled up; while anchored, the page keeps only the last WINDOW entries.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
    if (el) lastTop.current = el.scrollTop;
  });
  useEffect(() => {
    if (stick.current && shown > WINDOW && rows.length > 0) setShown(WINDOW);
  }, [rows.length]);
  // A search result opened at its match: its row is shown (earlier rows too, when it is among them), scrolled to
  // and marked; the view lets go of the bottom so that it stays there.
  const revealKey = props.reveal?.key;
  useEffect(() => {
    if (revealKey === undefined) return;
    const index = rows.findIndex((row) => row.key === revealKey);
    if (index < 0) return;
    stick.current = false;
    if (rows.length - index > shown) setShown(rows.length - index + 10);
    requestAnimationFrame(() => ref.current?.querySelector(`[data-key="${revealKey}"]`)?.scrollIntoView({ block: 'center' }));
  }, [props.reveal?.seq, revealKey, rows.length > 0]);
  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    // Only the user scrolling up lets go of the bottom: content that grew since it was pinned does not.
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 32) stick.current = true;
    else if (el.scrollTop < lastTop.current) stick.current = false;
    lastTop.current = el.scrollTop;
  };
  const showEarlier = () => {
    const el = ref.current;
    const fromBottom = el ? el.scrollHeight - el.scrollTop : 0;
    stick.current = false;
    setShown((n) => n + WINDOW);
    // Keep what the user was reading in place as the earlier entries appear above it.
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - fromBottom;
    });
  };

  const empty = props.loaded && rows.length === 0;
  // Below an earlier session's entries: where the agent was restarted.
  const lastEarlier = earlier.length > 0 ? `e${earlier[earlier.length - 1]?.id ?? ''}` : undefined;
  return (
    <div class="conversation" ref={ref} onScroll={onScroll} onClick={onConversationClick} role="log" aria-label={t('Conversation')} aria-live="off">
      {empty && (
        <p class="hint">{t('Ask {0} anything. Enter sends, Shift+Enter adds a line, / lists commands and prompt files, @ adds context.', agent)}</p>
      )}
      {hidden > 0 && (
        <button type="button" class="show-earlier secondary" onClick={showEarlier}>
          {t('Show earlier messages ({0})', hidden)}
        </button>
      )}
      {visible.map((row) => {
        const card = row.earlier ? undefined : cards.get(row.entry.id);
        return (
          <div key={row.key} data-key={row.key} class={`${row.earlier ? 'entry earlier' : 'entry'}${row.key === revealKey ? ' revealed' : ''}`}>
            {deferred.has(row.key) ? null : row.entry.kind === 'message' ? (
              <Message
                entry={row.entry}
                restorable={!row.earlier && restorable.has(row.entry.id)}
                forkable={!row.earlier && props.canFork}
                earlier={row.earlier}
              />
            ) : row.entry.kind === 'tool' ? (
              <Tool entry={row.entry} permissions={row.earlier ? undefined : byTool.get(row.entry.toolCallId)} agent={agent} earlier={row.earlier} />
            ) : (
              <Compaction entry={row.entry} />
            )}
            {!row.earlier &&
              row.entry.kind === 'tool' &&
              questionsAt(row.entry.toolCallId).map((q) => <Elicitation key={`q${q.id}`} question={q} agent={agent} />)}
            {!row.earlier && usageAfter.has(row.entry.id) && <TurnUsage usage={usageAfter.get(row.entry.id)!} />}
            {card && <Changes card={card} />}
            {!row.earlier && restored && restoredAfter === row.entry.id && <Restored restored={restored} />}
            {!row.earlier && question && questionAfter === row.entry.id && <CheckpointQuestion question={question} />}
            {row.key === lastEarlier && (
              <p class="divider" role="separator">
                {props.divider ?? t('The agent was restarted here')}
              </p>
            )}
          </div>
        );
      })}
      {orphans.map((p) => (
        <Permission key={p.id} permission={p} agent={agent} />
      ))}
      {loose.map((q) => (
        <Elicitation key={`q${q.id}`} question={q} agent={agent} />
      ))}
      {props.subagents.map((child) => (
        <Subagent key={`s${child.sessionId}`} child={child} agent={agent} />
      ))}
      {props.notices.map((n, i) => (
        <p key={`notice${i}`} class={`agent-notice ${n.severity}`} role="note">
          <span class={`codicon codicon-${n.severity === 'error' ? 'error' : n.severity === 'warning' ? 'warning' : 'info'}`} aria-hidden="true" />
          <strong>{n.title}</strong>
          {n.description ? ` — ${n.description}` : ''}
        </p>
      ))}
      <TurnStatus turn={props.turn} />
      {props.agentError && <AgentError error={props.agentError} />}
    </div>
  );
}

/** Links and code buttons inside rendered markdown: the host opens, copies and inserts. */
function onConversationClick(event: MouseEvent) {
  const target = event.target instanceof Element ? event.target : null;
  const link = target?.closest('a[href]');
  if (link) {
    event.preventDefault();
    openLink(link.getAttribute('href') ?? '');
    return;
  }
  const button = target?.closest('button[data-code-action]');
  if (button) {
    const code = button.closest('.code-block')?.querySelector('code')?.textContent ?? '';
    if (button.getAttribute('data-code-action') === 'insert') insertCode(code);
    else copyCode(code);
  }
}
