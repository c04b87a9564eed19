// Up at the start of the composer recalls earlier prompts; Down at the end goes back towards the draft. Typing or
// sending ends the recall.
import { useRef } from 'preact/hooks';
import { recallNewer, recallOlder, type Recall } from './promptHistory';

export interface PromptHistory {
  /** Takes Up or Down when it means recall; true when it did. */
  readonly onKeyDown: (event: KeyboardEvent) => boolean;
  /** Ends the recall: the next Up starts again from the newest prompt and saves the draft. */
  readonly reset: () => void;
}

export function usePromptHistory(history: readonly string[], draft: string, setDraft: (text: string) => void): PromptHistory {
  const recall = useRef<Recall | undefined>(undefined);

  const onKeyDown = (event: KeyboardEvent): boolean => {
    const el = event.currentTarget as HTMLTextAreaElement;
    if (event.key === 'ArrowUp' && !event.altKey && !event.ctrlKey && !event.metaKey && el.selectionStart === 0 && el.selectionEnd === 0) {
      const older = recallOlder(history, recall.current, draft);
      if (older) {
        event.preventDefault();
        recall.current = older.recall;
        setDraft(older.draft);
        return true;
      }
    }
    if (event.key === 'ArrowDown' && recall.current && el.selectionStart === el.value.length) {
      event.preventDefault();
      const newer = recallNewer(history, recall.current);
      recall.current = newer.recall;
      setDraft(newer.draft);
      return true;
    }
    return false;
  };
  const reset = () => {
    recall.current = undefined;
  };
  return { onKeyDown, reset };
}
