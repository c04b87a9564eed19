// Turns a page of HTML into Markdown in a worker thread (dist/page-text.js, pageWorker.ts): the conversion of a
// hostile page can take long (deep nesting is quadratic in the parser) or recurse deeply, so it runs apart, bounded
// in time (stopped at the deadline) and in memory, and the extension host's thread never waits for it.
import { Worker } from 'node:worker_threads';

/** The conversion is stopped after this long. */
const CONVERT_TIMEOUT_MS = 10_000;

/** Markdown of `html`, converted by the worker at `workerFile`; throws with a sentence when it cannot. */
export function htmlToMarkdownApart(workerFile: string, html: string, signal?: AbortSignal, timeoutMs = CONVERT_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: html, resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 8 } });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`the page took longer than ${timeoutMs / 1000} s to read`))), timeoutMs);
    const cancel = () => settle(() => reject(new Error('cancelled')));
    signal?.addEventListener('abort', cancel, { once: true });
    worker.on('message', (answer: { markdown?: unknown; error?: unknown }) =>
      settle(() =>
        typeof answer.markdown === 'string' ? resolve(answer.markdown) : reject(new Error(String(answer.error ?? 'the page could not be read'))),
      ),
    );
    worker.on('error', (error) => settle(() => reject(new Error(`the page could not be read (${error.message})`))));
    worker.on('exit', (code) => settle(() => reject(new Error(`the page could not be read (the reader stopped with ${code})`))));
  });
}
