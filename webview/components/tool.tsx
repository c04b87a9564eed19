// A tool card: the tool call's title and status, its locations, content, diffs and terminals, its raw input and
// output, and the permission requests that wait on it.
import { toolKind, type PermissionView, type TerminalView, type ToolView } from '../../src/chat/protocol';
import { t } from '../l10n';
import { memo } from '../memo';
import { Markdown } from './message';
import { Permission } from './permission';
import { Spinner } from './spinner';

const STATUS: Record<ToolView['status'], { text: () => string; icon: string }> = {
  pending: { text: () => t('pending'), icon: 'circle-large-outline' },
  in_progress: { text: () => t('running'), icon: 'loading' }, // turned by <Spinner>
  completed: { text: () => t('done'), icon: 'pass' },
  failed: { text: () => t('failed'), icon: 'error' },
  cancelled: { text: () => t('cancelled'), icon: 'circle-slash' },
};

/**
 * A tool card. Its buttons keep no handlers (a long chat has thousands of cards): each says what it does (`data-act`,
 * and which location, diff or terminal), and the conversation acts on its click (`entryActions.ts`), from the card's
 * ids on the article.
 */
export const Tool = memo(function Tool({
  entry,
  permissions,
  agent,
  earlier = false,
}: {
  entry: ToolView;
  permissions: PermissionView[] | undefined;
  agent: string;
  earlier?: boolean;
}) {
  const status = STATUS[entry.status];
  const statusText = status.text();
  const title = entry.title || t('Tool call');
  const hasOutput = entry.content.length > 0 || entry.terminals.length > 0 || entry.rawOutput !== undefined;
  return (
    <article
      class={`tool ${entry.status}`}
      aria-label={t('{0} ({1})', title, statusText)}
      data-entry={entry.id}
      data-tool={entry.toolCallId}
      {...(earlier ? { 'data-earlier': '' } : {})}
    >
      <div class="tool-head">
        <span class={`codicon codicon-${toolKind(entry.toolKind).icon} tool-kind`} aria-hidden="true" />
        <span class="tool-title">{title}</span>
        <span class="tool-status">
          {entry.status === 'in_progress' ? <Spinner /> : <span class={`codicon codicon-${status.icon}`} aria-hidden="true" />}
          {statusText}
        </span>
        {entry.canStop && (
          <button type="button" class="secondary tool-stop" aria-label={t('Stop {0}', title)} data-act="stop">
            {t('Stop')}
          </button>
        )}
        {hasOutput && (
          <button
            type="button"
            class="icon-button tool-copy codicon codicon-copy"
            title={t('Copy the output')}
            aria-label={t('Copy Result of {0}', title)}
            data-act="copy"
          />
        )}
      </div>
      {entry.locations.length > 0 && (
        <div class="tool-links">
          {entry.locations.map((label, index) => (
            <button key={`l${index}`} type="button" class="link" title={t('Open {0}', label)} data-act="location" data-index={index}>
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
          <span class="diff-label">{diff.created ? t('New file: {0}', diff.label) : t('Edit: {0}', diff.label)}</span>
          <span class="diff-added" aria-label={t('{0} lines added', diff.added)}>
            +{diff.added}
          </span>
          <span class="diff-removed" aria-label={t('{0} lines removed', diff.removed)}>
            −{diff.removed}
          </span>
          <button type="button" class="secondary" aria-label={t('Open Diff of {0}', diff.label)} data-act="diff" data-index={index}>
            {t('Open Diff')}
          </button>
        </div>
      ))}
      {entry.terminals.map((terminal) => (
        <TerminalOutput key={terminal.id} terminal={terminal} title={title} />
      ))}
      {entry.exitCode !== undefined && <p class={`tool-note${entry.exitCode === 0 ? '' : ' failed'}`}>{t('exit code {0}', entry.exitCode)}</p>}
      {entry.rawInput !== undefined && <Raw label={t('Input')} text={entry.rawInput} />}
      {entry.rawOutput !== undefined && <Raw label={t('Output')} text={entry.rawOutput} />}
      {permissions?.map((p) => (
        <Permission key={p.id} permission={p} agent={agent} />
      ))}
      {entry.autoAnswer && <p class="tool-note">{t('{0}, answered by {1}', entry.autoAnswer.option, entry.autoAnswer.reason)}</p>}
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

function TerminalOutput({ terminal, title }: { terminal: TerminalView; title: string }) {
  return (
    <div class="terminal">
      <pre aria-label={t('Output of {0}', title)}>
        {terminal.truncated ? '…\n' : ''}
        {terminal.output}
      </pre>
      <div class="terminal-foot">
        <span>{exitText(terminal.exit)}</span>
        <button type="button" class="secondary" data-act="terminal" data-terminal={terminal.id}>
          {t('Show in Terminal')}
        </button>
      </div>
    </div>
  );
}

/** How a command ended, in the user's words; still running while there is no exit. */
function exitText(exit: TerminalView['exit']): string {
  if (!exit) return t('running…');
  if ('signal' in exit) return t('ended by {0}', exit.signal);
  return exit.code === null ? t('exit code unknown') : t('exit code {0}', exit.code);
}
