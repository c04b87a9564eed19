// The chat's find bar (Ctrl+F / Cmd+F): the text, match case, "N of M", previous and next. Enter goes to the next
// match, Shift+Enter to the previous one; Escape closes the bar and gives the focus back.
import { useEffect, useRef } from 'preact/hooks';
import { MAX_MATCHES } from '../find';
import { t } from '../l10n';

export interface FindBarProps {
  query: string;
  matchCase: boolean;
  /** The current match, 0-based, or -1. */
  index: number;
  count: number;
  /** What the screen reader hears, changed only by the user's moves ("3/7", "none"): not by every streamed update. */
  announced: string;
  /** Bumped to take the focus (Ctrl+F again while the bar is open). */
  focusSeq: number;
  setQuery(query: string): void;
  toggleCase(): void;
  step(step: 1 | -1): void;
  close(): void;
}

export function FindBar(props: FindBarProps) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [props.focusSeq]);
  const status =
    props.query === ''
      ? ''
      : props.count === 0
        ? t('No results')
        : t('{0} of {1}', props.index + 1, props.count >= MAX_MATCHES ? `${MAX_MATCHES}+` : props.count);
  const [at, of] = props.announced.split('/');
  const spoken = props.announced === '' ? '' : props.announced === 'none' ? t('No results') : t('{0} of {1}', at ?? '', of ?? '');
  return (
    <div
      class="find-bar"
      role="search"
      aria-label={t('Find in Chat')}
      onKeyDown={(e) => {
        // Escape from any of the bar's controls.
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          props.close();
        }
      }}
    >
      <input
        ref={input}
        type="text"
        class="find-input"
        aria-label={t('Find in Chat')}
        placeholder={t('Find')}
        value={props.query}
        onInput={(e) => props.setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            props.step(e.shiftKey ? -1 : 1);
          }
        }}
      />
      <button
        type="button"
        class={`icon-button${props.matchCase ? ' checked' : ''}`}
        aria-pressed={props.matchCase}
        aria-label={t('Match Case')}
        title={t('Match Case')}
        onClick={props.toggleCase}
      >
        <span class="codicon codicon-case-sensitive" aria-hidden="true" />
      </button>
      <span class="find-status" aria-hidden="true">
        {status}
      </span>
      <span class="visually-hidden" role="status" aria-live="polite">
        {spoken}
      </span>
      <button
        type="button"
        class="icon-button"
        aria-label={t('Previous Match')}
        title={t('Previous Match (Shift+Enter)')}
        disabled={props.count === 0}
        onClick={() => props.step(-1)}
      >
        <span class="codicon codicon-arrow-up" aria-hidden="true" />
      </button>
      <button
        type="button"
        class="icon-button"
        aria-label={t('Next Match')}
        title={t('Next Match (Enter)')}
        disabled={props.count === 0}
        onClick={() => props.step(1)}
      >
        <span class="codicon codicon-arrow-down" aria-hidden="true" />
      </button>
      <button type="button" class="icon-button" aria-label={t('Close Find')} title={t('Close (Escape)')} onClick={props.close}>
        <span class="codicon codicon-close" aria-hidden="true" />
      </button>
    </div>
  );
}
