import * as assert from 'node:assert/strict';
import { rankFiles } from '../../../src/composer/fuzzy';
import { linkTarget } from '../../../src/chat/links';
import { buildPrompt, type Attachment } from '../../../src/composer/prompt';
import { imageRefusal } from '../../../src/chat/protocol';
import { t } from '../../../webview/l10n';
import { renderMarkdown } from '../../../webview/markdown';

describe('links in agent text', () => {
  it('sends web and mail links to the opener, and files (with a line) to the editor', () => {
    assert.deepEqual(linkTarget('https://example.com/a b', '/w'), { kind: 'web', uri: 'https://example.com/a%20b' });
    assert.deepEqual(linkTarget('mailto:a@b.c', '/w'), { kind: 'web', uri: 'mailto:a@b.c' });
    assert.deepEqual(linkTarget('src/app.ts#L12', '/w'), { kind: 'file', path: '/w/src/app.ts', line: 12 });
    assert.deepEqual(linkTarget('src/app.ts:7:3', '/w'), { kind: 'file', path: '/w/src/app.ts', line: 7 });
    assert.deepEqual(linkTarget('file:///w/a%20b.ts#L3', '/w'), { kind: 'file', path: '/w/a b.ts', line: 3 });
    assert.deepEqual(linkTarget('/etc/hosts', '/w'), { kind: 'file', path: '/etc/hosts' }, 'the host checks the workspace');
  });

  it('refuses every other scheme', () => {
    for (const href of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'command:workbench.action.terminal.new',
      'vscode://x',
      'data:text/html,x',
      ' ',
    ]) {
      assert.equal(linkTarget(href, '/w').kind, 'refused', href);
    }
    assert.equal(linkTarget('relative.ts', undefined).kind, 'refused', 'a relative path needs the chat folder');
  });

  it('refuses a link with bidirectional-text controls, written or percent-encoded', () => {
    for (const href of [
      'https://example.com/\u202Egpj.exe',
      'https://example.com/%E2%80%AEgpj.exe',
      'src/\u2066a.ts',
      'mailto:a@b.c?subject=\u200F',
      'file:///w/a%e2%81%a9.ts',
    ]) {
      const target = linkTarget(href, '/w');
      assert.equal(target.kind, 'refused', href);
      assert.match(target.kind === 'refused' ? target.reason : '', /direction of text/);
    }
  });

  it('passes a mail link on with its address, subject, body, cc and bcc only', () => {
    assert.deepEqual(
      linkTarget(
        'mailto:a@b.c?subject=Hi%20there&attach=/etc/passwd&Attachment=~/.ssh/id_rsa&%61ttach=x&body=See&cc=d@e.f&bcc=g@h.i&x-other=1',
        '/w',
      ),
      {
        kind: 'web',
        uri: 'mailto:a@b.c?subject=Hi%20there&body=See&cc=d@e.f&bcc=g@h.i',
      },
    );
    assert.deepEqual(linkTarget('MAILTO:a@b.c?attach=/etc/passwd#x', '/w'), { kind: 'web', uri: 'mailto:a@b.c' });
  });
});

describe('agent markdown', () => {
  it('shows HTML as text and links only safe schemes', () => {
    const html = renderMarkdown(
      '<img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](command:x) [c](https://e.com) [d](src/a.ts#L2) ![i](https://e.com/i.png)',
    );
    assert.ok(!html.includes('<img'), html);
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!/href="(javascript|command):/i.test(html), html);
    assert.ok(html.includes('href="https://e.com"'));
    assert.ok(html.includes('href="src/a.ts#L2"'));
  });

  it('links nothing whose address has bidirectional-text controls, and shows them by name in link text', () => {
    const html = renderMarkdown(
      '[invoice\u202Egpj.exe](https://e.com/a.exe) [x](https://e.com/\u202Ea) [`\u2067y`](https://e.com) https://e.com/\u202Eb and \u202Eplain',
    );
    assert.ok(html.includes('>invoice[U+202E]gpj.exe</a>'), html);
    assert.ok(html.includes('<code>[U+2067]y</code></a>'), html);
    assert.ok(!/href="[^"]*(\u202E|%E2%80%AE)/i.test(html), html);
    assert.ok(html.includes('\u202Eplain'), 'outside links, right-to-left text keeps its controls');
  });

  it('highlights fenced code by language, with Copy and Insert buttons, and escapes an unknown language', () => {
    const html = renderMarkdown('```ts\nconst a = "<b>";\n```\n\n```"><script>\nx\n```');
    assert.ok(html.includes('class="hljs language-ts"'));
    assert.ok(html.includes('<span class="hljs-keyword">const</span>'));
    assert.ok(html.includes('&lt;b&gt;'));
    assert.ok(html.includes('aria-label="Copy ts"') && html.includes('aria-label="Insert ts at Cursor"'));
    assert.ok(!html.includes('<script>'), html);
  });
});

