import * as assert from 'node:assert/strict';
import { SessionModel } from '../../src/acp/session';
import { messageTracer } from '../../src/log';
import { HostMessage, WebviewMessage } from '../../src/chat/protocol';
import { blocksText, entryView, permissionViews, turnView } from '../../src/chat/view';
import type { Logger } from '../../src/acp/log';

describe('chat view model', () => {
  it('maps messages and tool calls to what the webview renders', () => {
    const model = new SessionModel('s');
    model.beginTurn([{ type: 'text', text: 'hi' }]);
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } });
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } });
    model.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.ts', kind: 'read', status: 'in_progress', locations: [{ path: '/w/src/a.ts', line: 3 }, { path: '/etc/hosts' }] });
    const views = model.entries.map((entry) => entryView(entry, '/w', model.terminals));
    assert.deepEqual(views, [
      { id: 1, kind: 'message', role: 'user', text: 'hi' },
      { id: 2, kind: 'message', role: 'agent', text: 'Hello' },
      { id: 3, kind: 'tool', toolCallId: 't1', title: 'Read a.ts', toolKind: 'read', status: 'in_progress', locations: ['src/a.ts:3', '/etc/hosts'], diffs: [], terminals: [] },
    ]);
    for (const entry of views) assert.ok(HostMessage.safeParse({ type: 'update', entries: [{ index: 0, entry }] }).success);
    assert.deepEqual(turnView(model.turn), { phase: 'running' });
    model.endTurn('max_tokens');
    assert.deepEqual(turnView(model.turn), { phase: 'idle', stopReason: 'max_tokens' });
  });

  it('shows diffs by file, and a terminal\'s output without escapes, with how it ended', () => {
    const model = new SessionModel('s');
    model.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 'e',
      title: 'Edit',
      kind: 'edit',
      content: [{ type: 'diff', path: '/w/new.txt', oldText: null, newText: 'x' }, { type: 'terminal', terminalId: 'term-1' }],
    });
    model.terminalOutput('term-1', '\u001b[32mok\u001b[0m 10%\r50%\r100%\n');
    model.terminalExit('term-1', { exitCode: 0, signal: null });
    const view = entryView(model.entries[0]!, '/w', model.terminals);
    assert.ok(view.kind === 'tool');
    assert.deepEqual(view.diffs, [{ label: 'new.txt', created: true }]);
    assert.deepEqual(view.terminals, [{ id: 'term-1', output: '100%\n', truncated: false, exit: 'exit code 0' }]);
  });

  it('names content it cannot show as text yet', () => {
    assert.equal(
      blocksText([
        { type: 'text', text: 'see ' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///a.ts' },
        { type: 'image', data: '', mimeType: 'image/png' },
      ]),
      'see [a.ts](file:///a.ts)[image]',
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
    assert.deepEqual(views[0]?.options.map((o) => o.name), ['Yes', 'No']);
    assert.equal(views[0]?.title, 'Run tests');
    assert.equal(views[0]?.kindLabel, 'Run command');
    assert.equal(views[0]?.hasDiff, false);
    assert.ok(model.resolvePermission(views[0]!.id, 'n'));
    assert.deepEqual(await pending, { outcome: 'selected', optionId: 'n' });
    assert.deepEqual(permissionViews(model), []);
  });

  it('validates what the webview sends: unknown or malformed messages are refused', () => {
    assert.ok(WebviewMessage.safeParse({ type: 'send', text: 'hi' }).success);
    assert.ok(!WebviewMessage.safeParse({ type: 'send' }).success);
    assert.ok(!WebviewMessage.safeParse({ type: 'permission', id: '1', optionId: 'y' }).success);
    assert.ok(!WebviewMessage.safeParse({ type: 'eval', code: 'x' }).success);
  });
});

describe('messageTracer', () => {
  it('logs both directions only while the setting is "messages", and shortens huge lines', () => {
    const lines: string[] = [];
    const log: Logger = { trace() {}, debug() {}, info: (m) => lines.push(m), warn() {}, error() {} };
    let setting: 'off' | 'messages' = 'off';
    const trace = messageTracer(log, () => setting);
    trace('sent', '{"a":1}');
    assert.equal(lines.length, 0);
    setting = 'messages';
    trace('sent', '{"a":1}');
    trace('received', '{"b":2}');
    trace('received', 'x'.repeat(9000));
    assert.deepEqual(lines.slice(0, 2), ['→ {"a":1}', '← {"b":2}']);
    assert.ok(lines[2]!.endsWith('… (1000 more characters)'));
  });
});
