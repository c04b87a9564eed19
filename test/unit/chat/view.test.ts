import * as assert from 'node:assert/strict';
import { SessionModel } from '../../../src/acp/sessionModel';
import { HostMessage, WebviewMessage } from '../../../src/chat/protocol';
import { urlView } from '../../../src/chat/elicitationViews';
import { entryView, permissionViews, sessionView, turnView } from '../../../src/chat/view';

describe('chat view model', () => {
  it('maps messages and tool calls to what the webview renders', () => {
    const model = new SessionModel('s');
    model.beginTurn([{ type: 'text', text: 'hi' }]);
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } });
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } });
    model.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'Read a.ts',
      kind: 'read',
      status: 'in_progress',
      locations: [{ path: '/w/src/a.ts', line: 3 }, { path: '/etc/hosts' }],
    });
    const views = model.entries.map((entry) => entryView(entry, '/w', model.terminals));
    assert.deepEqual(views, [
      { id: 1, kind: 'message', role: 'user', text: 'hi', chips: [] },
      { id: 2, kind: 'message', role: 'agent', text: 'Hello', chips: [] },
      {
        id: 3,
        kind: 'tool',
        toolCallId: 't1',
        title: 'Read a.ts',
        toolKind: 'read',
        status: 'in_progress',
        locations: ['src/a.ts:3', '/etc/hosts'],
        content: [],
        diffs: [],
        terminals: [],
      },
    ]);
    for (const entry of views) assert.ok(HostMessage.safeParse({ type: 'update', entries: [{ index: 0, entry }] }).success);
    assert.deepEqual(turnView(model.turn), { phase: 'running' });
    model.endTurn('max_tokens');
    assert.deepEqual(turnView(model.turn), { phase: 'idle', stopReason: 'max_tokens' });
  });

  it("shows diffs by file, and a terminal's output without escapes, with how it ended", () => {
    const model = new SessionModel('s');
    model.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 'e',
      title: 'Edit',
      kind: 'edit',
      content: [
        { type: 'diff', path: '/w/new.txt', oldText: null, newText: 'x' },
        { type: 'terminal', terminalId: 'term-1' },
      ],
    });
    model.terminalOutput('term-1', '\u001b[32mok\u001b[0m 10%\r50%\r100%\n');
    model.terminalExit('term-1', { exitCode: 0, signal: null });
    const view = entryView(model.entries[0]!, '/w', model.terminals);
    assert.ok(view.kind === 'tool');
    assert.deepEqual(view.diffs, [{ label: 'new.txt', created: true, added: 1, removed: 0 }]);
    assert.deepEqual(view.terminals, [{ id: 'term-1', output: '100%\n', truncated: false, exit: { code: 0 } }]);
  });

  it("shows the user's attachments as chips, and keeps an agent's links in its markdown", () => {
    const model = new SessionModel('s');
    model.beginTurn([
      { type: 'text', text: 'look at these' },
      { type: 'resource', resource: { uri: 'file:///w/src/a.ts', text: 'x' } },
      { type: 'resource', resource: { uri: 'file:///w/src/b.ts#L3-L9', text: 'y' } },
      { type: 'resource_link', name: 'c.ts', uri: 'file:///w/c.ts' },
      { type: 'image', data: '', mimeType: 'image/png' },
    ]);
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'see ' } });
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', name: 'a [x]', uri: 'https://example.com/a b' } });
    const [user, agent] = model.entries.map((entry) => entryView(entry, '/w', model.terminals));
    assert.deepEqual(user, {
      id: 1,
      kind: 'message',
      role: 'user',
      text: 'look at these',
      chips: [
        { kind: 'file', label: 'src/a.ts' },
        { kind: 'selection', label: 'src/b.ts:3-9' },
        { kind: 'file', label: 'c.ts' },
        { kind: 'image', label: 'image (image/png)' },
      ],
    });
    assert.equal(agent?.kind === 'message' && agent.text, 'see [a \\[x\\]](<https://example.com/a%20b>)');
  });

  it('summarises diffs by lines added and removed, and shows text content and raw input as JSON', () => {
    const model = new SessionModel('s');
    model.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      title: 'Edit a.ts',
      kind: 'edit',
      rawInput: { path: '/w/a.ts' },
      rawOutput: {},
      content: [
        { type: 'diff', path: '/w/a.ts', oldText: 'one\ntwo\nthree\n', newText: 'one\n2\nthree\nfour\n' },
        { type: 'diff', path: '/w/new.ts', newText: 'a\nb' },
        { type: 'content', content: { type: 'text', text: '**done**' } },
      ],
    });
    const view = entryView(model.entries[0]!, '/w', model.terminals);
    assert.ok(view.kind === 'tool');
    assert.deepEqual(view.diffs, [
      { label: 'a.ts', created: false, added: 2, removed: 1 },
      { label: 'new.ts', created: true, added: 2, removed: 0 },
    ]);
    assert.deepEqual(view.content, ['**done**']);
    assert.equal(view.rawInput, '{\n  "path": "/w/a.ts"\n}');
    assert.equal(view.rawOutput, undefined, 'an empty object is not worth a section');
  });

  it('shows the plan, commands, pickers in the agent order, usage with cost, and the latest notices', () => {
    const model = new SessionModel('s', {
      modes: {
        currentModeId: 'a',
        availableModes: [
          { id: 'a', name: 'Ask' },
          { id: 'c', name: 'Code', description: 'edits' },
        ],
      },
      configOptions: [
        {
          id: 'model',
          name: 'Model',
          type: 'select',
          category: 'model',
          currentValue: 'm2',
          options: [
            { group: 'g', name: 'Fast ones', options: [{ value: 'm1', name: 'One' }] },
            { group: 'h', name: 'Smart', options: [{ value: 'm2', name: 'Two' }] },
          ],
        },
        { id: 'web', name: 'Web search', type: 'boolean', currentValue: true },
      ],
    });
    model.apply({ sessionUpdate: 'plan', entries: [{ content: 'Read', status: 'completed', priority: 'high' }] });
    model.apply({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'review', description: 'Review', input: { hint: 'what' } },
        { name: 'init', description: 'Init' },
      ],
    });
    model.apply({ sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.0123, currency: 'USD' } });
    model.apply({ sessionUpdate: 'session_info_update', title: 'Fixing tests' });
    for (let i = 1; i <= 7; i++) model.apply({ sessionUpdate: 'notice', severity: 'info', title: `n${i}` });
    const view = sessionView(model, { image: true, embeddedContext: false });
    assert.equal(view.title, 'Fixing tests');
    assert.deepEqual(view.plan, [{ content: 'Read', status: 'completed', priority: 'high' }]);
    assert.deepEqual(view.commands, [
      { name: 'review', description: 'Review', hint: 'what' },
      { name: 'init', description: 'Init' },
    ]);
    assert.deepEqual(
      view.pickers.map((p) => [p.target, p.id, p.current]),
      [
        ['mode', 'mode', 'a'],
        ['config', 'model', 'm2'],
        ['config', 'web', true],
      ],
    );
    const models = view.pickers[1];
    assert.ok(models?.type === 'select');
    assert.equal(models.category, 'model', 'the view names options beside their value by category');
    assert.deepEqual(models.options, [
      { value: 'm1', name: 'One', group: 'Fast ones' },
      { value: 'm2', name: 'Two', group: 'Smart' },
    ]);
    assert.deepEqual(view.usage, { used: 1200, size: 200000, cost: '$0.0123' });
    assert.deepEqual(
      view.notices.map((n) => n.title),
      ['n3', 'n4', 'n5', 'n6', 'n7'],
    );
    assert.deepEqual(view.accepts, { image: true, embeddedContext: false });
    assert.ok(HostMessage.safeParse({ type: 'update', entries: [], session: view }).success);
  });

  it('leaves out the legacy mode picker when a config option is the mode', () => {
    const model = new SessionModel('s', {
      modes: { currentModeId: 'a', availableModes: [{ id: 'a', name: 'Ask' }] },
      configOptions: [{ id: 'mode', name: 'Mode', type: 'select', category: 'mode', currentValue: 'a', options: [{ value: 'a', name: 'Ask' }] }],
    });
    assert.deepEqual(
      sessionView(model, { image: false, embeddedContext: false }).pickers.map((p) => p.target),
      ['config'],
    );
  });

  it('lists pending permissions with their tool title and options, in order', async () => {
    const model = new SessionModel('s');
    const pending = model.requestPermission({
      sessionId: 's',
      toolCall: { toolCallId: 'c', title: 'Run tests', kind: 'execute' },
      options: [
        { optionId: 'y', name: 'Yes', kind: 'allow_once' },
        { optionId: 'n', name: 'No', kind: 'reject_once' },
      ],
    });
    const views = permissionViews(model);
    assert.equal(views.length, 1);
    assert.deepEqual(
      views[0]?.options.map((o) => o.name),
      ['Yes', 'No'],
    );
    assert.equal(views[0]?.title, 'Run tests');
    assert.equal(views[0]?.toolKind, 'execute');
    assert.equal(views[0]?.hasDiff, false);
    assert.ok(model.resolvePermission(views[0]!.id, 'n'));
    assert.deepEqual(await pending, { outcome: 'selected', optionId: 'n' });
    assert.deepEqual(permissionViews(model), []);
  });

  it('validates what the webview sends: unknown or malformed messages are refused', () => {
    assert.ok(WebviewMessage.safeParse({ type: 'send', text: 'hi', attachments: [] }).success);
    assert.ok(!WebviewMessage.safeParse({ type: 'send' }).success);
    assert.ok(
      !WebviewMessage.safeParse({ type: 'send', text: 'hi', attachments: [{ path: '/etc/passwd' }] }).success,
      'attachments are ids the host gave',
    );
    assert.ok(!WebviewMessage.safeParse({ type: 'showDiff', toolCallId: 't', index: -1 }).success);
    assert.ok(
      !WebviewMessage.safeParse({ type: 'attachImage', name: 'a.png', mimeType: 'image/png', data: 'x'.repeat(8 * 1024 * 1024) }).success,
      'images are bounded',
    );
    assert.ok(!WebviewMessage.safeParse({ type: 'permission', id: '1', optionId: 'y' }).success);
    assert.ok(!WebviewMessage.safeParse({ type: 'eval', code: 'x' }).success);
  });
});

