// The conversation: messages, thoughts, tool cards with their permission requests, and the turn's status. Agent
// text is markdown rendered with HTML off, or plain text nodes; nothing the agent sends becomes markup otherwise.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { AgentErrorView, ErrorAction, EntryView, MessageView, NoticeView, PermissionView, TerminalView, ToolView, TurnView } from '../../src/chat/protocol';
import { answerPermission, copyCode, insertCode, openLink, openLocation, runErrorAction, showDiff, showTerminal } from '../intents';
import { t } from '../l10n';
import { renderMarkdown } from '../markdown';
import { memo } from '../memo';
import { Chip } from './chip';
import { Spinner } from './spinner';
import { markdownBlocks, WINDOW } from '../state';


/**
 * Roughly the characters of new entries rendered at a time while the view follows the stream at the bottom. When
 * many entries arrive at once (the host sends what piled up while the page was busy, or a restored chat loads), one
 * render of them all is a long task that keeps a click waiting: measured in the UI benchmark, a render of 100+ new
 * entries took 60–100 ms of CPU. So new entries render newest first, this much at a time, and the older ones are
 * left empty above what is shown until they fill in (see useDeferredRows), or until newer entries push them out of
 * the window. With 4000, no frame of the benchmark's flood took more than 30 ms of CPU.
 */
const RENDER_CHARS = 4000;
/** Entries left empty fill in once the updates pause this long... */
const FILL_PAUSE_MS = 100;
/** ...or once they have waited this long while the updates go on. */
const FILL_WAIT_MS = 1000;

/** What an entry costs to render, in characters of its text plus its fixed markup. */
function weight(entry: EntryView): number {
  if (entry.kind === 'message') return 200 + entry.text.length;
  let chars = 500 + entry.title.length + (entry.rawInput?.length ?? 0) + (entry.rawOutput?.length ?? 0);
  for (const text of entry.content) chars += text.length;
  for (const terminal of entry.terminals) chars += terminal.output.length;
  return chars;
}

interface Row {
  readonly key: string;
  readonly entry: EntryView;
  readonly earlier: boolean;
}

