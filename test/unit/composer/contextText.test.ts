// What `@problems`, `@terminal` and a folder become as text, what `@` offers for what was typed, how a chip's size
// reads, and what each mention is sent as, with and without embedded context. Pure: plain Node.
import * as assert from 'node:assert/strict';
import { folderListing, MAX_LISTING, MAX_PROBLEMS, problemsText, specialMentions, terminalText } from '../../../src/composer/contextText';
import { buildPrompt, type Attachment } from '../../../src/composer/prompt';
import { sizeLabel } from '../../../src/chat/protocol';

const t = (message: string, ...args: Array<string | number>) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

describe('context from VS Code, as text', () => {
  it('lists problems errors first, then by file and line, one line each, with source and code', () => {
    const text = problemsText([
      { path: 'b.ts', line: 3, column: 1, severity: 'warning', message: 'unused', source: 'ts', code: '6133' },
      { path: 'a.ts', line: 9, column: 2, severity: 'error', message: 'type\n  mismatch', source: 'ts', code: '2322' },
      { path: 'a.ts', line: 1, column: 5, severity: 'error', message: 'missing' },
    ]);
    assert.equal(text, ['a.ts:1:5 error: missing', 'a.ts:9:2 error: type mismatch (ts 2322)', 'b.ts:3:1 warning: unused (ts 6133)'].join('\n'));
    assert.equal(problemsText([]), 'No problems.');
  });

  it('bounds the problems and the listing, counting what is left out', () => {
    const many = Array.from({ length: MAX_PROBLEMS + 7 }, (_, i) => ({
      path: 'a.ts',
      line: i + 1,
      column: 1,
      severity: 'hint' as const,
      message: 'm',
    }));
    assert.match(problemsText(many), /… and 7 more$/);
    assert.equal(problemsText(many).split('\n').length, MAX_PROBLEMS + 1);
    const entries = Array.from({ length: MAX_LISTING + 3 }, (_, i) => ({ name: `f${i}`, folder: false }));
    assert.match(folderListing(entries), /… and 3 more$/);
    assert.equal(
      folderListing([
        { name: 'b', folder: false },
        { name: 'a', folder: true },
      ]),
      'a/\nb',
    );
    assert.equal(folderListing([]), '(empty)');
  });

  it('writes the last command with its plain output and how it ended', () => {
    assert.equal(
      terminalText({ commandLine: 'npm test', output: '\u001b[31mFAIL\u001b[0m one\r\n2 failed\n', truncated: true, exitCode: 1 }),
      ['$ npm test', '… (the start of the output was left out)', 'FAIL one\r\n2 failed'.replace('\r', ''), '(exit code 1)'].join('\n'),
    );
    assert.match(terminalText({ commandLine: 'sleep 9', output: '', truncated: false, exitCode: undefined }), /still running/);
  });

  it('offers problems, terminal, changes, a commit, a chat and a page for an empty @ or a word they start with, and nothing else', () => {
    const all = specialMentions(t, '', { activeProblems: 2, allProblems: 5 }).map((m) => `${m.kind}:${m.path}`);
    assert.deepEqual(all, [
      'problems:active',
      'problems:all',
      'terminal:last',
      'changes:working',
      'changes:staged',
      'commit:pick',
      'chat:pick',
      'url:ask',
    ]);
    assert.deepEqual(
      specialMentions(t, 'com', { activeProblems: 1, allProblems: 1 }).map((m) => `${m.kind}:${m.path}`),
      ['commit:pick'],
    );
    assert.deepEqual(
      specialMentions(t, 'c', { activeProblems: 1, allProblems: 1 }).map((m) => `${m.kind}:${m.path}`),
      ['changes:working', 'changes:staged', 'commit:pick', 'chat:pick'],
    );
    assert.deepEqual(
      specialMentions(t, 'UR', { activeProblems: 1, allProblems: 1 }).map((m) => `${m.kind}:${m.path}`),
      ['url:ask'],
    );
    assert.deepEqual(
      specialMentions(t, 'PRO', { activeProblems: undefined, allProblems: 0 }).map((m) => m.path),
      ['all'],
      'no active file: only all problems',
    );
    assert.deepEqual(specialMentions(t, 'src/a', { activeProblems: 1, allProblems: 1 }), []);
  });

  it('reads sizes as B, KB and MB', () => {
    assert.equal(sizeLabel(12), '12 B');
    assert.equal(sizeLabel(3 * 1024 + 400), '3.4 KB');
    assert.equal(sizeLabel(300 * 1024), '300 KB');
    assert.equal(sizeLabel(2.1 * 1024 * 1024), '2.1 MB');
  });

  it('sends each mention as a resource with embedded context, and as quoted text with a link without it', () => {
    const mentions: Attachment[] = [
      { id: '1', kind: 'folder', path: '/w/src', label: 'src/', listing: 'a.ts' },
      { id: '2', kind: 'changes', label: 'Uncommitted changes', text: '+x', uri: 'file:///w?changes', mimeType: 'text/x-diff' },
      {
        id: '3',
        kind: 'problems',
        label: 'Problems in a.ts (1)',
        text: 'a.ts:1:1 error: e',
        uri: 'vscode-problems:file:///w/a.ts',
        mimeType: 'text/plain',
        link: 'file:///w/a.ts',
      },
      { id: '4', kind: 'symbol', path: '/w/a.ts', label: 'A (a.ts:1-2)', text: 'class A {}\n', startLine: 1, endLine: 2, languageId: 'typescript' },
      { id: '5', kind: 'url', label: 'Page: Docs', text: '# Docs\n\nRead `this`.', uri: 'https://example.com/docs', mimeType: 'text/markdown' },
    ];
    const embedded = buildPrompt('', mentions, new Map(), { image: false, embeddedContext: true });
    assert.deepEqual(
      embedded.map((b) => (b.type === 'resource' ? b.resource.uri : b.type)),
      ['file:///w/src/', 'file:///w?changes', 'vscode-problems:file:///w/a.ts', 'file:///w/a.ts#L1-L2', 'https://example.com/docs'],
    );
    const linked = buildPrompt('', mentions, new Map(), { image: false, embeddedContext: false });
    assert.ok(!linked.some((b) => b.type === 'resource'));
    const text = linked.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    assert.match(text, /src\/:\n```text\na\.ts\n```/);
    assert.match(text, /Uncommitted changes:\n```diff\n\+x\n```/);
    assert.match(text, /```typescript\nclass A \{\}/);
    assert.match(text, /Page: Docs:\n```markdown\n# Docs\n\nRead `this`\.\n```/);
    assert.deepEqual(
      linked.flatMap((b) => (b.type === 'resource_link' ? [b.uri] : [])),
      ['file:///w/src/', 'file:///w/a.ts', 'file:///w/a.ts'],
    );
  });
});
