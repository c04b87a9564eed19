// HTTP GET for what the extension downloads (the registry and its archives, a page `@url` names): the caller's policy
// on which URLs may be fetched, applied to redirects hop by hop, bounded sizes, an idle and an overall timeout, and
// cancellation. node:http(s) rather than fetch, because the extension host patches these modules with VS Code's
// proxy settings. Plain Node.
import { createWriteStream } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

export class RefusedUrlError extends Error {
  override readonly name = 'RefusedUrlError';
}

class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

export interface RequestBounds {
  /** The most bytes the body may have. */
  readonly maxBytes: number;
  /** No byte for this long ends the request. */
  readonly idleTimeoutMs: number;
  /** The whole request, redirects and body included, ends after this long. */
  readonly totalTimeoutMs: number;
}

export interface Response {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly url: string;
}

const MAX_REDIRECTS = 5;

/** What may be fetched, and how. */
export interface RequestOptions {
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal | undefined;
  /** Why a URL (the first, or a redirect's) is refused, or undefined when it may be fetched. */
  readonly refused: (url: string) => string | undefined;
  /** Resolves a host name (as `dns.lookup` does) where the addresses it may connect to are checked. */
  readonly lookup?: LookupFunction;
  /** Why a URL is refused, found asynchronously (what its name resolves to, say) before each hop is asked. */
  readonly vet?: (url: string) => Promise<string | undefined>;
  /** A connection of its own for each hop: never a pooled one, opened for another request without this `lookup`. */
  readonly fresh?: boolean;
}

/** GET with the body in memory (bounded). A 304 has an empty body. */
export async function getBuffer(url: string, bounds: RequestBounds, options: RequestOptions): Promise<Response & { body: Buffer }> {
  const chunks: Buffer[] = [];
  const response = await request(url, bounds, options, async (stream) => {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  });
  return { ...response, body: Buffer.concat(chunks) };
}

/** GET into a file (bounded). `progress` gets the bytes so far and the total when the server says it. */
export async function download(
  url: string,
  file: string,
  bounds: RequestBounds,
  options: RequestOptions & { progress?: (received: number, total: number | undefined) => void },
): Promise<Response> {
  const response = await request(url, bounds, options, async (stream, total) => {
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        options.progress?.(received, total);
        done(null, chunk);
      },
    });
    await pipeline(stream, counter, createWriteStream(file, { mode: 0o600 }));
  });
  if (response.status !== 200) throw new DownloadError(`the server answered ${response.status} for ${new URL(response.url).pathname}`);
  return response;
}

type BodyReader = (body: NodeJS.ReadableStream, total: number | undefined) => Promise<void>;

async function request(url: string, bounds: RequestBounds, options: RequestOptions, read: BodyReader): Promise<Response> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  if (options.signal?.aborted) abort();
  let timedOut: string | undefined;
  const total = setTimeout(() => {
    timedOut = `it took longer than ${Math.round(bounds.totalTimeoutMs / 1000)} s`;
    controller.abort();
  }, bounds.totalTimeoutMs);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const refused = options.refused(current) ?? (await options.vet?.(current));
      if (refused) throw new RefusedUrlError(hop === 0 ? refused : `a redirect was refused: ${refused}`);
      if (controller.signal.aborted) throw new DownloadError('cancelled');
      const result = await once(current, bounds, options, controller.signal, read, (why) => (timedOut = why));
      if ('location' in result) {
        if (hop >= MAX_REDIRECTS) throw new DownloadError(`${new URL(url).host} redirected more than ${MAX_REDIRECTS} times`);
        current = new URL(result.location, current).toString();
        continue;
      }
      return result;
    }
  } catch (error) {
    if (timedOut) throw new DownloadError(`the download was stopped: ${timedOut}`);
    if (options.signal?.aborted) throw new DownloadError('cancelled');
    throw error;
  } finally {
    clearTimeout(total);
    options.signal?.removeEventListener('abort', abort);
  }
}

/** One request: a redirect's location, or the response with its body read by `read`. */
function once(
  url: string,
  bounds: RequestBounds,
  options: RequestOptions,
  signal: AbortSignal,
  read: BodyReader,
  timeout: (why: string) => void,
): Promise<Response | { location: string }> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const lookup = options.lookup ? { lookup: options.lookup } : {};
    const agent = options.fresh ? { agent: false as const } : {};
    const req = get(url, { headers: { 'user-agent': 'acp-client-vscode', ...options.headers }, signal, ...lookup, ...agent }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && status !== 304 && location) {
        res.resume();
        resolve({ location });
        return;
      }
      if (status !== 200) {
        res.resume();
        resolve({ status, headers: res.headers, url });
        return;
      }
      const length = Number(res.headers['content-length']);
      const claimed = Number.isFinite(length) && length >= 0 ? length : undefined;
      if (claimed !== undefined && claimed > bounds.maxBytes) {
        req.destroy();
        reject(new DownloadError(`it is ${megabytes(claimed)}, over the limit of ${megabytes(bounds.maxBytes)}`));
        return;
      }
      let received = 0;
      const bounded = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          if (received > bounds.maxBytes) done(new DownloadError(`it is over the limit of ${megabytes(bounds.maxBytes)}`));
          else done(null, chunk);
        },
        flush(done) {
          // A server that closes early has sent a truncated body: never take it for the whole.
          if (claimed !== undefined && received < claimed) done(new DownloadError(`the connection closed after ${received} of ${claimed} bytes`));
          else done();
        },
      });
      const cut = () => new DownloadError(`the connection closed after ${received}${claimed !== undefined ? ` of ${claimed}` : ''} bytes`);
      res.on('close', () => {
        if (!res.complete) bounded.destroy(cut());
      });
      res.on('error', (error) => bounded.destroy(res.complete ? error : cut()));
      res.pipe(bounded);
      read(bounded, claimed).then(() => resolve({ status, headers: res.headers, url }), reject);
    });
    req.setTimeout(bounds.idleTimeoutMs, () => {
      timeout(`nothing arrived for ${Math.round(bounds.idleTimeoutMs / 1000)} s`);
      req.destroy(new DownloadError('timed out'));
    });
    req.on('error', reject);
  });
}

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
