// dist/page-text.js: a worker thread that turns one page of HTML (its `workerData`) into Markdown and posts it back,
// or the error. The extension host runs it apart (pageText.ts), with a deadline and bounded memory.
import { parentPort, workerData } from 'node:worker_threads';
import { htmlToMarkdown } from './htmlText';

try {
  parentPort?.postMessage({ markdown: htmlToMarkdown(String(workerData)) });
} catch (error) {
  parentPort?.postMessage({ error: error instanceof RangeError ? 'the page nests too deeply to read' : String(error) });
}
