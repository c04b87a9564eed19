// `@url`'s page fetching in plain Node, against a real loopback HTTP server: which URLs are refused (literal and
// resolved private addresses, redirects, plain http), the bounds, and what a page of HTML becomes.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchPage, guardedLookup, htmlToMarkdown, isPrivateAddress, pageTitle, refusedPageUrl } from '../../../src/chat/webPage';

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
    assert.match(refusedPageUrl('http://example.com/', true) ?? '', /plain http; only https/);
    assert.equal(refusedPageUrl('http://127.0.0.1:3000/', true), undefined);
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
          res.writeHead(302, { location: 'http://example.com/' });
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
      const page = await fetchPage(`${base}/to-page`, { allowPrivate: true });
      assert.equal(page.url, `${base}/page`);
      assert.equal(page.title, 'Loopback page');
      assert.equal(page.text, '## Hello\n\nfrom the server');
      const notes = await fetchPage(`${base}/notes.txt`, { allowPrivate: true });
      assert.deepEqual([notes.title, notes.text], ['notes.txt', 'plain notes']);
    });

    it('never asks a private address without the setting, and refuses what is too large or not text', async () => {
      asked.length = 0;
      await assert.rejects(fetchPage(`${base}/page`, { allowPrivate: false }), /private network/);
      assert.deepEqual(asked, [], 'nothing reached the server');
      await assert.rejects(fetchPage(`http://localhost:${new URL(base).port}/page`, { allowPrivate: false }), /private network/);
      await assert.rejects(fetchPage(`${base}/big`, { allowPrivate: true }), /over the limit of 2\.0 MB/);
      await assert.rejects(fetchPage(`${base}/binary`, { allowPrivate: true }), /not a page of text \(application\/octet-stream\)/);
      await assert.rejects(fetchPage(`${base}/missing`, { allowPrivate: true }), /the server answered 404/);
    });

    it('checks every redirect: a redirect may not send the fetch to plain http on the internet', async () => {
      await assert.rejects(fetchPage(`${base}/to-plain`, { allowPrivate: true }), /a redirect was refused: example\.com is plain http/);
    });

    it('stops when cancelled', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(fetchPage(`${base}/page`, { allowPrivate: true, signal: controller.signal }), /cancelled/);
    });
  });
});
