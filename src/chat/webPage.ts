// `@url`: a web page fetched from this computer and turned into text (Markdown, by turndown) for the agent. Which
// URLs may be fetched: https; a loopback or private address (named, or what a name resolves to, checked where the
// connection is made, for every redirect) only when the user's setting allows it, and then plain http too.
// Bounded in bytes and time. Plain Node: the extension host patches node:http(s) with VS Code's proxy settings.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import TurndownService from 'turndown';
import { getBuffer, type RequestBounds } from '../common/http';

/** At most this much of a page is read, over at most this long. */
const PAGE_BOUNDS: RequestBounds = { maxBytes: 2 * 1024 * 1024, idleTimeoutMs: 15_000, totalTimeoutMs: 30_000 };

/** What a fetched page becomes. */
export interface WebPage {
  /** Where it was in the end, after redirects. */
  readonly url: string;
  readonly title: string;
  /** Markdown for a page of HTML; the text itself for plain text, Markdown, JSON or XML. */
  readonly text: string;
}

/** Addresses that are not the public internet: this machine, private networks, link-local, and the reserved ranges. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3], // multicast, reserved and broadcast
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind it
  ['2002::', 16], // 6to4: likewise
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** True for an address of this machine or a private, link-local or reserved network (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const SETTING_HINT = 'turn on the setting acp.mentions.allowPrivateUrls to fetch it';

/** Why `raw` may not be fetched (a sentence), or undefined when it may. */
export function refusedPageUrl(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'that is not a URL';
  }
  if (url.username || url.password) return 'a URL with a user name or password is not fetched';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `only https pages are fetched, not ${url.protocol}`;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local = host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host);
  if (local && !allowPrivate) return `${url.host} is on this machine or a private network; ${SETTING_HINT}`;
  if (url.protocol === 'http:' && !local) return `${url.host} is plain http; only https pages are fetched`;
  return undefined;
}

/**
 * A `dns.lookup` that refuses a name resolving to a private address (unless allowed): the check is made on the
 * addresses the connection uses, so a name cannot pass a check and then resolve elsewhere.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (refused)
        return callback(
          Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private address; ${SETTING_HINT}`), { code: 'EPRIVATE' }),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Fetches `url` (checked with `refusedPageUrl` at every hop) and turns it into text. Throws with a sentence. */
export async function fetchPage(url: string, options: { allowPrivate: boolean; signal?: AbortSignal }): Promise<WebPage> {
  const response = await getBuffer(url, PAGE_BOUNDS, {
    headers: { accept: 'text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.5, */*;q=0.1' },
    signal: options.signal,
    refused: (u) => refusedPageUrl(u, options.allowPrivate),
    lookup: guardedLookup(options.allowPrivate),
  });
  if (response.status !== 200) throw new Error(`the server answered ${response.status}`);
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  const mime = type.split(';')[0]!.trim();
  const body = decode(response.body, /charset=([^;\s]+)/.exec(type)?.[1]);
  if (mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && /^\s*<(!doctype html|html)/i.test(body))) {
    return { url: response.url, title: pageTitle(body) || new URL(response.url).host, text: htmlToMarkdown(body) };
  }
  if (mime.startsWith('text/') || /^application\/([\w.+-]+\+)?(json|xml)$/.test(mime)) {
    return { url: response.url, title: new URL(response.url).pathname.split('/').filter(Boolean).pop() ?? new URL(response.url).host, text: body };
  }
  throw new Error(`it is not a page of text (${mime || 'no type given'})`);
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // a charset the decoder does not know
  }
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of the page's `<title>`, on one line, bounded. */
export function pageTitle(html: string): string {
  const match = /<title[^>]*>([^<]{0,2000})/i.exec(html.slice(0, 256 * 1024));
  return (match?.[1] ?? '')
    .replace(/&#(\d{1,7});|&#x([0-9a-f]{1,6});/gi, (whole, dec?: string, hex?: string) => {
      const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_whole, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

const LEFT_OUT = new Set([
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
  'button',
  'select',
]);

/** The page's content as Markdown: what it says and links to, without scripts, styles, forms or embedded objects. */
export function htmlToMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove((node) => LEFT_OUT.has(node.nodeName.toLowerCase()));
  // Images carry no text the agent can use beyond their description.
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => ((node as HTMLElement).getAttribute('alt') ? `[image: ${(node as HTMLElement).getAttribute('alt')}]` : ''),
  });
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