describe('file mentions', () => {
  const files = ['src/app.ts', 'src/components/AppHeader.tsx', 'test/app.test.ts', 'README.md', 'docs/apps/notes.md'];
  it('ranks the file name first, then the path, then letters in order', () => {
    assert.equal(rankFiles('app.ts', files, 1)[0], 'src/app.ts');
    assert.equal(rankFiles('readme', files, 1)[0], 'README.md');
    assert.equal(rankFiles('apphdr', files, 1)[0], 'src/components/AppHeader.tsx');
    assert.deepEqual(rankFiles('zzz', files, 5), []);
    assert.equal(rankFiles('', files, 2).length, 2);
  });
});

describe('the prompt a message becomes', () => {
  const file: Attachment = { id: '1', kind: 'file', path: '/w/src/a.ts', label: 'src/a.ts' };
  const selection: Attachment = {
    id: '2',
    kind: 'selection',
    path: '/w/src/b.ts',
    label: 'src/b.ts:3-4',
    text: 'x ```y```',
    startLine: 3,
    endLine: 4,
    languageId: 'typescript',
  };
  const image: Attachment = { id: '3', kind: 'image', label: 'shot.png', mimeType: 'image/png', data: 'AAAA' };
  const text = new Map([['/w/src/a.ts', 'buffer text']]);

  it('embeds files and selections when the agent accepts embedded context', () => {
    assert.deepEqual(buildPrompt('look', [file, selection, image], text, { image: true, embeddedContext: true }), [
      { type: 'text', text: 'look' },
      { type: 'resource', resource: { uri: 'file:///w/src/a.ts', text: 'buffer text' } },
      { type: 'resource', resource: { uri: 'file:///w/src/b.ts#L3-L4', text: 'x ```y```' } },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ]);
  });

  it('links files and quotes selections otherwise, and leaves out what the agent does not accept', () => {
    const blocks = buildPrompt('look', [file, selection, image], text, { image: false, embeddedContext: false });
    assert.deepEqual(blocks[1], { type: 'resource_link', uri: 'file:///w/src/a.ts', name: 'a.ts' });
    assert.equal(blocks[2]?.type, 'text');
    assert.ok(
      blocks[2]?.type === 'text' && blocks[2].text.includes('src/b.ts:3-4:\n````typescript\nx ```y```\n````'),
      'the fence is longer than any run of backticks inside',
    );
    assert.deepEqual(blocks[3], { type: 'resource_link', uri: 'file:///w/src/b.ts', name: 'b.ts' });
    assert.equal(blocks.length, 4, 'no image');
    assert.deepEqual(buildPrompt('  ', [], text, { image: false, embeddedContext: false }), [], 'nothing to send');
  });

  it('says why an image cannot be attached', () => {
    assert.match(imageRefusal(t, 'image/svg+xml', 10, 100) ?? '', /Only PNG/);
    assert.match(imageRefusal(t, 'image/bmp', 10, 100, ['image/png']) ?? '', /Only PNG/);
    assert.match(imageRefusal(t, 'image/png', 200, 100, ['image/png']) ?? '', /can be attached/);
    assert.equal(imageRefusal(t, 'image/png', 10, 100, ['image/png']), undefined);
  });
});
