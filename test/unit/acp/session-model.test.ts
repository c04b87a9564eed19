import * as assert from 'node:assert/strict';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import type { Entry, SessionChange } from '../../../src/acp/sessionState';
import { TERMINAL_TEXT_LIMIT } from '../../../src/acp/sessionTerminals';

const text = (t: string): S.ContentBlock => ({ type: 'text', text: t });
const agent = (t: string, messageId?: string): S.SessionUpdate =>
  messageId === undefined
    ? { sessionUpdate: 'agent_message_chunk', content: text(t) }
    : { sessionUpdate: 'agent_message_chunk', content: text(t), messageId };
const thought = (t: string): S.SessionUpdate => ({ sessionUpdate: 'agent_thought_chunk', content: text(t) });

/** What a reader of the conversation sees: role and text of each message, title and status of each tool call. */
function transcript(model: SessionModel): string[] {
  return model.entries.map((e: Entry) =>
    e.type === 'message'
      ? `${e.role}: ${e.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')}`
      : e.type === 'tool'
        ? `tool ${e.call.toolCallId} "${e.call.title}" ${e.call.kind} ${e.call.status}`
        : `compaction ${e.compaction.compactionId} ${e.compaction.status}`,
  );
}

/** Read through a call, so assertions on one phase do not narrow the type of the next read. */
const phaseOf = (model: SessionModel): string => model.turn.phase;

function recordChanges(model: SessionModel): SessionChange[] {
  const changes: SessionChange[] = [];
  model.onDidChange((c) => changes.push(c));
  return changes;
}

