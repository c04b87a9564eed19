// The conversation: messages, thoughts, tool cards with their permission requests, and the turn's status. Agent
// text is markdown rendered with HTML off, or plain text nodes; nothing the agent sends becomes markup otherwise.
import { useRef, useState } from 'preact/hooks';
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
import { entryAction } from '../entryActions';
import { useDeferredRows, type Row } from '../hooks/useDeferredRows';
import { useEditing } from '../hooks/useEditing';
import { useMessageJumps } from '../hooks/useMessageJumps';
import { useRowExtras, useRows } from '../hooks/useRows';
import { useStickToBottom } from '../hooks/useStickToBottom';
import { FindBar } from './findBar';
import { copyCode, insertCode, openBranch, openLink } from '../intents';
import { t } from '../l10n';
import { rowKey } from '../state';
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
  /** The divider offers Open the Earlier Branch. */
  branch?: boolean;
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
  /** The plan's text, which Find searches too. */
  planText?: string;
}) {
  const { agent, earlier } = props;
  const ref = useRef<HTMLDivElement>(null);
  const window = useRows(earlier, props.entries);
  const { rows, visible, hidden } = window;
  // Whether the view follows the bottom: the jumps let go of it, the user's scrolling takes it back.
  const stick = useRef(true);
  const deferred = useDeferredRows(rows, visible, stick.current);
  const { find, focusMessage, outline, revealKey } = useMessageJumps(ref, window, stick, props);
  const { onScroll, showEarlier } = useStickToBottom(ref, window, stick);
  const idle = props.turn.phase === 'idle';
  const editing = useEditing(ref, props.entries, idle);
  const { byTool, cards, restorable, usageAfter, question, restored, questionAfter, restoredAfter, orphans, questionsAt, loose } = useRowExtras(
    window,
    props,
  );

  const empty = props.loaded && rows.length === 0;
  // Below an earlier session's entries: where the agent was restarted.
  const last = earlier[earlier.length - 1];
  const lastEarlier = last ? rowKey(last.id, true) : undefined;
  return (
    <>
      {find.bar && <FindBar {...find.bar} />}
      {outline.length > 1 && <Outline rows={outline} focus={(key) => void focusMessage(key)} />}
      <div
        class="conversation"
        ref={ref}
        onScroll={onScroll}
        onClick={(event) => onConversationClick(event, editing.open)}
        role="log"
        aria-label={t('Conversation')}
        aria-live="off"
      >
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
                  editable={!row.earlier && idle}
                  editing={editing.of(row)}
                />
              ) : row.entry.kind === 'tool' ? (
                <Tool
                  entry={row.entry}
                  permissions={row.earlier ? undefined : byTool.get(row.entry.toolCallId)}
                  agent={agent}
                  earlier={row.earlier}
                />
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
              {row.key === lastEarlier && <Divider text={props.divider} branch={props.branch} />}
            </div>
          );
        })}
        <Loose permissions={orphans} questions={loose} subagents={props.subagents} notices={props.notices} agent={agent} />
        <TurnStatus turn={props.turn} />
        {props.agentError && <AgentError error={props.agentError} />}
      </div>
    </>
  );
}

/**
 * The outline: a list of the user's messages that jumps to the one picked. Its options are made when the list is
 * used (pointed at or focused) and dropped when it is left: a long chat has thousands of messages, and the page kept
 * an element for each (2,000 of a long chat's 3,800 elements) and rendered them again with every update.
 */
function Outline(props: { rows: readonly Row[]; focus: (key: string) => void }) {
  const [used, setUsed] = useState(false);
  const use = () => setUsed(true);
  return (
    <div class="outline">
      <select
        class="picker"
        aria-label={t('Jump to Your Message')}
        title={t('Jump to one of your messages (Alt+Up, Alt+Down)')}
        value=""
        onPointerDown={use}
        onFocus={use}
        onBlur={() => setUsed(false)}
        onChange={(e) => {
          const key = e.currentTarget.value;
          e.currentTarget.value = '';
          if (key) props.focus(key);
        }}
      >
        <option value="">{t('Your messages ({0})', props.rows.length)}</option>
        {used &&
          props.rows.map((row) => (
            <option key={row.key} value={row.key}>
              {row.entry.kind === 'message' ? outlineLabel(row.entry.text) : ''}
            </option>
          ))}
      </select>
    </div>
  );
}

/** The line below the earlier entries (default: where the agent was restarted), and Open the Earlier Branch. */
function Divider(props: { text: string | undefined; branch: boolean | undefined }) {
  return (
    <>
      <p class="divider" role="separator">
        {props.text ?? t('The agent was restarted here')}
      </p>
      {props.branch && (
        <button type="button" class="show-earlier secondary" onClick={() => openBranch()}>
          {t('Open the Earlier Branch')}
        </button>
      )}
    </>
  );
}

/** What goes at the end: requests and questions whose tool call is not shown, the subagents and the agent's notices. */
function Loose(props: {
  permissions: readonly PermissionView[];
  questions: readonly ElicitationView[];
  subagents: readonly SubagentView[];
  notices: readonly NoticeView[];
  agent: string;
}) {
  const { agent } = props;
  return (
    <>
      {props.permissions.map((p) => (
        <Permission key={p.id} permission={p} agent={agent} />
      ))}
      {props.questions.map((q) => (
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
    </>
  );
}

/** A message as the outline lists it: its first line, shortened. */
function outlineLabel(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}\u2026` : line || t('(attachments only)');
}

/** The buttons of messages and tool cards (see entryActions.ts), and links and code buttons inside rendered markdown. */
function onConversationClick(event: MouseEvent, edit: (entryId: number) => void) {
  const target = event.target instanceof Element ? event.target : null;
  if (target && entryAction(target, edit)) return;
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
