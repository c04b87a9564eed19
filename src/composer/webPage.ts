// `@url`: a web page fetched from the machine the extension runs on and turned into text (Markdown) for the agent.
// Which URLs may be fetched: https to the public internet. A loopback or private address is refused unless the
// user's setting allows it, checked on the name (`refusedPageUrl`), on what the name resolves to before each hop
// (`vetPage`: through a proxy, the proxy connects, so this is what is checked) and on the addresses a direct
// connection uses (`guardedLookup`, on a connection of its own); with the setting, plain http is allowed to such
// addresses only. Bounded in bytes and time; the HTML is converted apart (pageText.ts). Plain Node: the extension
// host patches node:http(s) with VS Code's proxy settings.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
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
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** The 16 bytes of an IPv6 address (`::` and a dotted IPv4 tail included); undefined when it is not one. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address inside a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address, which is where it really goes. */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const nat64 = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0].every((b, i) => bytes[i] === b);
  if (nat64) return bytes.slice(12).join('.');
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6).join('.');
  return undefined;
}

/** True for an address of this machine or a private, link-local or reserved network (IPv4 inside IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  const inside = embeddedIpv4(address);
  return inside !== undefined ? PRIVATE.check(inside, 'ipv4') : PRIVATE.check(address, 'ipv6');
}

const SETTING_HINT = 'turn on the setting acp.mentions.allowPrivateUrls to fetch it';

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Why `raw` may not be fetched (a sentence), or undefined when it may, as far as its text tells. */
export function refusedPageUrl(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'that is not a URL';
  }
  if (url.username || url.password) return 'a URL with a user name or password is not fetched';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `only https pages are fetched, not ${url.protocol}`;
  const host = hostOf(url);
  const local = host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host);
  if (local && !allowPrivate) return `${url.host} is on this machine or a private network; ${SETTING_HINT}`;
  // Plain http only where the setting allows private addresses (a name: vetPage checks it resolves to one).
  if (url.protocol === 'http:' && (!allowPrivate || (isIP(host) !== 0 && !local))) return `${url.host} is plain http; only https pages are fetched`;
  return undefined;
}

/**
 * Why `raw` may not be fetched, from the addresses its name resolves to: a private one without the setting, or a
 * public one over plain http. Checked before each hop, so a request through a proxy (which resolves the name itself)
 * is checked too.
 */
export async function vetPage(raw: string, allowPrivate: boolean, resolve = lookupAll): Promise<string | undefined> {
  const url = new URL(raw);
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : (await resolve(host, { all: true })).map((a) => a.address);
  } catch {
    // A name this machine cannot resolve (a proxy may): the proxy decides, and the connection's own check stays.
    return undefined;
  }
  const inside = addresses.find((a) => isPrivateAddress(a));
  if (inside && !allowPrivate) return `${url.host} resolves to ${inside}, a private address; ${SETTING_HINT}`;
  const outside = addresses.find((a) => !isPrivateAddress(a));
  if (url.protocol === 'http:' && outside) return `${url.host} is plain http to ${outside}, on the internet; only https pages are fetched there`;
  return undefined;
}

/**
 * A `dns.lookup` that refuses a name resolving to a private address (unless allowed): the check is made on the
 * addresses a direct connection uses, so a name cannot pass `vetPage` and then resolve elsewhere.
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

/** Fetches `url` (checked at every hop) and turns it into text; `toMarkdown` converts HTML. Throws with a sentence. */
export async function fetchPage(
  url: string,
  options: { allowPrivate: boolean; toMarkdown: (html: string) => Promise<string>; signal?: AbortSignal },
): Promise<WebPage> {
  const response = await getBuffer(url, PAGE_BOUNDS, {
    headers: { accept: 'text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.5, */*;q=0.1' },
    signal: options.signal,
    refused: (u) => refusedPageUrl(u, options.allowPrivate),
    vet: (u) => vetPage(u, options.allowPrivate),
    lookup: guardedLookup(options.allowPrivate),
    fresh: true,
  });
  if (response.status !== 200) throw new Error(`the server answered ${response.status}`);
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  const mime = type.split(';')[0]!.trim();
  const html = mime === 'text/html' || mime === 'application/xhtml+xml';
  const body = decodePage(response.body, /charset\s*=\s*["']?([^;"'\s]+)/.exec(type)?.[1], html);
  const fallbackTitle = new URL(response.url).host;
  if (html || (mime === '' && /^\s*<(!doctype html|html)/i.test(body))) {
    return { url: response.url, title: pageTitle(body) || fallbackTitle, text: await options.toMarkdown(body) };
  }
  if (mime.startsWith('text/') || /^application\/([\w.+-]+\+)?(json|xml)$/.test(mime)) {
    return { url: response.url, title: new URL(response.url).pathname.split('/').filter(Boolean).pop() ?? fallbackTitle, text: body };
  }
  throw new Error(`it is not a page of text (${mime || 'no type given'})`);
}

/**
 * The page's text: by its byte order mark, else the charset its header names, else (HTML) the one its first 1,024
 * bytes declare in a `<meta>`, else UTF-8.
 */
export function decodePage(body: Buffer, headerCharset: string | undefined, html: boolean): string {
  let charset = headerCharset;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) charset = 'utf-8';
  else if (body[0] === 0xff && body[1] === 0xfe) charset = 'utf-16le';
  else if (body[0] === 0xfe && body[1] === 0xff) charset = 'utf-16be';
  else if (!charset && html) charset = /<meta[^>]{0,200}?charset\s*=\s*["']?([\w-]{1,40})/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // a charset the decoder does not know
  }
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of the page's `<title>`, on one line, bounded. Linear: every repetition in the pattern is bounded. */
export function pageTitle(html: string): string {
  const match = /<title\b[^>]{0,200}>([^<]{0,2000})/i.exec(html.slice(0, 256 * 1024));
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