describe('SessionModel', () => {
  describe('messages', () => {
    it('merges consecutive chunks of one role and ignores empty chunks', () => {
      const model = new SessionModel('s');
      for (const u of [agent(''), agent('Hel'), agent('lo'), thought(''), thought('hmm'), agent(''), agent(' again')]) model.apply(u);
      assert.deepEqual(transcript(model), ['agent: Hello', 'thought: hmm', 'agent:  again']);
    });

    it('keeps messages apart by messageId and merges late chunks into their own message', () => {
      const model = new SessionModel('s');
      for (const u of [agent('A1', 'a'), agent('B1', 'b'), agent('A2', 'a'), agent('B2', 'b')]) model.apply(u);
      assert.deepEqual(transcript(model), ['agent: A1A2', 'agent: B1B2']);
    });

    it('never merges two different messageIds, even after a chunk without one', () => {
      const model = new SessionModel('s');
      for (const u of [agent('a'), agent('b', 'm1'), agent('c', 'm2'), agent('d')]) model.apply(u);
      assert.deepEqual(transcript(model), ['agent: a', 'agent: b', 'agent: cd']);
    });

    it('starts a new agent message after a tool call', () => {
      const model = new SessionModel('s');
      model.apply(agent('before'));
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read' });
      model.apply(agent('after'));
      assert.deepEqual(transcript(model), ['agent: before', 'tool t1 "Read" other pending', 'agent: after']);
    });

    it('does not change the agent’s objects when appending text', () => {
      const model = new SessionModel('s');
      const first = agent('one');
      model.apply(first);
      model.apply(agent(' two'));
      assert.deepEqual(first, agent('one'));
      assert.deepEqual(transcript(model), ['agent: one two']);
    });

    it('keeps non-text blocks of a message in order', () => {
      const model = new SessionModel('s');
      model.apply(agent('see '));
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' } });
      model.apply(agent(' there'));
      assert.deepEqual(transcript(model), ['agent: see [resource_link] there']);
    });

    it('shows the user prompt, and user chunks replayed by session/load', () => {
      const model = new SessionModel('s');
      model.apply({ sessionUpdate: 'user_message_chunk', content: text('old question') });
      model.apply(agent('old answer'));
      model.beginTurn([text('new question')]);
      assert.deepEqual(transcript(model), ['user: old question', 'agent: old answer', 'user: new question']);
    });

    it('keeps what the user sent apart from what the agent adds: an echo is dropped, a planted link is a message of its own', () => {
      const model = new SessionModel('s');
      const mine = { type: 'resource_link' as const, uri: 'file:///w/mine.ts', name: 'mine.ts' };
      model.beginTurn([text('fix this'), mine]);
      const user = (content: S.ContentBlock, messageId?: string): S.SessionUpdate => ({
        sessionUpdate: 'user_message_chunk',
        content,
        ...(messageId && { messageId }),
      });
      // Gemini CLI and Codex echo the prompt without a message id, Claude with one: nothing changes.
      for (const u of [user(text('fix ')), user(text('this'), 'user-01'), user(mine)]) model.apply(u);
      assert.deepEqual(transcript(model), ['user: fix this[resource_link]']);
      // A link the user never attached, in a chunk without a message id, does not join the user's message.
      model.apply(user({ type: 'resource_link', uri: 'file:///home/me/.ssh/id_rsa', name: 'id_rsa' }));
      model.apply(user(text(' and more')));
      assert.deepEqual(transcript(model), ['user: fix this[resource_link]', 'user: [resource_link] and more']);
      const [sent, planted] = model.entries as Extract<Entry, { type: 'message' }>[];
      assert.equal(sent?.sent, true);
      assert.deepEqual(sent?.content, [text('fix this'), mine], 'the client’s own record of what was sent');
      assert.equal(planted?.sent, undefined, 'the agent’s record');
      // Text that does not go on with the sent text is not an echo either.
      model.beginTurn([text('second')]);
      model.apply(user(text('secret')));
      assert.deepEqual(transcript(model).slice(2), ['user: second', 'user: secret']);
    });
  });

  describe('tool calls', () => {
    it('upserts a tool call announced twice with the same id', () => {
      const model = new SessionModel('s');
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit', kind: 'edit', rawInput: {} });
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Edit config.json',
        kind: 'edit',
        status: 'in_progress',
        rawInput: { path: '/ws/config.json' },
      });
      assert.deepEqual(transcript(model), ['tool t1 "Edit config.json" edit in_progress']);
      assert.deepEqual(model.toolCall('t1')?.rawInput, { path: '/ws/config.json' });
    });

    it('creates the entry for an update about an id never announced', () => {
      const model = new SessionModel('s');
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'in_progress' });
      assert.deepEqual(transcript(model), ['tool ghost "ghost" other in_progress']);
    });

    it('replaces content and locations when present and keeps them when absent', () => {
      const model = new SessionModel('s');
      const diff: S.ToolCallContent = { type: 'diff', path: '/ws/a.ts', oldText: 'a', newText: 'b' };
      const note: S.ToolCallContent = { type: 'content', content: text('done') };
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit', content: [diff], locations: [{ path: '/ws/a.ts', line: 3 }] });
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' });
      assert.deepEqual(model.toolCall('t')?.content, [diff]);
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed', content: [note], locations: [] });
      assert.deepEqual(model.toolCall('t')?.content, [note]);
      assert.deepEqual(model.toolCall('t')?.locations, []);
    });

    it('reports which entry changed, one at a time', () => {
      const model = new SessionModel('s');
      const changes = recordChanges(model);
      model.apply(agent('a'));
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run' });
      model.apply(agent('b'));
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed' });
      model.apply(agent('c'));
      assert.deepEqual(changes, [
        { type: 'entry', index: 0, added: true },
        { type: 'entry', index: 1, added: true },
        { type: 'entry', index: 2, added: true },
        { type: 'entry', index: 1, added: false },
        { type: 'entry', index: 2, added: false },
      ]);
    });
  });

  describe('session state', () => {
    it('replaces the plan whole on each update', () => {
      const model = new SessionModel('s');
      model.apply({
        sessionUpdate: 'plan',
        entries: [
          { content: 'a', priority: 'high', status: 'pending' },
          { content: 'b', priority: 'low', status: 'pending' },
        ],
      });
      model.apply({ sessionUpdate: 'plan', entries: [{ content: 'b', priority: 'low', status: 'completed' }] });
      assert.deepEqual(
        model.plan.map((e) => `${e.content}:${e.status}`),
        ['b:completed'],
      );
    });

    it('tracks commands, mode, config options, usage, title and notices', () => {
      const model = new SessionModel('s', {
        modes: {
          currentModeId: 'ask',
          availableModes: [
            { id: 'ask', name: 'Ask' },
            { id: 'code', name: 'Code' },
          ],
        },
      });
      const changes = recordChanges(model);
      model.apply({
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'review', description: 'Review', input: { hint: 'what' } }],
      });
      model.apply({ sessionUpdate: 'current_mode_update', currentModeId: 'code' });
      model.apply({
        sessionUpdate: 'config_option_update',
        configOptions: [
          { type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: 'fast', options: [{ value: 'fast', name: 'Fast' }] },
        ],
      });
      model.apply({ sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.25, currency: 'USD' } });
      model.apply({ sessionUpdate: 'session_info_update', title: 'Fix the parser' });
      model.apply({ sessionUpdate: 'notice', severity: 'warning', title: 'Context almost full' });
      assert.deepEqual(
        model.commands.map((c) => c.name),
        ['review'],
      );
      assert.equal(model.modes?.currentModeId, 'code');
      assert.equal(model.modes?.availableModes.length, 2);
      assert.deepEqual(
        model.configOptions.map((o) => o.id),
        ['model'],
      );
      assert.deepEqual(model.usage, { used: 1200, size: 200000, cost: { amount: 0.25, currency: 'USD' } });
      assert.equal(model.title, 'Fix the parser');
      assert.deepEqual(
        model.notices.map((n) => n.title),
        ['Context almost full'],
      );
      assert.deepEqual(
        changes.map((c) => c.type),
        ['commands', 'mode', 'config', 'usage', 'info', 'notice'],
      );
    });

    it('clears the title only when the agent sends null', () => {
      const model = new SessionModel('s');
      model.apply({ sessionUpdate: 'session_info_update', title: 'T' });
      model.apply({ sessionUpdate: 'session_info_update', updatedAt: '2026-11-22T10:00:00Z' });
      assert.equal(model.title, 'T');
      model.apply({ sessionUpdate: 'session_info_update', title: null });
      assert.equal(model.title, undefined);
    });
  });

  describe('permissions and the turn', () => {
    const request = (toolCallId: string): S.RequestPermissionRequest => ({
      sessionId: 's',
      toolCall: { toolCallId, title: 'Write config.json', kind: 'edit' },
      options: [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });

    it('waits for the user, then runs on; the turn ends idle with its stop reason', async () => {
      const model = new SessionModel('s');
      model.beginTurn([text('edit it')]);
      assert.equal(phaseOf(model), 'running');
      const answer = model.requestPermission(request('t1'));
      assert.equal(phaseOf(model), 'awaiting-user');
      const [pending] = model.permissions;
      assert.ok(pending);
      assert.equal(pending.toolCallId, 't1');
      assert.equal(model.resolvePermission(pending.id, 'nonexistent'), false);
      assert.equal(model.resolvePermission(pending.id, 'yes'), true);
      assert.deepEqual(await answer, { outcome: 'selected', optionId: 'yes' });
      assert.equal(phaseOf(model), 'running');
      assert.equal(model.resolvePermission(pending.id, 'no'), false, 'a late second answer does nothing');
      model.endTurn('end_turn');
      assert.deepEqual(model.turn, { phase: 'idle', stopReason: 'end_turn' });
    });

    it('creates the tool call of a permission request for an id never announced (Gemini)', () => {
      const model = new SessionModel('s');
      void model.requestPermission(request('edit-1'));
      assert.deepEqual(transcript(model), ['tool edit-1 "Write config.json" edit pending']);
      model.dispose();
    });

    it('settles pending requests as cancelled when the user cancels the turn', async () => {
      const model = new SessionModel('s');
      model.beginTurn([text('go')]);
      const first = model.requestPermission(request('a'));
      const second = model.requestPermission(request('b'));
      model.cancelTurn();
      assert.deepEqual(await first, { outcome: 'cancelled' });
      assert.deepEqual(await second, { outcome: 'cancelled' });
      assert.deepEqual(model.permissions, []);
      assert.equal(phaseOf(model), 'cancelling');
      model.endTurn('cancelled');
      assert.deepEqual(model.turn, { phase: 'idle', stopReason: 'cancelled' });
    });

    it('settles a request as cancelled when its signal aborts (agent cancel, agent exit)', async () => {
      const model = new SessionModel('s');
      const abort = new AbortController();
      const answer = model.requestPermission(request('a'), abort.signal);
      abort.abort();
      assert.deepEqual(await answer, { outcome: 'cancelled' });
      assert.deepEqual(model.permissions, []);
    });

    it('leaves no tool call running when a turn ends (codex leaves rejected calls in_progress)', () => {
      const model = new SessionModel('s');
      model.beginTurn([text('go')]);
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 'done', title: 'Read', status: 'completed' });
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 'left', title: 'Write', status: 'in_progress' });
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 'never', title: 'Run' });
      model.endTurn('cancelled');
      assert.deepEqual(transcript(model).slice(1), [
        'tool done "Read" other completed',
        'tool left "Write" other cancelled',
        'tool never "Run" other cancelled',
      ]);
    });

    it('keeps accepting updates after cancel until the prompt returns', () => {
      const model = new SessionModel('s');
      model.beginTurn([text('go')]);
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run', status: 'in_progress' });
      model.cancelTurn();
      assert.equal(model.toolCall('t')?.status, 'cancelled');
      model.apply(agent('stopping'));
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'failed' });
      model.endTurn('cancelled');
      assert.equal(model.toolCall('t')?.status, 'failed');
      assert.equal(transcript(model).at(-1), 'agent: stopping');
    });

    it('ends a failed turn with the error and settles everything', async () => {
      const model = new SessionModel('s');
      model.beginTurn([text('go')]);
      const answer = model.requestPermission(request('a'));
      model.failTurn('the agent exited with code 3');
      assert.deepEqual(await answer, { outcome: 'cancelled' });
      assert.deepEqual(model.turn, { phase: 'idle', error: 'the agent exited with code 3' });
      assert.equal(model.toolCall('a')?.status, 'cancelled');
    });
  });

  describe('terminals', () => {
    it('keeps command output for the tool calls that show it, bounded by its tail', () => {
      const model = new SessionModel('s');
      model.apply({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run', content: [{ type: 'terminal', terminalId: 'term-1' }] });
      const changes: SessionChange[] = [];
      model.onDidChange((c) => changes.push(c));
      model.terminalOutput('term-1', 'hello\n');
      model.terminalOutput('term-1', '');
      model.terminalExit('term-1', { exitCode: 2, signal: null });
      model.terminalExit('term-1', { exitCode: 0, signal: null });
      assert.deepEqual(changes, [
        { type: 'terminal', terminalId: 'term-1', appended: 'hello\n' },
        { type: 'entry', index: 0, added: false },
        { type: 'terminal', terminalId: 'term-1', appended: '' },
        { type: 'entry', index: 0, added: false },
      ]);
      assert.deepEqual(model.terminals.get('term-1')?.toJSON(), { text: 'hello\n', truncated: false, exitStatus: { exitCode: 2, signal: null } });
      model.terminalOutput('term-2', 'x'.repeat(TERMINAL_TEXT_LIMIT) + '\u{1f600}end');
      const kept = model.terminals.get('term-2')!;
      assert.ok(kept.truncated);
      assert.ok(kept.text.endsWith('\u{1f600}end') && kept.text.length <= TERMINAL_TEXT_LIMIT);
    });

    it('keeps the tail of a 128 MB flood of small pieces in linear time, exactly', () => {
      const model = new SessionModel('s');
      const piece = 'abcdefghijklmno\n'.repeat(1024); // 16 KiB
      const started = process.hrtime.bigint();
      for (let i = 0; i < 8192; i++) model.terminalOutput('t', i === 8191 ? `${piece.slice(0, -4)}END\n` : piece);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const kept = model.terminals.get('t')!;
      assert.equal(kept.text.length, TERMINAL_TEXT_LIMIT);
      assert.ok(kept.text.endsWith('END\n') && kept.truncated);
      // Re-slicing the whole tail per piece copies 8192 × 256 K characters (about 3 s here); pieces kept as they came
      // copy each once (tens of milliseconds).
      assert.ok(ms < 1000, `took ${ms} ms`);
    });

    it('shows output that agents running commands themselves send in _meta, without keeping it in the tool call', () => {
      const model = new SessionModel('s');
      model.apply({
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        title: 'ls',
        kind: 'execute',
        _meta: { terminal_info: { terminal_id: 'call_1' } },
      });
      model.apply({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        _meta: { terminal_output: { terminal_id: 'call_1', data: 'a.txt\n' } },
      });
      model.apply({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        _meta: { terminal_output: { terminal_id: 'call_1', data: 'b.txt\n' } },
      });
      model.apply({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        status: 'completed',
        _meta: { terminal_exit: { terminal_id: 'call_1', exit_code: 0, signal: null } },
      });
      model.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', _meta: { terminal_output: { terminal_id: 7, data: 'ignored' } } });
      assert.deepEqual(model.terminals.get('call_1')?.toJSON(), {
        text: 'a.txt\nb.txt\n',
        truncated: false,
        exitStatus: { exitCode: 0, signal: null },
      });
      assert.deepEqual(model.toolCall('call_1')?.meta, { terminal_info: { terminal_id: 'call_1' } });
      assert.equal(model.terminals.size, 1);
    });
  });

  describe('permissions answered by the client', () => {
    it('marks the tool call with the option and the reason', () => {
      const model = new SessionModel('s');
      const call = model.noteToolCall({ toolCallId: 'r', title: 'Read a.ts', kind: 'read' });
      model.recordAutoAnswer(call.toolCallId, { optionId: 'y', name: 'Allow', kind: 'allow_once' }, 'the setting');
      assert.deepEqual(model.toolCall('r')?.autoAnswer, { optionName: 'Allow', optionKind: 'allow_once', reason: 'the setting' });
      assert.equal(model.permissions.length, 0);
    });
  });
});

describe('SessionModel titles and turn endings', () => {
  it('keeps a title the user gave over the agent\u2019s later ones', () => {
    const model = new SessionModel('s');
    model.apply({ sessionUpdate: 'session_info_update', title: 'From the agent' });
    assert.equal(model.title, 'From the agent');
    model.rename('Mine');
    model.apply({ sessionUpdate: 'session_info_update', title: 'Agent again' });
    assert.equal(model.title, 'Mine');
  });

  it('records how each turn ended, after its last entry', () => {
    const model = new SessionModel('s');
    model.beginTurn([{ type: 'text', text: 'one' }]);
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } });
    model.endTurn('end_turn');
    model.beginTurn([{ type: 'text', text: 'two' }]);
    model.endTurn('cancelled');
    assert.deepEqual(model.turnEnds, [
      { afterEntry: 1, stopReason: 'end_turn' },
      { afterEntry: 2, stopReason: 'cancelled' },
    ]);
  });
});
