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
import { entryText, type FindTarget } from '../find';
import { useDeferredRows, type Row } from '../hooks/useDeferredRows';
import { useFind } from '../hooks/useFind';
import { FindBar } from './findBar';
import { copyCode, insertCode, openBranch, openLink } from '../intents';
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

// eslint-disable-next-line max-lines-per-function -- the list's rows, message jumps and stick-to-bottom are to become hooks of their own (#42)
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

  // The rows and the window as they are now, for what waits for frames (bringing a row into the page).
  const now = useRef({ rows, shown });
  now.current = { rows, shown };
  /** Puts the row of `key` in the page (earlier rows shown, a deferred one filled in) and answers its element. */
  const bring = async (key: string, stale: () => boolean = () => false): Promise<Element | undefined> => {
    if (key === 'plan') return document.querySelector('[data-find="plan"]') ?? undefined;
    const index = now.current.rows.findIndex((row) => row.key === key);
    if (index < 0) return undefined;
    stick.current = false;
    const needed = now.current.rows.length - index;
    if (needed > now.current.shown) setShown(needed + 10);
    for (let frame = 0; frame < 90 && !stale(); frame++) {
      const element = ref.current?.querySelector(`[data-key="${key}"]`);
      if (element && element.childElementCount > 0) return element;
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return undefined;
  };
  // What Find searches, built only while its bar is open.
  const targets = (): FindTarget[] => [
    ...now.current.rows.map((row) => ({ key: row.key, text: entryText(row.entry) })),
    ...(props.planText ? [{ key: 'plan', text: props.planText }] : []),
  ];
  // A new token whenever what Find searches changed.
  const searchable = useMemo(() => ({}), [rows, props.planText]);
  const find = useFind(targets, searchable, bring);
  /** Alt+Up / Alt+Down: the user's message before or after the one in focus (or the bottom), focused. */
  const jump = async (step: 1 | -1) => {
    const mine = now.current.rows.filter((row) => row.entry.kind === 'message' && row.entry.role === 'user');
    const from = document.activeElement?.closest('[data-key]')?.getAttribute('data-key');
    const at = from ? now.current.rows.findIndex((row) => row.key === from) : now.current.rows.length;
    const position = (key: string) => now.current.rows.findIndex((row) => row.key === key);
    const target = step === -1 ? mine.filter((row) => position(row.key) < at).at(-1) : mine.find((row) => position(row.key) > at);
    if (target) await focusMessage(target.key);
  };
  const focusMessage = async (key: string) => {
    const element = (await bring(key))?.querySelector<HTMLElement>('.message.user');
    element?.focus();
    element?.scrollIntoView({ block: 'start' });
  };
  useEffect(() => {
    const mac = /Mac|iPhone|iPad/.test(navigator.platform);
    const onKey = (event: KeyboardEvent) => {
      const primary = mac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
      if (primary && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'f') {
        // Not VS Code's own find: the chat's, which knows its folded and earlier rows.
        event.preventDefault();
        event.stopPropagation();
        find.open();
      } else if (
        event.altKey &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.shiftKey &&
        !event.isComposing &&
        (event.key === 'ArrowUp' || event.key === 'ArrowDown') &&
        jumpsFrom(event.target, mac)
      ) {
        event.preventDefault();
        event.stopPropagation();
        void jump(event.key === 'ArrowUp' ? -1 : 1);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
  const outline = rows.filter((row) => row.entry.kind === 'message' && row.entry.role === 'user');

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
    <>
      {find.bar && <FindBar {...find.bar} />}
      {outline.length > 1 && (
        <div class="outline">
          <select
            class="picker"
            aria-label={t('Jump to Your Message')}
            title={t('Jump to one of your messages (Alt+Up, Alt+Down)')}
            value=""
            onChange={(e) => {
              const key = e.currentTarget.value;
              e.currentTarget.value = '';
              if (key) void focusMessage(key);
            }}
          >
            <option value="">{t('Your messages ({0})', outline.length)}</option>
            {outline.map((row) => (
              <option key={row.key} value={row.key}>
                {row.entry.kind === 'message' ? outlineLabel(row.entry.text) : ''}
              </option>
            ))}
          </select>
        </div>
      )}
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
                  editable={!row.earlier && props.turn.phase === 'idle'}
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
              {row.key === lastEarlier && (
                <>
                  <p class="divider" role="separator">
                    {props.divider ?? t('The agent was restarted here')}
                  </p>
                  {props.branch && (
                    <button type="button" class="show-earlier secondary" onClick={() => openBranch()}>
                      {t('Open the Earlier Branch')}
                    </button>
                  )}
                </>
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
    </>
  );
}

/**
 * Whether Alt+Up / Alt+Down jump from where the key was pressed: not in a field that uses them (a list opens with
 * Alt+Down; the find box), and in the message box only where the platform does not move the caret with them (macOS).
 */
function jumpsFrom(target: EventTarget | null, mac: boolean): boolean {
  if (!(target instanceof Element)) return true;
  if (target.closest('select, input, [contenteditable="true"]')) return false;
  return !(mac && target.closest('textarea'));
}

/** A message as the outline lists it: its first line, shortened. */
function outlineLabel(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}\u2026` : line || t('(attachments only)');
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
