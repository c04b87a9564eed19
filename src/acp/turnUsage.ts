// The tokens a turn used, as the agent reports them in its `session/prompt` answer (unstable: `PromptResponse.usage`
// of schema.unstable.json). The answer's schema keeps unknown fields, so `usage` arrives as the agent wrote it: read
// here, strictly, and left out (with nothing said) when it is not a usage the schema describes.
import { z } from 'zod';

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const optionalCount = count.nullable().optional().catch(undefined);

const Usage = z.object({
  totalTokens: count,
  inputTokens: count,
  outputTokens: count,
  thoughtTokens: optionalCount,
  cachedReadTokens: optionalCount,
  cachedWriteTokens: optionalCount,
});

export interface TurnUsage {
  readonly total: number;
  readonly input: number;
  readonly output: number;
  readonly thought?: number;
  readonly cachedRead?: number;
  readonly cachedWrite?: number;
}

/** The usage in a prompt answer, or undefined when it has none the schema describes. */
export function turnUsageOf(response: unknown): TurnUsage | undefined {
  const raw = typeof response === 'object' && response !== null ? (response as Record<string, unknown>)['usage'] : undefined;
  const read = Usage.safeParse(raw);
  if (!read.success) return undefined;
  const u = read.data;
  return {
    total: u.totalTokens,
    input: u.inputTokens,
    output: u.outputTokens,
    ...(u.thoughtTokens != null ? { thought: u.thoughtTokens } : {}),
    ...(u.cachedReadTokens != null ? { cachedRead: u.cachedReadTokens } : {}),
    ...(u.cachedWriteTokens != null ? { cachedWrite: u.cachedWriteTokens } : {}),
  };
}
