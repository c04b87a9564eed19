// An agent's URL (an `acp.agents` entry's `url`): which ones are taken and how each transport's failures are said.
// WebSocket (`ws://`, `wss://`, socket.ts) or Streamable HTTP (`http://`, `https://`, httpLink.ts); TLS is required
// off this machine, and a URL that cannot be used is said, never fallen back from.
import { AgentDisconnectedError, type DisconnectReason } from './errors';

/** An agent at a URL, and what goes with its requests (the user's token, as `Authorization`). */
export interface AgentRemote {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The reasons a TLS handshake fails on the certificate (Node's codes). */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EAI_AGAIN',
]);

/**
 * Whether `hostname` is this machine by name alone: `localhost`, `127.0.0.1` or `::1`. No other name (a
 * `*.localhost` asks DNS on some systems) and no other 127/8 address (VS Code's proxy goes direct for these three only,
 * and a plain connection through a proxy would carry the token in the clear).
 */
function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '127.0.0.1' || h === '::1';
}

/**
 * Reads an agent's URL: which transport it names (`ws`: WebSocket, `http`: Streamable HTTP), and its host as questions
 * name it. Plain `ws://` and `http://` are taken on this machine only.
 */
export function readAgentUrl(
  raw: string,
): { url: URL; host: string; transport: 'ws' | 'http' } | { problem: Exclude<DisconnectReason, 'closed'>; host: string; detail: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'error', host: raw.slice(0, 200), detail: 'it is not a URL' };
  }
  const host = url.host;
  if (url.username || url.password) return { problem: 'error', host, detail: 'a URL may not hold a user name or password; set a token instead' };
  const transport =
    url.protocol === 'ws:' || url.protocol === 'wss:' ? 'ws' : url.protocol === 'http:' || url.protocol === 'https:' ? 'http' : undefined;
  if (!transport) return { problem: 'error', host, detail: `${url.protocol} is not a WebSocket or HTTP URL` };
  if ((url.protocol === 'ws:' || url.protocol === 'http:') && !isLoopback(url.hostname)) return { problem: 'insecure', host, detail: '' };
  return { url, host, transport };
}

/** How a connection attempt or a connection failed, from Node's, `ws`'s or the SDK's error. */
export function failureOfConnection(error: unknown, host: string): AgentDisconnectedError {
  const e = error as { code?: unknown; status?: unknown; name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const message = typeof e?.message === 'string' ? e.message.slice(0, 500) : String(error).slice(0, 500);
  const status = e?.status;
  if (status === 401 || status === 403) return new AgentDisconnectedError('unauthorized', host, `HTTP ${status}`);
  // Another status on the way in (a 404, a gateway's 502): the SDK's words, with the start of the server's body.
  if (typeof status === 'number') return new AgentDisconnectedError('error', host, message.slice(0, 300));
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  // The cause's words where it has them (fetch says only "fetch failed").
  const detail = typeof e?.cause?.message === 'string' ? e.cause.message.slice(0, 500) : message;
  if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' || e?.name === 'MessageTooLargeError')
    return new AgentDisconnectedError('frameTooLarge', host, '');
  if (CERTIFICATE_CODES.has(code)) return new AgentDisconnectedError('certificate', host, detail);
  // fetch's words when the server closed the socket under a request or an event stream: the connection closed.
  if (code === 'UND_ERR_SOCKET') return new AgentDisconnectedError('closed', host, '');
  if (UNREACHABLE_CODES.has(code)) return new AgentDisconnectedError('unreachable', host, detail);
  if (/handshake has timed out/i.test(message)) return new AgentDisconnectedError('unresponsive', host, message);
  return new AgentDisconnectedError('error', host, detail);
}
