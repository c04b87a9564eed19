// Up and Down through the user's earlier prompts. Pure: no DOM, unit-tested in plain Node; usePromptHistory decides
// when the keys mean recall (the caret at the start or the end of the box).

/** Where the recall is: the prompt shown (an index into the history), and the draft to go back to past the newest. */
export interface Recall {
  readonly index: number;
  readonly saved: string;
}

/**
 * One prompt further back (Up): from the draft (`recall` undefined) to the newest prompt, then older ones, stopping
 * at the oldest. Undefined when there is no history.
 */
export function recallOlder(
  history: readonly string[],
  recall: Recall | undefined,
  draft: string,
): { readonly recall: Recall; readonly draft: string } | undefined {
  if (history.length === 0) return undefined;
  const from = recall ?? { index: history.length, saved: draft };
  const index = Math.max(0, from.index - 1);
  return { recall: { ...from, index }, draft: history[index] ?? '' };
}

/** One prompt forward (Down): newer prompts, then past the newest back to the saved draft, and recall ends. */
export function recallNewer(history: readonly string[], recall: Recall): { readonly recall: Recall | undefined; readonly draft: string } {
  const index = recall.index + 1;
  if (index >= history.length) return { recall: undefined, draft: recall.saved };
  return { recall: { ...recall, index }, draft: history[index] ?? '' };
}
