// The composer: the message box with slash-command and @-file completions, attachment chips, the mode and config
// pickers, and Send (Stop while a turn runs). Enter sends, Shift+Enter adds a line, Up recalls earlier prompts.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { imageRefusal, type AttachmentView, type CommandView, type FileMatch, type PickerView, type SessionView, type TurnView } from '../../src/chat/protocol';
import { Chip } from './conversation';
import { attachImage, cancelTurn, mentionFile, removeAttachment, searchFiles, setConfig, setMode } from '../intents';
import { t } from '../l10n';
import { completionAt, type Completion } from '../state';

interface Option {
  readonly id: string;
  readonly label: string;
  readonly detail: string;
  readonly apply: () => void;
}

export function Composer(props: {
  agent: string;
  draft: string;
  setDraft: (text: string) => void;
  send: () => void;
  turn: TurnView;
  disabled: boolean;
  session: SessionView;
  attachments: readonly AttachmentView[];
  files: { readonly requestId: number; readonly files: readonly FileMatch[] } | undefined;
  history: readonly string[];
  focusRequest: number;
  tell: (text: string) => void;
}) {
  const { draft, setDraft, send, turn, disabled, session, attachments } = props;
  const busy = turn.phase !== 'idle';
  const box = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>();
  const recall = useRef<{ index: number; saved: string } | undefined>(undefined);
  const searchId = useRef(0);

  useEffect(() => {
    if (props.focusRequest === 0) return;
    box.current?.focus();
    // The panel is being revealed too; when the webview itself takes focus, the box should keep it.
    const refocus = () => box.current?.focus();
    window.addEventListener('focus', refocus, { once: true });
    const stop = window.setTimeout(() => window.removeEventListener('focus', refocus), 1000);
    return () => {
      window.clearTimeout(stop);
      window.removeEventListener('focus', refocus);
    };
  }, [props.focusRequest]);
  // Once the chat has loaded (the box is disabled before), the composer has the focus.
  useEffect(() => {
    if (!disabled) box.current?.focus();
  }, [disabled]);

  const completion: Completion = dismissed === draft ? undefined : completionAt(draft, caret);
  const fileQuery = completion?.kind === 'file' ? completion.query : undefined;
  useEffect(() => {
    if (fileQuery === undefined) return;
    const requestId = ++searchId.current;
    searchFiles(requestId, fileQuery);
  }, [fileQuery]);

  const options = useMemo<Option[]>(() => {
    if (!completion) return [];
    if (completion.kind === 'command') {
      const q = completion.query.toLowerCase();
      return session.commands
        .filter((c) => c.name.toLowerCase().startsWith(q))
        .map((c: CommandView) => ({
          id: `cmd-${c.name}`,
          label: `/${c.name}`,
          detail: c.hint ? `${c.description} — ${c.hint}` : c.description,
          apply: () => replace(0, caret, `/${c.name} `),
        }));
    }
    const files = props.files && props.files.requestId === searchId.current ? props.files.files : [];
    return files.map((f) => ({
      id: `file-${f.path}`,
      label: f.name,
      detail: f.folder,
      apply: () => {
        replace(completion.start, caret, `@${f.path} `);
        mentionFile(f.path);
      },
    }));
  }, [completion?.kind, completion?.query, session.commands, props.files, caret, draft]);
  const open = options.length > 0;
  const current = open ? options[Math.min(active, options.length - 1)] : undefined;
  useEffect(() => setActive(0), [completion?.kind, completion?.query]);

  function replace(from: number, to: number, text: string) {
    const next = draft.slice(0, from) + text + draft.slice(to);
    setDraft(next);
    const at = from + text.length;
    setCaret(at);
    requestAnimationFrame(() => box.current?.setSelectionRange(at, at));
  }

  // The hint of the command being typed ("/review what to focus on").
  const typedCommand = /^\/(\S+) (.*)$/s.exec(draft);
  const hint = typedCommand && typedCommand[2] === '' ? session.commands.find((c) => c.name === typedCommand[1])?.hint : undefined;

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (open && current) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((i) => (Math.min(i, options.length - 1) + step + options.length) % options.length);
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        current.apply();
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissed(draft);
        return;
      }
    }
    const el = event.currentTarget as HTMLTextAreaElement;
    if (event.key === 'ArrowUp' && el.selectionStart === 0 && el.selectionEnd === 0 && props.history.length > 0) {
      // Up at the start of the box recalls earlier prompts; Down goes back towards the draft.
      event.preventDefault();
      const state = recall.current ?? { index: props.history.length, saved: draft };
      const index = Math.max(0, state.index - 1);
      recall.current = { ...state, index };
      setDraft(props.history[index] ?? '');
      return;
    }
    if (event.key === 'ArrowDown' && recall.current && el.selectionStart === el.value.length) {
      event.preventDefault();
      const index = recall.current.index + 1;
      if (index >= props.history.length) {
        setDraft(recall.current.saved);
        recall.current = undefined;
      } else {
        recall.current = { ...recall.current, index };
        setDraft(props.history[index] ?? '');
      }
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey) {
      event.preventDefault();
      if (!busy) {
        recall.current = undefined;
        send();
      }
    }
  };

  const attachFiles = (files: Iterable<File>) => {
    for (const file of files) {
      if (!file.type.startsWith('image/')) continue;
      const refusal = imageRefusal(t, props.agent, session.accepts, file.type, file.size);
      if (refusal) {
        props.tell(refusal);
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const url = String(reader.result);
        const data = url.slice(url.indexOf(',') + 1);
        attachImage(file.name || t('pasted image'), file.type, data);
      };
      reader.readAsDataURL(file);
    }
  };
  const onPaste = (event: ClipboardEvent) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.some((f) => f.type.startsWith('image/'))) {
      event.preventDefault();
      attachFiles(files);
    }
  };
  const onDrop = (event: DragEvent) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length > 0) {
      event.preventDefault();
      attachFiles(files);
    }
  };

  const listId = 'completions';
  return (
    <div class="composer" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      {attachments.length > 0 && (
        <div class="chips" role="list" aria-label={t('Attached to your message')}>
          {attachments.map((a) => (
            <Chip key={a.id} kind={a.kind} label={a.label} onRemove={() => removeAttachment(a.id)} />
          ))}
        </div>
      )}
      <div class="input">
        {open && (
          <ul class="completions" id={listId} role="listbox" aria-label={completion?.kind === 'command' ? t('Commands') : t('Files')}>
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
          placeholder={props.agent ? t('Message {0} — / for commands, @ for files', props.agent) : t('Message the agent — / for commands, @ for files')}
          rows={3}
          value={draft}
          disabled={disabled}
          onInput={(event) => {
            const el = event.currentTarget;
            setDraft(el.value);
            setCaret(el.selectionStart);
            recall.current = undefined;
          }}
          onKeyUp={(event) => setCaret(event.currentTarget.selectionStart)}
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
          <button type="button" class="secondary" disabled={turn.phase === 'cancelling'} onClick={cancelTurn}>
            <span class="codicon codicon-debug-stop" aria-hidden="true" /> {t('Stop')}
          </button>
        ) : (
          <button type="button" class="primary" disabled={disabled || (draft.trim() === '' && attachments.length === 0)} onClick={send}>
            <span class="codicon codicon-send" aria-hidden="true" /> {t('Send')}
          </button>
        )}
      </div>
    </div>
  );
}