export function Conversation(props: {
  agent: string;
  loaded: boolean;
  earlier: readonly EntryView[];
  /** The line below the earlier entries (default: where the agent was restarted). */
  divider?: string;
  entries: readonly EntryView[];
  permissions: readonly PermissionView[];
  turn: TurnView;
  notices: readonly NoticeView[];
  agentError: AgentErrorView | null;
}) {
  const { agent, earlier, entries, permissions } = props;
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const lastTop = useRef(0);
  const [shown, setShown] = useState(WINDOW);
  const rows = useMemo<Row[]>(
    () => [...earlier.map((entry) => ({ key: `e${entry.id}`, entry, earlier: true })), ...entries.map((entry) => ({ key: `n${entry.id}`, entry, earlier: false }))],
    [earlier, entries],
  );
  const hidden = Math.max(0, rows.length - shown);
  const visible = hidden > 0 ? rows.slice(hidden) : rows;
  const byTool = useMemo(() => {
    const map = new Map<string, PermissionView[]>();
    for (const p of permissions) map.set(p.toolCallId, [...(map.get(p.toolCallId) ?? []), p]);
    return map;
  }, [permissions]);
  const orphans = permissions.filter((p) => !entries.some((e) => e.kind === 'tool' && e.toolCallId === p.toolCallId));

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
      {empty && <p class="hint">{t('Ask {0} anything. Enter sends, Shift+Enter adds a line, / lists commands and @ mentions a file.', agent)}</p>}
      {hidden > 0 && (
        <button type="button" class="show-earlier secondary" onClick={showEarlier}>
          {t('Show earlier messages ({0})', hidden)}
        </button>
      )}
      {visible.map((row) => (
        <div key={row.key} class={row.earlier ? 'entry earlier' : 'entry'}>
          {deferred.has(row.key) ? null : row.entry.kind === 'message' ? (
            <Message entry={row.entry} />
          ) : (
            <Tool entry={row.entry} permissions={row.earlier ? undefined : byTool.get(row.entry.toolCallId)} agent={agent} />
          )}
          {row.key === lastEarlier && (
            <p class="divider" role="separator">
              {props.divider ?? t('The agent was restarted here')}
            </p>
          )}
        </div>
      ))}
      {orphans.map((p) => (
        <Permission key={p.id} permission={p} agent={agent} />
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

/**
 * The keys of the visible rows to leave empty in this render (see RENDER_CHARS): while `following` the stream, the
 * rows not rendered yet, newest first, beyond RENDER_CHARS. The rest fill in RENDER_CHARS at a time once the
 * updates pause: during a burst they would take CPU that the burst needs, for entries that newer ones may push out
 * of the window anyway. When the user scrolls up (or asks for earlier messages), everything renders at once.
 */
function useDeferredRows(rows: readonly Row[], visible: readonly Row[], following: boolean): ReadonlySet<string> {
  const rendered = useRef(new Set<string>());
  const [, fillIn] = useState(0);
  const deferred = new Set<string>();
  if (following) {
    let budget = RENDER_CHARS;
    for (let i = visible.length - 1; i >= 0; i--) {
      const row = visible[i];
      if (!row || rendered.current.has(row.key)) continue;
      if (budget > 0) budget -= weight(row.entry);
      else deferred.add(row.key);
    }
  }
  rendered.current = new Set(visible.flatMap((row) => (deferred.has(row.key) ? [] : [row.key])));

  const lastRows = useRef(rows);
  const deferredSince = useRef<number | undefined>(undefined);
  useEffect(() => {
    const updated = lastRows.current !== rows;
    lastRows.current = rows;
    if (deferred.size === 0) {
      deferredSince.current = undefined;
      return;
    }
    const now = performance.now();
    deferredSince.current ??= now;
    // After an update, wait for the next one (this timer is then replaced), at most until FILL_WAIT_MS is up;
    // after a fill-in, go on at once.
    const delay = updated ? Math.min(FILL_PAUSE_MS, Math.max(0, deferredSince.current + FILL_WAIT_MS - now)) : 0;
    const timer = window.setTimeout(() => fillIn((n) => n + 1), delay);
    return () => window.clearTimeout(timer);
  });
  return deferred;
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

/** One block of markdown; a block that did not change is not rendered again. */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

export function Markdown({ text }: { text: string }) {
  const blocks = markdownBlocks(text);
  return (
    <div class="markdown">
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
}

const Message = memo(function Message({ entry }: { entry: MessageView }) {
  if (entry.text === '' && entry.chips.length === 0) return null;
  if (entry.role === 'thought') {
    const words = entry.text.trim().split(/\s+/).length;
    return (
      <details class="message thought">
        <summary>
          <span class="codicon codicon-lightbulb" aria-hidden="true" />
          {t('Thought')} <span class="quiet">{words === 1 ? t('(1 word)') : t('({0} words)', words)}</span>
        </summary>
        <Markdown text={entry.text} />
      </details>
    );
  }
  const user = entry.role === 'user';
  return (
    <section class={`message ${entry.role}`} aria-label={user ? t('You') : t('Agent')}>
      <div class="role" aria-hidden="true">
        {user ? t('You') : t('Agent')}
      </div>
      {user ? <div class="text plain">{entry.text}</div> : <Markdown text={entry.text} />}
      {entry.chips.length > 0 && (
        <div class="chips" role="list" aria-label={t('Attachments')}>
          {entry.chips.map((chip, i) => (
            <Chip key={i} kind={chip.kind} label={chip.label} />
          ))}
        </div>
      )}
    </section>
  );
});

const STATUS: Record<ToolView['status'], { text: () => string; icon: string }> = {
  pending: { text: () => t('pending'), icon: 'circle-large-outline' },
  in_progress: { text: () => t('running'), icon: 'loading' }, // turned by <Spinner>
  completed: { text: () => t('done'), icon: 'pass' },
  failed: { text: () => t('failed'), icon: 'error' },
  cancelled: { text: () => t('cancelled'), icon: 'circle-slash' },
};

const KIND_ICONS: Record<string, string> = {
  read: 'file',
  edit: 'edit',
  delete: 'trash',
  move: 'arrow-swap',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'settings-gear',
};

const Tool = memo(function Tool({ entry, permissions, agent }: { entry: ToolView; permissions: PermissionView[] | undefined; agent: string }) {
  const status = STATUS[entry.status];
  const statusText = status.text();
  return (
    <article class={`tool ${entry.status}`} aria-label={t('{0} ({1})', entry.title, statusText)}>
      <div class="tool-head">
        <span class={`codicon codicon-${KIND_ICONS[entry.toolKind] ?? 'tools'} tool-kind`} aria-hidden="true" />
        <span class="tool-title">{entry.title}</span>
        <span class="tool-status">
          {entry.status === 'in_progress' ? <Spinner /> : <span class={`codicon codicon-${status.icon}`} aria-hidden="true" />}
          {statusText}
        </span>
      </div>
      {entry.locations.length > 0 && (
        <div class="tool-links">
          {entry.locations.map((label, index) => (
            <button key={`l${index}`} type="button" class="link" title={t('Open {0}', label)} onClick={() => openLocation(entry.toolCallId, index)}>
              {label}
            </button>
          ))}
        </div>
      )}
      {entry.content.map((text, i) => (
        <Markdown key={`c${i}`} text={text} />
      ))}
      {entry.diffs.map((diff, index) => (
        <div key={`d${index}`} class="tool-diff">
          <span class="codicon codicon-diff" aria-hidden="true" />
          <span class="diff-label">
            {diff.created ? t('New file: {0}', diff.label) : t('Edit: {0}', diff.label)}
          </span>
          <span class="diff-added" aria-label={t('{0} lines added', diff.added)}>
            +{diff.added}
          </span>
          <span class="diff-removed" aria-label={t('{0} lines removed', diff.removed)}>
            −{diff.removed}
          </span>
          <button type="button" class="secondary" aria-label={t('Open Diff of {0}', diff.label)} onClick={() => showDiff(entry.toolCallId, index)}>
            {t('Open Diff')}
          </button>
        </div>
      ))}
      {entry.terminals.map((terminal) => (
        <TerminalOutput key={terminal.id} terminal={terminal} title={entry.title} onShow={() => showTerminal(entry.toolCallId, terminal.id)} />
      ))}
      {entry.rawInput !== undefined && <Raw label={t('Input')} text={entry.rawInput} />}
      {entry.rawOutput !== undefined && <Raw label={t('Output')} text={entry.rawOutput} />}
      {permissions?.map((p) => (
        <Permission key={p.id} permission={p} agent={agent} />
      ))}
      {entry.autoAnswer && <p class="tool-note">{entry.autoAnswer}</p>}
    </article>
  );
});

function Raw({ label, text }: { label: string; text: string }) {
  return (
    <details class="raw">
      <summary>{label}</summary>
      <pre aria-label={label}>{text}</pre>
    </details>
  );
}

function TerminalOutput({ terminal, title, onShow }: { terminal: TerminalView; title: string; onShow: () => void }) {
  return (
    <div class="terminal">
      <pre aria-label={t('Output of {0}', title)}>
        {terminal.truncated ? '…\n' : ''}
        {terminal.output}
      </pre>
      <div class="terminal-foot">
        <span>{terminal.exit ?? t('running…')}</span>
        <button type="button" class="secondary" onClick={onShow}>
          {t('Show in Terminal')}
        </button>
      </div>
    </div>
  );
}

const OPTION_HINTS: Record<string, () => string> = {
  allow_once: () => t('Allow this time'),
  allow_always: () => t('Allow, and remember it for this kind of tool call'),
  reject_once: () => t('Reject this time'),
  reject_always: () => t('Reject, and remember it for this kind of tool call'),
};

function Permission({ permission, agent }: { permission: PermissionView; agent: string }) {
  return (
    <div class="permission" role="group" aria-label={t('Permission: {0}', permission.title)}>
      <p>
        <span class="codicon codicon-shield" aria-hidden="true" /> {t('{0} asks permission — {1}:', agent, permission.kindLabel)} <strong>{permission.title}</strong>
      </p>
      <div class="actions">
        {permission.options.map((o) => (
          <button
            key={o.optionId}
            type="button"
            class={o.kind.startsWith('allow') ? 'primary' : 'secondary'}
            data-kind={o.kind}
            title={OPTION_HINTS[o.kind]?.()}
            onClick={() => answerPermission(permission.id, o.optionId)}
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

const STOP_TEXT: Record<string, () => string> = {
  cancelled: () => t('Stopped.'),
  max_tokens: () => t('The agent stopped: it reached its token limit.'),
  max_turn_requests: () => t('The agent stopped: it reached its limit of requests for one turn.'),
  refusal: () => t('The agent refused. Your message and everything after it were left out of the agent’s context.'),
};

function TurnStatus({ turn }: { turn: TurnView }) {
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
  manageTrust: () => t('Manage Workspace Trust'),
  openSettings: () => t('Open Settings'),
  showLog: () => t('Show Log'),
};

function AgentError({ error }: { error: AgentErrorView }) {
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
