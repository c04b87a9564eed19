// `@url`'s page fetching in plain Node, against a real loopback HTTP server: which URLs are refused (literal and
// resolved private addresses, redirects, plain http), the bounds, and what a page of HTML becomes.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { lookup } from 'node:dns/promises';
import { join } from 'node:path';
import { htmlToMarkdown } from '../../../src/composer/htmlText';
import { htmlToMarkdownApart } from '../../../src/composer/pageText';
import { decodePage, fetchPage, guardedLookup, isPrivateAddress, pageTitle, refusedPageUrl, vetPage } from '../../../src/composer/webPage';

/** The page worker as this bundle's build put it beside the tests (esbuild.mjs --tests). */
const WORKER = join(__dirname, '..', '..', '..', 'src', 'composer', 'pageWorker.js');
const toMarkdown = (html: string) => htmlToMarkdownApart(WORKER, html);

describe('@url pages', () => {
  it('refuses what is not a public https page unless private addresses are allowed, and says why', () => {
    assert.equal(refusedPageUrl('https://example.com/docs', false), undefined);
    for (const url of [
      'https://127.0.0.1/',
      'https://localhost:8080/',
      'https://[::1]/',
      'https://10.1.2.3/',
      'https://192.168.0.10/',
      'https://169.254.169.254/latest',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      'https://api.localhost/',
    ]) {
      assert.match(refusedPageUrl(url, false) ?? '', /private network; turn on the setting acp\.mentions\.allowPrivateUrls/, url);
      assert.equal(refusedPageUrl(url, true), undefined, `${url} with the setting on`);
    }
    assert.match(refusedPageUrl('http://example.com/', false) ?? '', /plain http; only https/);
    assert.match(refusedPageUrl('http://93.184.216.34/', true) ?? '', /plain http; only https/);
    assert.equal(refusedPageUrl('http://127.0.0.1:3000/', true), undefined);
    assert.equal(refusedPageUrl('http://wiki.corp/', true), undefined, 'a name: its addresses decide (vetPage)');
    assert.match(refusedPageUrl('file:///etc/passwd', true) ?? '', /only https pages are fetched, not file:/);
    assert.match(refusedPageUrl('https://u:p@example.com/', true) ?? '', /user name or password/);
    assert.match(refusedPageUrl('example', true) ?? '', /not a URL/);
  });

  it('knows the private, loopback, link-local and reserved ranges, IPv4-mapped included', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
    ])
      assert.ok(isPrivateAddress(ip), ip);
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', 'example.com']) assert.ok(!isPrivateAddress(ip), ip);
  });

  it('refuses a name that resolves to a private address where the connection is made', async () => {
    const refused = await new Promise<Error | null>((resolve) => guardedLookup(false)('localhost', { all: true }, (error) => resolve(error)));
    assert.match(refused?.message ?? '', /localhost resolves to .*a private address/);
    const allowed = await new Promise<unknown>((resolve) => guardedLookup(true)('localhost', {}, (_error, address) => resolve(address)));
    assert.ok(isPrivateAddress(String(allowed)), String(allowed));
  });

  it('checks what a name resolves to before each hop (a proxy resolves it itself): private without the setting, public over http', async () => {
    const resolving = (address: string) => (async () => [{ address, family: 4 }]) as unknown as typeof lookup;
    assert.match((await vetPage('https://intranet.example/', false, resolving('10.0.0.5'))) ?? '', /resolves to 10\.0\.0\.5, a private address/);
    assert.equal(await vetPage('https://intranet.example/', true, resolving('10.0.0.5')), undefined);
    assert.equal(await vetPage('https://example.com/', false, resolving('93.184.216.34')), undefined);
    assert.match((await vetPage('http://wiki.example/', true, resolving('93.184.216.34'))) ?? '', /plain http to 93\.184\.216\.34, on the internet/);
    assert.equal(await vetPage('http://wiki.corp/', true, resolving('10.1.1.1')), undefined);
  });

  it('decodes by the byte order mark, the header\u2019s charset, then the page\u2019s own meta charset', () => {
    const cafe = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    assert.equal(decodePage(cafe, 'iso-8859-1', false), 'café');
    assert.equal(decodePage(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), cafe]), undefined, true).endsWith('café'), true);
    assert.equal(decodePage(Buffer.from('\ufeffhi', 'utf16le'), undefined, false), 'hi');
    assert.equal(decodePage(Buffer.from('plain'), 'no-such-charset', false), 'plain');
  });

  it('converts in a worker that is stopped at its deadline, so a hostile page never holds the extension host', async () => {
    assert.equal(await htmlToMarkdownApart(WORKER, '<h1>Hi</h1>'), '# Hi');
    const deep = '<div>'.repeat(200_000);
    await assert.rejects(htmlToMarkdownApart(WORKER, deep, undefined, 300), /took longer than 0\.3 s to read|nests too deeply/);
  });

  it('turns HTML into Markdown without scripts, styles or forms, and reads the title', () => {
    const html =
      '<html><head><title>The &amp; Guide &#8211; v2</title><style>p{color:red}</style><script>steal()</script></head>' +
      '<body><h1>Install</h1><p>Run <code>npm ci</code>, then see <a href="https://example.com/next">the next page</a>.</p>' +
      '<pre><code>npm test</code></pre><form><input name="q"><button>Search</button></form><img src="x.png" alt="a diagram"></body></html>';
    const text = htmlToMarkdown(html);
    assert.match(text, /^# Install$/m);
    assert.match(text, /Run `npm ci`, then see \[the next page\]\(https:\/\/example\.com\/next\)\./);
    assert.match(text, /```\nnpm test\n```/);
    assert.match(text, /\[image: a diagram\]/);
    assert.doesNotMatch(text, /steal|color:red|Search|The & Guide/);
    assert.equal(pageTitle(html), 'The & Guide \u2013 v2');
  });

  describe('against a loopback server', () => {
    let server: Server;
    let base: string;
    const asked: string[] = [];
    before(async () => {
      server = createServer((req, res) => {
        asked.push(req.url ?? '');
        if (req.url === '/page') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end('<title>Loopback page</title><h2>Hello</h2><p>from the server</p>');
        } else if (req.url === '/latin') {
          res.writeHead(200, { 'content-type': 'text/plain; charset="iso-8859-1"' });
          res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        } else if (req.url === '/notes.txt') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('plain notes');
        } else if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('x'.repeat(3 * 1024 * 1024));
        } else if (req.url === '/binary') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.end(Buffer.alloc(10));
        } else if (req.url === '/to-plain') {
          res.writeHead(302, { location: 'http://93.184.216.34/' });
          res.end();
        } else if (req.url === '/to-page') {
          res.writeHead(301, { location: '/page' });
          res.end();
        } else {
          res.writeHead(404);
          res.end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => server.close());

    it('fetches a page, follows a redirect, and gives its text and where it ended', async () => {
      const page = await fetchPage(`${base}/to-page`, { allowPrivate: true, toMarkdown });
      assert.equal(page.url, `${base}/page`);
      assert.equal(page.title, 'Loopback page');
      assert.equal(page.text, '## Hello\n\nfrom the server');
      const notes = await fetchPage(`${base}/notes.txt`, { allowPrivate: true, toMarkdown });
      assert.deepEqual([notes.title, notes.text], ['notes.txt', 'plain notes']);
      assert.equal((await fetchPage(`${base}/latin`, { allowPrivate: true, toMarkdown })).text, 'café', 'a quoted charset');
    });

    it('never asks a private address without the setting, and refuses what is too large or not text', async () => {
      asked.length = 0;
      await assert.rejects(fetchPage(`${base}/page`, { allowPrivate: false, toMarkdown }), /private network/);
      assert.deepEqual(asked, [], 'nothing reached the server');
      await assert.rejects(fetchPage(`http://localhost:${new URL(base).port}/page`, { allowPrivate: false, toMarkdown }), /private network/);
      await assert.rejects(fetchPage(`${base}/big`, { allowPrivate: true, toMarkdown }), /over the limit of 2\.0 MB/);
      await assert.rejects(fetchPage(`${base}/binary`, { allowPrivate: true, toMarkdown }), /not a page of text \(application\/octet-stream\)/);
      await assert.rejects(fetchPage(`${base}/missing`, { allowPrivate: true, toMarkdown }), /the server answered 404/);
    });

    it('checks every redirect: a redirect may not send the fetch to plain http on the internet', async () => {
      await assert.rejects(
        fetchPage(`${base}/to-plain`, { allowPrivate: true, toMarkdown }),
        /a redirect was refused: 93\.184\.216\.34 is plain http/,
      );
    });

    it('stops when cancelled', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(fetchPage(`${base}/page`, { allowPrivate: true, toMarkdown, signal: controller.signal }), /cancelled/);
    });
  });
});
