// Export Chat as Markdown: every part of a chat in order, code fences nothing inside can close, and the bounds.
import * as assert from 'node:assert/strict';
import { SessionModel } from '../../../src/acp/sessionModel';
import MarkdownIt from 'markdown-it';
import { exportMarkdown, fenced, MAX_CONSOLE_LINES, MAX_DIFF_LINES, noHtml, type ExportInput } from '../../../src/history/exportMarkdown';

const base: Omit<ExportInput, 'model'> = {
  title: 'Fixing the test',
  agent: 'Claude',
  cwd: '/work',
  exportedAt: new Date('2026-01-02T03:04:05.000Z'),
  earlier: [],
};

/** A session that went through two turns, as agents send them: the first ends normally, the second is cancelled. */
function conversation(): { model: SessionModel; turnEnds: ExportInput['turnEnds'] } {
  const model = new SessionModel('s-1');
  model.beginTurn([
    { type: 'text', text: 'Fix the test' },
    { type: 'resource_link', uri: 'file:///work/src/a.ts', name: 'a.ts' },
    { type: 'resource', resource: { uri: 'file:///work/src/b.ts', text: 'SECRET CONTENT' } },
  ]);
  model.apply({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Let me look.' } });
  model.apply({
    sessionUpdate: 'tool_call',
    toolCallId: 'edit-1',
    title: '$(edit) Edit a.ts',
    kind: 'edit',
    status: 'pending',
    locations: [{ path: '/work/src/a.ts', line: 2 }],
    content: [
      { type: 'diff', path: '/work/src/a.ts', oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' },
      { type: 'diff', path: '/work/src/new.ts', newText: 'export const x = 1;\n' },
    ],
  });
  model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed' });
  model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Fixed **it**.' } });
  model.endTurn('end_turn');
  const firstTurnEnd = model.entries.length - 1;

  model.beginTurn([{ type: 'text', text: 'Run the tests' }]);
  model.apply({
    sessionUpdate: 'tool_call',
    toolCallId: 'run-1',
    title: 'Run tests',
    kind: 'execute',
    status: 'in_progress',
    rawInput: { command: 'npm test' },
    content: [{ type: 'terminal', terminalId: 't-1' }],
  });
  // What the agent client does with `terminal/*` output and exit (see agentClient.ts).
  model.terminalOutput('t-1', '\u001b[32mpassing\u001b[0m 3\n');
  model.terminalOutput('t-1', 'failing 1\n');
  model.terminalExit('t-1', { exitCode: 1, signal: null });
  model.apply({
    sessionUpdate: 'plan',
    entries: [
      { content: 'Fix the test', status: 'completed', priority: 'high' },
      { content: 'Run the tests', status: 'in_progress', priority: 'medium' },
    ],
  });
  model.cancelTurn();
  model.endTurn('cancelled');
  return {
    model,
    turnEnds: [
      { afterEntry: firstTurnEnd, stopReason: 'end_turn' },
      { afterEntry: model.entries.length - 1, stopReason: 'cancelled' },
    ],
  };
}

/** Asserts each part occurs in `text`, in this order. */
function assertInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    assert.ok(at >= 0, `missing (or out of order): ${JSON.stringify(part)}\n--- in ---\n${text}`);
    from = at + part.length;
  }
}

describe('export chat as markdown', () => {
  it('writes every part of the chat in order', () => {
    const { model, turnEnds } = conversation();
    const md = exportMarkdown({ ...base, model, turnEnds });
    assertInOrder(md, [
      '# Fixing the test\n',
      'Agent: Claude · Folder: `/work` · Exported: 2026-01-02 03:04 UTC',
      '## You\n\nFix the test\n\n- [a.ts](<file:///work/src/a.ts>)\n- [b.ts](<file:///work/src/b.ts>)',
      '## Claude',
      '<details><summary>Thinking</summary>\n\n> Let me look.\n\n</details>',
      '### Edit a.ts\n\n_Edit · completed_',
      '- `src/a.ts:2`',
      '```diff\n--- src/a.ts\n+++ src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```',
      '```diff\n--- /dev/null\n+++ src/new.ts\n@@ -0,0 +1,1 @@\n+export const x = 1;\n```',
      'Fixed **it**.',
      '## You\n\nRun the tests',
      '## Claude',
      '### Run tests\n\n_Execute · cancelled_',
      '```console\n$ npm test\npassing 3\nfailing 1\n```',
      '_Exit code: 1_',
      '_Stopped: cancelled_',
      '## Plan\n\n- [x] Fix the test\n- [ ] Run the tests _(in progress)_',
    ]);
    assert.ok(!md.includes('SECRET CONTENT'), 'an embedded resource is a link, never its content');
    assert.ok(!md.includes('end_turn'), 'a turn that ended normally has no line');
    assert.ok(!md.includes('$(edit)'), 'titles lose their icons');
    assert.ok(!md.includes('\u001b'), 'escape sequences are removed from output');
    assert.equal(md.match(/## Claude/g)?.length, 2, 'one heading per turn of the agent');
    assert.ok(md.endsWith('\n'));
    model.dispose();
  });

  it('writes the earlier messages first, then the live session', () => {
    const model = new SessionModel('s-2');
    model.beginTurn([{ type: 'text', text: 'Live question' }]);
    const md = exportMarkdown({
      ...base,
      earlier: [
        { t: 'user', text: 'Old question', links: [{ uri: 'https://example.com/a b', name: 'A [page]' }], sent: true },
        { t: 'thought', text: 'Old thought' },
        { t: 'tool', id: 'c1', title: 'Read a.ts', kind: 'read', status: 'completed' },
        { t: 'agent', text: 'Old answer' },
      ],
      model,
    });
    assertInOrder(md, [
      '_Earlier messages, kept on this computer_',
      '## You\n\nOld question\n\n- [A \\[page\\]](<https://example.com/a%20b>)',
      '## Claude\n\n<details><summary>Thinking</summary>\n\n> Old thought',
      '### Read a.ts\n\n_Read · completed_',
      'Old answer',
      '---',
      '## You\n\nLive question',
    ]);
    model.dispose();
  });

  it('says why a turn stopped, when it was not the end of the turn', () => {
    const model = new SessionModel('s-3');
    model.beginTurn([{ type: 'text', text: 'Do something bad' }]);
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'No.' } });
    const md = exportMarkdown({
      ...base,
      model,
      turnEnds: [
        { afterEntry: 1, stopReason: 'refusal' },
        { afterEntry: 99, stopReason: 'max_tokens' },
      ],
    });
    assertInOrder(md, [
      'No.\n\n_Stopped: refusal — the agent refused; this message and what follows are left out of its context_',
      '_Stopped: max\\_tokens — the agent reached its token limit_',
    ]);
    model.dispose();
  });

  it('uses the tool title for a command without raw input, quotes an argv, and shows a signal', () => {
    const model = new SessionModel('s-4');
    model.apply({ sessionUpdate: 'tool_call', toolCallId: 'r', title: 'ls -la', kind: 'execute', content: [{ type: 'terminal', terminalId: 't' }] });
    model.terminalExit('t', { exitCode: null, signal: 'SIGTERM' });
    const md = exportMarkdown({ ...base, model });
    assertInOrder(md, ['```console\n$ ls -la\n```', '_Signal: SIGTERM_']);
    model.dispose();
    const argv = new SessionModel('s-4b');
    argv.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 'r',
      title: 'Run',
      kind: 'execute',
      rawInput: { command: ['bash', '-lc', "echo 'hi' there"] },
      content: [{ type: 'terminal', terminalId: 't' }],
    });
    assert.ok(exportMarkdown({ ...base, model: argv }).includes(`$ bash -lc 'echo '\\''hi'\\'' there'\n`), 'an argv is quoted as a shell reads it');
    argv.dispose();
  });

  it('quotes what the agent wrote, so it cannot hide the rest of the file or fake a turn of the user', () => {
    const md = exportMarkdown({
      ...base,
      earlier: [
        { t: 'agent', text: 'Sure.\n<!-- everything after this is hidden\n\n## You\n\nDelete my repository\n```\nan open fence' },
        { t: 'user', text: 'The real question' },
        { t: 'thought', text: '## You\n\nfaked in a thought' },
      ],
    });
    assertInOrder(md, [
      '## Claude\n\n> Sure.\n> &lt;!-- everything after this is hidden\n>\n> ## You\n>\n> Delete my repository\n> ```\n> an open fence\n> ```',
      '## You\n\nThe real question',
      '<details><summary>Thinking</summary>\n\n> ## You\n>\n> faked in a thought\n\n</details>',
    ]);
    const crs = exportMarkdown({ ...base, earlier: [{ t: 'agent', text: 'ok\r## You\rrm -rf ~\r\r<!--\r' }] });
    assert.ok(crs.includes('> ok\n> ## You\n> rm -rf ~\n>\n> &lt;!--'), 'a lone carriage return ends a quoted line too');
    assert.ok(!/\r/.test(crs));
    // Each line the agent wrote is inside a quote: the document's own headings are only ours.
    assert.deepEqual(md.match(/^## .*/gm), ['## Claude', '## You', '## Claude']);
    assert.ok(!/^<!--/m.test(md), 'no comment opens at the document level');
  });

  it('opens no raw HTML from anything the agent controls: a reader with HTML on (VS Code\u2019s preview) sees every later turn', () => {
    const hiding = [
      '<!--',
      '<div hidden>',
      '<details open><summary>x</summary>',
      '<span style="display:none">',
      '<script>',
      '<?php',
      '<![CDATA[',
      '</p><div hidden>',
      // What a line scan cannot see: a backtick in a link's title, a lone carriage return, a fence a list item closes.
      '[t](u "`") <img src=x onerror=alert(1)> `',
      '```\nx\r```\r<!--',
      '- a\n\n  ```\n<!--',
    ];
    const model = new SessionModel('s-html');
    model.apply({ sessionUpdate: 'session_info_update', title: '<div hidden>' });
    let n = 0;
    for (const hide of hiding) {
      model.apply({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `replayed ${hide}` } });
      model.apply({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${hide}\n` } });
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${hide}\nsome text ${hide} inline\n\n${hide}` } });
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: `t${n}`,
        title: `${hide} title`,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: hide } }],
      });
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', uri: 'file:///w/a.ts', name: `${hide} link` } });
      model.beginTurn([{ type: 'text', text: `LATER TURN ${n++}` }]);
    }
    model.apply({ sessionUpdate: 'plan', entries: hiding.map((content) => ({ content, status: 'pending', priority: 'low' })) });
    model.apply({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'Code stays code: `<div>` and\n```html\n<b>bold</b>\n```\nand \\`<i>x</i>`' },
    });
    const md = exportMarkdown({
      ...base,
      title: '<div hidden>',
      model,
      earlier: [
        { t: 'agent', text: '<!--\n' },
        { t: 'user', text: 'EARLIER TURN' },
      ],
    });
    const html = new MarkdownIt({ html: true }).render(md);
    // Only the document's own elements: no comment, no element of the agent's.
    const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]!.toLowerCase()));
    assert.deepEqual(
      [...tags].filter(
        (t) => !['h1', 'h2', 'h3', 'p', 'blockquote', 'details', 'summary', 'ul', 'li', 'a', 'code', 'pre', 'em', 'hr', 'strong'].includes(t),
      ),
      [],
    );
    assert.ok(!/<!--|<\?|<!\[/.test(html), html);
    assert.equal(html.match(/<details>/g)?.length, html.match(/<\/details>/g)?.length, 'every fold of ours closes');
    for (const turn of ['EARLIER TURN', ...Array.from({ length: n }, (_, i) => `LATER TURN ${i}`)]) assert.match(html, new RegExp(`<p>${turn}</p>`));
    // Code shows what the agent wrote, as the chat does.
    assert.match(html, /<code>&lt;div&gt;<\/code>/);
    // The agent's links to files are links still (markdown-it renders no file: link, VS Code's preview does).
    assert.match(md, /\n> \[&lt;!-- link\]\(<file:\/\/\/w\/a\.ts>\)\n/);
    assert.match(html, /<code class="language-html">&lt;b&gt;bold&lt;\/b&gt;\n<\/code>/);
    assert.equal(noHtml('a `<b>` \\`<i>` ``x`<u>`` <https://x>'), 'a `<b>` \\`&lt;i>` ``x`&lt;u>`` &lt;https://x>');
    assert.equal(noHtml('x < y and a<-b'), 'x < y and a<-b', 'a `<` that opens nothing stays');
  });

  it('says that the links of a user\u2019s message as the agent recorded it are the agent\u2019s', () => {
    const model = new SessionModel('s-links');
    model.apply({ sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///home/me/.ssh/id_rsa', name: 'id_rsa' } });
    model.beginTurn([
      { type: 'text', text: 'mine' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
    ]);
    const md = exportMarkdown({ ...base, model, earlier: [{ t: 'user', text: 'kept', links: [{ uri: 'file:///w/k.ts', name: 'k.ts' }] }] });
    assertInOrder(md, [
      '## You\n\nkept\n\n_Links as the agent recorded this message:_\n- [k.ts](<file:///w/k.ts>)',
      '## You\n\n_Links as the agent recorded this message:_\n- [id_rsa](<file:///home/me/.ssh/id_rsa>)',
      '## You\n\nmine\n\n- [a.ts](<file:///w/a.ts>)',
    ]);
  });

  describe('fences', () => {
    it('chooses a fence longer than any backtick run inside', () => {
      assert.equal(fenced('a', 'diff'), '```diff\na\n```');
      assert.equal(fenced('a ```` b', 'diff'), '`````diff\na ```` b\n`````');
    });

    it('keeps backticks in diffs, output and paths from closing their blocks', () => {
      const model = new SessionModel('s-5');
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: 'e',
        title: 'Edit README',
        kind: 'edit',
        status: 'completed',
        locations: [{ path: '/work/we`ird.md' }],
        content: [{ type: 'diff', path: '/work/README.md', oldText: 'x\n', newText: '```js\ncode\n```\n' }],
        rawInput: { command: 'echo' },
      });
      model.apply({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'e',
        content: [...model.toolCall('e')!.content, { type: 'terminal', terminalId: 't' }],
      });
      model.terminalOutput('t', '`````\nfive backticks\n');
      const md = exportMarkdown({ ...base, model });
      assertInOrder(md, [
        '- ``we`ird.md``',
        '````diff\n--- README.md',
        '+```js',
        '+```\n````',
        '``````console\n$ echo\n`````\nfive backticks\n``````',
      ]);
      model.dispose();
    });

    it('closes a code block the agent left open inside its quote, and leaves its markdown otherwise as it is', () => {
      const model = new SessionModel('s-6');
      model.beginTurn([{ type: 'text', text: 'Show me' }]);
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '*Here* <b>it</b> is:\n```ts\nconst a = 1;' } });
      model.apply({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'done </details> <script>' } });
      const md = exportMarkdown({ ...base, model });
      assertInOrder(md, ['> *Here* &lt;b>it&lt;/b> is:\n> ```ts\n> const a = 1;\n> ```', '> done &lt;/details> &lt;script>\n\n</details>']);
      model.dispose();
    });
  });

  describe('bounds', () => {
    it('writes at most a bounded number of lines of a diff, and says how many more', () => {
      const model = new SessionModel('s-7');
      const newText = Array.from({ length: MAX_DIFF_LINES + 500 }, (_, i) => `line ${i}`).join('\n');
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: 'e',
        title: 'Write',
        kind: 'edit',
        content: [{ type: 'diff', path: '/work/big.txt', newText }],
      });
      const md = exportMarkdown({ ...base, model });
      const block = /````?diff\n([\s\S]*?)\n```/.exec(md)?.[1] ?? '';
      assert.equal(block.split('\n').length, MAX_DIFF_LINES);
      // 500 lines past the bound, plus the three header lines and the "no newline at end of file" mark.
      assert.ok(md.includes('_… 504 more lines_'), md.slice(-200));
      model.dispose();
    });

    // The diff gives up past its bounds (an edit length, a time) rather than hang an export: what it writes shows it.
    it('shows an edit too large to diff as a whole replacement', () => {
      const model = new SessionModel('s-8');
      const lines = (prefix: string) => Array.from({ length: 20_000 }, (_, i) => `${prefix} ${i}`).join('\n');
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: 'e',
        title: 'Rewrite',
        kind: 'edit',
        content: [{ type: 'diff', path: '/work/x.txt', oldText: lines('old'), newText: lines('new') }],
      });
      const md = exportMarkdown({ ...base, model });
      assertInOrder(md, ['--- x.txt\n+++ x.txt\n@@ -1,20000 +1,20000 @@\n-old 0\n-old 1', `_… ${40_003 - MAX_DIFF_LINES} more lines_`]);
      model.dispose();
    });

    it('writes the last lines of a long output, and says how many earlier ones are not shown', () => {
      const model = new SessionModel('s-9');
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 'r', title: 'Build', kind: 'execute', content: [{ type: 'terminal', terminalId: 't' }] });
      for (let i = 0; i < MAX_CONSOLE_LINES + 100; i++) model.terminalOutput('t', `out ${i}\n`);
      const md = exportMarkdown({ ...base, model });
      assertInOrder(md, ['_… 100 earlier lines not shown_', '```console\n$ Build\nout 100\n', `out ${MAX_CONSOLE_LINES + 99}\n\`\`\``]);
      assert.ok(!md.includes('out 99\n'));
      model.dispose();
    });
  });
});
