// Waiting in tests without sleeping: poll a condition with a bound, or bound a promise. A fixed sleep either wastes
// time or flakes; these return as soon as the thing happened and fail with a sentence when it did not.

export interface WaitOptions {
  /** How long to keep polling (default 5000 ms). */
  readonly timeoutMs?: number;
  /** What is being waited for, for the error message. */
  readonly what?: string;
}

const tick = (attempt: number) =>
  new Promise<void>((resolve) => (attempt < 50 ? setImmediate(resolve) : setTimeout(resolve, Math.min(20, attempt - 49))));

/**
 * Polls `condition` until it returns a truthy value, and returns that value. A condition that throws counts as
 * "not yet"; the last error is quoted if time runs out. Polls on setImmediate first, then on short timers.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const last = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? describe(condition)}${last}`);
    }
    await tick(attempt);
  }
}

/** Settles like `promise`, or rejects with a clear error after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(condition: () => unknown): string {
  const source = String(condition).replace(/\s+/g, ' ');
  return source.length > 120 ? `${source.slice(0, 120)}…` : source;
}