function Picker({ picker, disabled }: { picker: PickerView; disabled: boolean }) {
  if (picker.type === 'boolean') {
    return (
      <label class="picker toggle" title={picker.description}>
        <input
          type="checkbox"
          checked={picker.current}
          disabled={disabled}
          onChange={(e) => setConfig(picker.id, e.currentTarget.checked)}
        />
        {picker.name}
      </label>
    );
  }
  const groups = [...new Set(picker.options.map((o) => o.group))];
  const optionsOf = (group: string | undefined) =>
    picker.options
      .filter((o) => o.group === group)
      .map((o) => (
        <option key={o.value} value={o.value} title={o.description}>
          {o.name}
        </option>
      ));
  return (
    <select
      class="picker"
      aria-label={picker.name}
      title={picker.description ?? picker.name}
      value={picker.current}
      disabled={disabled}
      onChange={(e) => {
        const value = e.currentTarget.value;
        // The picker shows the agent's value until the agent confirms the change.
        e.currentTarget.value = picker.current;
        if (picker.target === 'mode') setMode(value);
        else setConfig(picker.id, value);
      }}
    >
      {groups.length > 1 || groups[0] !== undefined
        ? groups.map((g) => (
            <optgroup key={g ?? ''} label={g ?? ''}>
              {optionsOf(g)}
            </optgroup>
          ))
        : optionsOf(undefined)}
    </select>
  );
}
