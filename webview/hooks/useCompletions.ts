// The composer's completion list: slash commands from the agent, and workspace files (asked of the host) after an
// @. It follows the caret, takes Up, Down, Enter, Tab and Escape while it is open, and writes the choice into the
// draft.
import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CommandView, FileMatch, MentionKind, PromptView } from '../../src/chat/protocol';
import { t } from '../l10n';
import { listPrompts, mention, searchFiles, usePrompt } from '../intents';
import { commandDetail, completionAt, matchingCommands, replaceRange, stepOption, type Completion } from './completions';

interface Option {
  readonly id: string;
  readonly label: string;
  readonly detail: string;
  /** A codicon, for what an `@` option names. */
  readonly icon?: string;
  readonly apply: () => void;
}

/** A prompt file's line in the `/` list: its description, and that it is a prompt file (not the agent's command). */
function promptDetail(prompt: PromptView): string {
  const kind = prompt.source === 'workspace' ? t('prompt file (workspace)') : t('prompt file (yours)');
  return prompt.description ? `${prompt.description} — ${kind}` : kind;
}

/** The icon of each kind of `@` option. */
const MENTION_ICONS: Record<MentionKind, string> = {
  file: 'file',
  folder: 'folder',
  symbol: 'symbol-class',
  problems: 'warning',
  terminal: 'terminal',
  changes: 'git-compare',
  commit: 'git-commit',
  chat: 'comment-discussion',
  url: 'globe',
};

export interface Completions {
  readonly completion: Completion;
  readonly options: readonly Option[];
  /** The highlighted option while the list is open. */
  readonly current: Option | undefined;
  readonly setActive: (index: number) => void;
  /** Where the caret is in the box, told on every input, key and click. */
  readonly setCaret: (caret: number) => void;
  /** Takes a key meant for the open list; true when it did (the composer then leaves the key alone). */
  readonly onKeyDown: (event: KeyboardEvent) => boolean;
}

export function useCompletions(
  draft: string,
  setDraft: (text: string) => void,
  commands: readonly CommandView[],
  prompts: readonly PromptView[],
  files: { readonly requestId: number; readonly files: readonly FileMatch[] } | undefined,
  box: RefObject<HTMLTextAreaElement | null>,
): Completions {
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>();
  const searchId = useRef(0);

  const completion: Completion = dismissed === draft ? undefined : completionAt(draft, caret);
  const fileQuery = completion?.kind === 'file' ? completion.query : undefined;
  useEffect(() => {
    if (fileQuery === undefined) return;
    const requestId = ++searchId.current;
    searchFiles(requestId, fileQuery);
  }, [fileQuery]);

  // The prompt files are read again each time the `/` list opens: a file watcher can miss a change.
  const commandListOpen = completion?.kind === 'command';
  useEffect(() => {
    if (commandListOpen) listPrompts();
  }, [commandListOpen]);

  const options = useMemo<Option[]>(() => {
    if (!completion) return [];
    if (completion.kind === 'command') {
      // The agent's own commands, then the prompt files (which the host fills in and puts in the composer).
      const q = completion.query.toLowerCase();
      return [
        ...matchingCommands(commands, completion.query).map((c) => ({
          id: `cmd-${c.name}`,
          label: `/${c.name}`,
          detail: commandDetail(c),
          icon: 'zap',
          apply: () => replace(0, caret, `/${c.name} `),
        })),
        ...prompts
          .filter((p) => p.name.toLowerCase().startsWith(q))
          .map((p) => ({
            id: `prompt-${p.source}-${p.name}`,
            label: `/${p.name}`,
            detail: promptDetail(p),
            icon: 'note',
            apply: () => {
              replace(0, caret, '');
              usePrompt(p.name, p.source);
            },
          })),
      ];
    }
    // Only the answer to the latest search: an older one may arrive after it.
    const found = files && files.requestId === searchId.current ? files.files : [];
    return found.map((f) => ({
      id: `${f.kind}-${f.path}`,
      label: f.kind === 'folder' ? `${f.name}/` : f.name,
      detail: f.folder,
      icon: MENTION_ICONS[f.kind],
      apply: () => {
        // The draft names what was attached: a path for a file or folder, the word or the name otherwise.
        const named = f.kind === 'file' ? f.path : f.kind === 'folder' ? `${f.path}/` : f.name;
        replace(completion.start, caret, `@${named} `);
        mention(f.kind, f.path);
      },
    }));
  }, [completion?.kind, completion?.query, commands, prompts, files, caret, draft]);
  const open = options.length > 0;
  const current = open ? options[Math.min(active, options.length - 1)] : undefined;
  useEffect(() => setActive(0), [completion?.kind, completion?.query]);

  function replace(from: number, to: number, text: string) {
    const next = replaceRange(draft, from, to, text);
    setDraft(next.draft);
    setCaret(next.caret);
    // The caret goes after the inserted text once the box shows it, unless the user typed meanwhile: then the
    // caret is where their typing left it, and moving it back would scatter their next keys.
    requestAnimationFrame(() => {
      const el = box.current;
      if (el && el.value === next.draft) el.setSelectionRange(next.caret, next.caret);
    });
  }

  const onKeyDown = (event: KeyboardEvent): boolean => {
    if (!open || !current) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => stepOption(i, options.length, step));
      return true;
    }
    if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      current.apply();
      return true;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      setDismissed(draft);
      return true;
    }
    return false;
  };

  return { completion, options, current, setActive, setCaret, onKeyDown };
}
