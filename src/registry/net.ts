// Which URLs the registry and its downloads may fetch (`https:`, and plain http only to this machine for a registry
// on this machine), over the bounded GET of common/http.ts. Plain Node.
import { isIP } from 'node:net';
import * as http from '../common/http';

/**
 * Why a URL is refused, or undefined when it may be fetched: `https:`, or `http:` to a loopback address when
 * `loopbackHttp` allows it (only where the registry itself is on this machine: a registry served over https, or a
 * redirect from one, may not point at a server of this machine over plain http).
 */
export function refusedUrl(raw: string, loopbackHttp = true): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${short(raw)}" is not a URL`;
  }
  if (url.username || url.password) return `${url.origin} carries a user name or password, which is never sent`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) {
    return loopbackHttp ? undefined : `${url.origin} is plain http on this machine, which is fetched only for a registry on this machine`;
  }
  if (url.protocol === 'http:') return `${url.origin} is plain http, which is only fetched from this machine (localhost); use https`;
  return `${short(raw)} is not an https URL`;
}

/** True for a URL whose host is this machine (the registry's, to allow plain http to loopback). */
export function isLoopbackUrl(raw: string): boolean {
  try {
    return isLoopback(new URL(raw).hostname);
  } catch {
    return false;
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function short(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** GET with the body in memory (bounded): for the registry document. A 304 has an empty body. */
export function getBuffer(
  url: string,
  bounds: http.RequestBounds,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<http.Response & { body: Buffer }> {
  // The registry's own URL decides: plain http to this machine only for a registry on this machine.
  const loopbackHttp = isLoopbackUrl(url);
  return http.getBuffer(url, bounds, { ...options, refused: (u) => refusedUrl(u, loopbackHttp) });
}

/** GET into a file (bounded): for archives. `progress` gets the bytes so far and the total when the server says it. */
export function download(
  url: string,
  file: string,
  bounds: http.RequestBounds,
  options: {
    signal?: AbortSignal;
    progress?: (received: number, total: number | undefined) => void;
    /** Plain http to this machine is allowed: the registry that listed the download is on this machine. */
    loopbackHttp?: boolean;
  } = {},
): Promise<http.Response> {
  const loopbackHttp = options.loopbackHttp === true;
  return http.download(url, file, bounds, {
    signal: options.signal,
    ...(options.progress ? { progress: options.progress } : {}),
    refused: (u) => refusedUrl(u, loopbackHttp),
  });
}
