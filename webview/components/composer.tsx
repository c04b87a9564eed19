// The composer: the message box with slash-command and @-file completions, attachment chips, the mode and config
// pickers, and Send (Stop while a turn runs). Enter sends, Shift+Enter adds a line, Up recalls earlier prompts.
// The completions, the prompt history, image paste and drop, and the focus are hooks (webview/hooks/).
import { useRef, useState } from 'preact/hooks';
import type { AttachmentView, FileMatch, PromptView, QueueView, SessionView, TurnView, WhileBusyMode } from '../../src/chat/protocol';
import { useCompletions } from '../hooks/useCompletions';
import { useFocusRequest } from '../hooks/useFocusRequest';
import { useImageDrop } from '../hooks/useImageDrop';
import { usePromptHistory } from '../hooks/usePromptHistory';
import { commandHint } from '../hooks/completions';
import { cancelTurn, confirmAttachment, removeAttachment, tellDraft } from '../intents';
import { t } from '../l10n';
import { Chip } from './chip';
import { Picker } from './picker';

// eslint-disable-next-line max-lines-per-function -- the composer's render: its behaviours are hooks already (hooks/)
export function Composer(props: {
  agent: string;
  draft: string;
  setDraft: (text: string) => void;
  /** Sends the draft; while a turn runs, as `mode` says (default: the setting). */
  send: (mode?: WhileBusyMode) => void;
  turn: TurnView;
  queue: QueueView;
  disabled: boolean;
  session: SessionView;
  attachments: readonly AttachmentView[];
  /** The prompt files offered under `/`. */
  prompts: readonly PromptView[];
  files: { readonly requestId: number; readonly files: readonly FileMatch[] } | undefined;
  history: readonly string[];
  focusRequest: number;
  tell: (text: string) => void;
}) {
  const { draft, setDraft, send, turn, disabled, session, attachments } = props;
  const busy = turn.phase !== 'idle';
  const box = useRef<HTMLTextAreaElement>(null);
  useFocusRequest(box, props.focusRequest, disabled);
  const {
    completion,
    options,
    current,
    setActive,
    setCaret,
    onKeyDown: completionKey,
  } = useCompletions(draft, setDraft, session.commands, props.prompts, props.files, box);
  const open = options.length > 0;
  const recall = usePromptHistory(props.history, draft, setDraft);
  const { onPaste, onDrop } = useImageDrop(props.tell);

  // The hint of the command being typed ("/review what to focus on").
  const hint = commandHint(draft, session.commands);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (completionKey(event) || recall.onKeyDown(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey) {
      event.preventDefault();
      // While a turn runs, Enter does what acp.chat.whileBusy says (queue, by default).
      recall.reset();
      send();
    }
  };

  const listId = 'completions';
  return (
    <div class="composer" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      {attachments.length > 0 && (
        <div class="chips" role="list" aria-label={t('Attached to your message')}>
          {attachments.map((a) => (
            <Chip
              key={a.id}
              kind={a.kind}
              label={a.label}
              {...(a.size !== undefined ? { size: a.size } : {})}
              {...(a.confirm ? { onConfirm: () => confirmAttachment(a.id) } : {})}
              onRemove={() => removeAttachment(a.id)}
            />
          ))}
        </div>
      )}
      <div class="input">
        {open && (
          <ul class="completions" id={listId} role="listbox" aria-label={completion?.kind === 'command' ? t('Commands') : t('Context')}>
            {options.map((o, i) => (
              <li
                key={o.id}
                id={o.id}
                role="option"
                aria-selected={o === current}
                class={o === current ? 'selected' : ''}
                onMouseDown={(e) => {
                  e.preventDefault(); // keep the focus in the box
                  o.apply();
                }}
                onMouseEnter={() => setActive(i)}
              >
                {o.icon && <span class={`codicon codicon-${o.icon}`} aria-hidden="true" />}
                <span class="completion-label">{o.label}</span>
                <span class="completion-detail">{o.detail}</span>
              </li>
            ))}
          </ul>
        )}
        <textarea
          ref={box}
          aria-label={t('Message')}
          aria-autocomplete="list"
          aria-controls={open ? listId : undefined}
          aria-activedescendant={current?.id}
          placeholder={
            props.agent
              ? t('Message {0} — / for commands and prompts, @ for context', props.agent)
              : t('Message the agent — / for commands and prompts, @ for context')
          }
          rows={3}
          value={draft}
          disabled={disabled}
          onInput={(event) => {
            const el = event.currentTarget;
            setDraft(el.value);
            setCaret(el.selectionStart);
            recall.reset();
          }}
          onKeyUp={(event) => setCaret(event.currentTarget.selectionStart)}
          // Leaving the box (for the command palette, say) tells the host the draft at once: a move follows.
          onBlur={(event) => tellDraft(event.currentTarget.value)}
          onClick={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        {hint && (
          <p class="command-hint" aria-live="polite">
            {hint}
          </p>
        )}
      </div>
      <div class="composer-bar">
        {session.pickers.map((picker) => (
          <Picker key={`${picker.target}:${picker.id}`} picker={picker} disabled={disabled} />
        ))}
        <span class="spacer" />
        {busy ? (
          <>
            <WhileBusyButtons queue={props.queue} disabled={disabled || (draft.trim() === '' && attachments.length === 0)} send={send} />
            <button type="button" class="secondary" disabled={turn.phase === 'cancelling'} onClick={() => cancelTurn()}>
              <span class="codicon codicon-debug-stop" aria-hidden="true" /> {t('Stop')}
            </button>
          </>
        ) : (
          <button type="button" class="primary" disabled={disabled || (draft.trim() === '' && attachments.length === 0)} onClick={() => send()}>
            <span class="codicon codicon-send" aria-hidden="true" /> {t('Send')}
          </button>
        )}
      </div>
    </div>
  );
}

const MODE_WORDS: Record<WhileBusyMode, () => string> = {
  queue: () => t('Add to Queue'),
  steer: () => t('Steer with Message'),
  stopAndSend: () => t('Stop and Send'),
};

/** While a turn runs: the default way to send (a split button), and a menu with all three, keyboard reachable. */
function WhileBusyButtons({ queue, disabled, send }: { queue: QueueView; disabled: boolean; send: (mode?: WhileBusyMode) => void }) {
  const [open, setOpen] = useState(false);
  const main: WhileBusyMode = queue.whileBusy === 'steer' && !queue.canSteer ? 'queue' : queue.whileBusy;
  const choose = (mode: WhileBusyMode) => {
    setOpen(false);
    send(mode);
  };
  return (
    <div class="split-button">
      <button type="button" class="primary" disabled={disabled} onClick={() => choose(main)}>
        <span class="codicon codicon-send" aria-hidden="true" /> {MODE_WORDS[main]()}
      </button>
      <button
        type="button"
        class="primary split-toggle"
        aria-label={t('More ways to send')}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setOpen(false);
        }}
      >
        <span class="codicon codicon-chevron-down" aria-hidden="true" />
      </button>
      {open && (
        <div class="split-menu" role="menu" aria-label={t('Send while the agent works')}>
          {(['queue', 'steer', 'stopAndSend'] as const).map((mode) => (
            <button
              key={mode}
              type="button"
              role="menuitem"
              disabled={disabled || (mode === 'steer' && !queue.canSteer)}
              title={mode === 'steer' && !queue.canSteer ? t('This agent does not take messages during a turn') : undefined}
              onClick={() => choose(mode)}
              onKeyDown={(event) => {
                if (event.key === 'Escape') setOpen(false);
              }}
            >
              {MODE_WORDS[mode]()}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