describe('a url question\u2019s address', () => {
  it('shows bidi controls by name, so the address cannot read as another', () => {
    const view = urlView('https://example.com/\u202Egpj.exe', false);
    assert.equal(view.url, 'https://example.com/[U+202E]gpj.exe');
    assert.equal(view.host, 'example.com');
  });

  it('emphasises the host as written, whatever its case, and never a lookalike in the path', () => {
    const view = urlView('https://EXAMPLE.com:8443/example.com?x=example.com', false);
    assert.equal(view.url.slice(view.hostAt, view.hostAt + view.host.length), 'EXAMPLE.com');
    assert.equal(view.hostAt, 'https://'.length);
    const userinfo = urlView('https://trusted.com@evil.example/login', false);
    assert.equal(userinfo.host, 'evil.example', 'the host, not the user name before "@"');
    // The URL parser takes a backslash as a slash: the page opened is evil.example, and that is what is shown.
    const backslash = urlView('https://evil.example\\@accounts.google.com/login', false);
    assert.equal(backslash.host, 'evil.example');
    assert.equal(backslash.url.slice(backslash.hostAt, backslash.hostAt + backslash.host.length), 'evil.example');
  });

  it('gives an international host its other spelling: punycode beside the Unicode, and the Unicode beside punycode', () => {
    const unicode = urlView('https://exämple.com/a', false);
    assert.equal(unicode.host, 'exämple.com');
    assert.equal(unicode.otherHost, 'xn--exmple-cua.com');
    const ascii = urlView('https://xn--exmple-cua.com/a', false);
    assert.equal(ascii.otherHost, 'exämple.com');
    assert.equal(urlView('https://example.com', false).otherHost, undefined);
    assert.deepEqual(urlView('not a url', false), { url: 'not a url', host: '', hostAt: -1, opened: false });
  });
});
