// ACP v2's reading (v2/updates.ts, v2/requests.ts, v2/wire.ts), the protocol the client asks for (quirks.ts), and
// the session model's v2 operations, in plain Node.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AgentCapabilities } from '../../../src/acp/capabilities';
import { protocolToAsk } from '../../../src/acp/quirks';
import { SessionModel } from '../../../src/acp/sessionModel';
import { applyV2 } from '../../../src/acp/v2/apply';
import { permissionRequest } from '../../../src/acp/v2/requests';
import type * as V2 from '../../../src/acp/v2/schema.gen';
import { readV2Update, V2_UPDATE_SCHEMAS, type V2Event } from '../../../src/acp/v2/updates';
import { initializeAnswer } from '../../../src/acp/v2/wire';

function event(update: Record<string, unknown>): V2Event {
  const r = readV2Update({ sessionId: 's', update });
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.equal(r.sessionId, 's');
  return r.event;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A model, and the v2 updates applied to it as the agent client routes them. */
function v2Session() {
  const model = new SessionModel('s');
  return { model, apply: (update: Record<string, unknown>) => applyV2(model, event(update)) };
}

describe('ACP v2', () => {
  describe('reading session updates', () => {
    it('passes what v1 also says, and reads whole messages, state and terminals as v2 events', () => {
      assert.deepEqual(event({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'Hi' } }), {
        type: 'update',
        update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'Hi' } },
      });
      assert.deepEqual(event({ sessionUpdate: 'agent_message', messageId: 'm1', content: null }), {
        type: 'message',
        role: 'agent',
        messageId: 'm1',
        content: null,
      });
      const chunk = event({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64('ready ✓\n') });
      assert.equal(chunk.type === 'terminal' && chunk.chunk, true);
      assert.equal(chunk.type === 'terminal' && Buffer.from(chunk.output ?? []).toString('utf8'), 'ready ✓\n');
      assert.deepEqual(
        event({ sessionUpdate: 'terminal_update', terminalId: 't', command: 'npm run dev', exitStatus: { signal: 'SIGTERM' }, capabilities: null }),
        { type: 'terminal', terminalId: 't', command: 'npm run dev', exitStatus: { exitCode: null, signal: 'SIGTERM' }, cancellable: false },
      );
    });

    it('reads tool calls as upserts: null resets, paused runs, an unknown kind is other, cancel is a capability', () => {
      const e = event({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'paused', kind: 'teleport', capabilities: { cancel: {} } });
      assert.deepEqual(e, {
        type: 'update',
        update: { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'in_progress', kind: 'other' },
        cancellable: true,
      });
      const reset = event({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: null, content: null, capabilities: null });
      assert.deepEqual(reset, {
        type: 'update',
        update: { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'pending', content: [] },
        cancellable: false,
      });
    });

    it('shows a git patch as a diff of its hunks per file, and a change without one in words', () => {
      const patch = [
        'diff --git /w/a.ts /w/a.ts',
        '--- /w/a.ts',
        '+++ /w/a.ts',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        'diff --git /w/new.ts /w/new.ts',
        'new file mode 100644',
        '--- /dev/null',
        '+++ /w/new.ts',
        '@@ -0,0 +1 @@',
        '+fresh',
      ].join('\n');
      const e = event({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        content: [
          {
            type: 'diff',
            changes: [
              { operation: 'modify', path: '/w/a.ts' },
              { operation: 'add', path: '/w/new.ts' },
              { operation: 'delete', path: '/w/gone.bin', fileType: 'binary' },
            ],
            patch: { format: 'git_patch', text: patch },
          },
        ],
      });
      assert.equal(e.type, 'update');
      const content = e.type === 'update' && e.update.sessionUpdate === 'tool_call_update' ? e.update.content : undefined;
      assert.deepEqual(content, [
        { type: 'diff', path: '/w/a.ts', oldText: 'one\ntwo\nthree', newText: 'one\nTWO\nthree' },
        { type: 'diff', path: '/w/new.ts', oldText: null, newText: 'fresh' },
        { type: 'content', content: { type: 'text', text: 'delete /w/gone.bin' } },
      ]);
    });

    it('ends a turn on idle with its stop reason, its error, or end_turn for a reason of a later version', () => {
      assert.deepEqual(event({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled', background: [] }), {
        type: 'state',
        state: 'idle',
        background: [],
        stopReason: 'cancelled',
      });
      const failed = event({
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'error',
        error: { code: -32603, message: 'model overloaded' },
      });
      assert.equal(failed.type === 'state' && failed.error, 'model overloaded');
      const later = event({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'snoozed' });
      assert.equal(later.type === 'state' && later.stopReason, 'end_turn');
      const running = event({ sessionUpdate: 'state_update', state: 'running' });
      assert.deepEqual(running, { type: 'state', state: 'running' }, 'no list: the last one stands');
    });

    it('lists background work by kind, and kinds it does not know as work only the agent can stop', () => {
      const e = event({
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'end_turn',
        background: [
          { type: 'terminal', terminalId: 't' },
          { type: 'subagent', sessionId: 'child' },
          { type: '_indexer', id: 7 },
          { type: 'tool_call', toolCallId: 'c' },
        ],
      });
      assert.deepEqual(e.type === 'state' && e.background, [
        { type: 'terminal', id: 't' },
        { type: 'subagent', id: 'child' },
        { type: 'other', id: '_indexer#2' },
        { type: 'tool_call', id: 'c' },
      ]);
    });

    it('reads config options in v1’s names, and drops a kind it cannot show', () => {
      const e = event({
        sessionUpdate: 'config_option_update',
        configOptions: [
          {
            configId: 'model',
            name: 'Model',
            type: 'select',
            currentValue: 'fast',
            options: [{ groupId: 'g', name: 'Group', options: [{ value: 'fast', name: 'Fast' }] }],
          },
          { configId: 'x', name: 'X', type: 'slider', currentValue: 3 },
        ],
      });
      assert.deepEqual(e.type === 'update' && e.update.sessionUpdate === 'config_option_update' && e.update.configOptions, [
        {
          id: 'model',
          name: 'Model',
          type: 'select',
          currentValue: 'fast',
          options: [{ group: 'g', name: 'Group', options: [{ value: 'fast', name: 'Fast' }] }],
        },
      ]);
    });

    it('reads each kind of the v2 schema’s SessionUpdate by its own schema, and no other kind', () => {
      const schema = JSON.parse(readFileSync(require.resolve('@agentclientprotocol/sdk/schema/v2/schema.json'), 'utf8')) as {
        $defs: { SessionUpdate: { anyOf: { properties?: { sessionUpdate?: { const?: string } } }[] } };
      };
      const kinds = schema.$defs.SessionUpdate.anyOf.flatMap((v) => (v.properties?.sessionUpdate?.const ? [v.properties.sessionUpdate.const] : []));
      assert.deepEqual(Object.keys(V2_UPDATE_SCHEMAS).sort(), kinds.sort());
    });

    it('skips what does not validate, and a state of a later version', () => {
      assert.equal(
        readV2Update({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'no id' } } }).ok,
        false,
      );
      assert.equal(readV2Update({ sessionId: 's', update: { sessionUpdate: 'state_update', state: 'hibernating' } }).ok, false);
      assert.equal(readV2Update({ sessionId: 's', update: { sessionUpdate: 'teleport' } }).ok, false);
    });
  });

  describe('permission requests by subject', () => {
    const options = [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }];
    it('asks about the tool call, the command, or just the title', () => {
      const byTool = permissionRequest(
        {
          sessionId: 's',
          title: 'Edit a.ts?',
          subject: { type: 'tool_call', toolCall: { toolCallId: 'c', kind: 'edit' } },
          options,
        } as V2.RequestPermissionRequest,
        () => 'p1',
      );
      assert.deepEqual(byTool.toolCall, { toolCallId: 'c', kind: 'edit', title: 'Edit a.ts?' });
      const byCommand = permissionRequest(
        {
          sessionId: 's',
          title: 'Run rm -rf build?',
          subject: { type: 'command', command: 'rm -rf build', cwd: '/w', terminalId: 't9' },
          options,
        } as V2.RequestPermissionRequest,
        () => 'p2',
      );
      assert.equal(byCommand.toolCall.toolCallId, 'terminal:t9');
      assert.equal(byCommand.toolCall.kind, 'execute');
      assert.deepEqual(byCommand.toolCall.rawInput, { command: 'rm -rf build', cwd: '/w' });
      const bare = permissionRequest({ sessionId: 's', title: 'Go on?', options } as V2.RequestPermissionRequest, () => 'p3');
      assert.deepEqual(bare.toolCall, { toolCallId: 'p3', title: 'Go on?', kind: 'other' });
    });
  });

  describe('negotiation', () => {
    it('asks for v2 under auto only the adapters whose v2 was tried, from the version tried', () => {
      assert.equal(protocolToAsk('auto', ['npx', '-y', '@agentclientprotocol/claude-agent-acp']), 2);
      assert.equal(protocolToAsk('auto', ['npx', '-y', '@agentclientprotocol/claude-agent-acp@0.101.3']), 2);
      assert.equal(protocolToAsk('auto', ['npx', '-y', '@agentclientprotocol/claude-agent-acp@0.90.0']), 1, 'a pinned older version');
      assert.equal(protocolToAsk('auto', ['C:\\tools\\codex-acp.cmd']), 2);
      assert.equal(protocolToAsk('auto', ['npx', '-y', '@google/gemini-cli', '--acp']), 1);
      assert.equal(protocolToAsk('v1', ['codex-acp']), 1);
      assert.equal(protocolToAsk('v2', ['gemini', '--acp']), 2);
    });

    it('reads a v2 initialize answer in v1’s terms: object markers, the v2 baseline, loading through resume', () => {
      const v1 = initializeAnswer({
        protocolVersion: 2,
        info: { name: 'a', version: '1' },
        capabilities: { session: { prompt: { image: {} }, mcp: { http: {} }, delete: {} } },
        authMethods: [],
      } as unknown as V2.InitializeResponse);
      assert.equal(v1.agentInfo?.name, 'a');
      assert.deepEqual(v1.agentCapabilities?.promptCapabilities, { image: true, audio: false, embeddedContext: false });
      assert.deepEqual(v1.agentCapabilities?.mcpCapabilities, { http: true, sse: false, acp: false });
      assert.deepEqual(v1.agentCapabilities?.sessionCapabilities, { list: {}, resume: {}, close: {}, delete: {} });
      const overAcp = initializeAnswer({
        protocolVersion: 2,
        capabilities: { session: { mcp: { acp: {} } }, quota: {} },
        authMethods: [],
      } as unknown as V2.InitializeResponse);
      assert.equal(new AgentCapabilities(overAcp.agentCapabilities).supports('mcpAcp'), true, 'v2’s unstable mcp.acp marker is MCP over ACP');
      assert.equal(new AgentCapabilities(overAcp.agentCapabilities).supports('quota'), true, 'the draft quota RFD’s marker, as in v1');
      assert.equal(new AgentCapabilities(v1.agentCapabilities).supports('quota'), false);
      assert.equal(v1.agentCapabilities?.loadSession, true);
      const signIn = initializeAnswer({
        protocolVersion: 2,
        info: { name: 'a', version: '1' },
        authMethods: [
          { type: 'agent', methodId: 'key', name: 'API key' },
          { type: 'terminal', methodId: 'login', name: 'Log in', args: ['--login'], env: [{ name: 'MODE', value: 'cli' }] },
          { type: 'wormhole', methodId: 'w', name: 'Later' },
        ],
      } as unknown as V2.InitializeResponse);
      assert.deepEqual(signIn.authMethods, [
        { id: 'key', name: 'API key' },
        { id: 'login', name: 'Log in', type: 'terminal', args: ['--login'], env: { MODE: 'cli' } },
      ]);
    });
  });

  describe('the session model', () => {
    it('puts whole messages by id, and the agent’s echo of a prompt names the message the user sent', () => {
      const { model, apply } = v2Session();
      model.beginTurn([{ type: 'text', text: 'hi' }]);
      apply({ sessionUpdate: 'user_message', messageId: 'u1', content: [{ type: 'text', text: 'hi' }] });
      apply({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'Hel' } });
      apply({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'lo' } });
      apply({ sessionUpdate: 'agent_message', messageId: 'a1', content: [{ type: 'text', text: 'Hello, again' }] });
      const messages = model.entries.map((e) =>
        e.type === 'message' ? [e.role, e.messageId, e.content.map((b) => (b.type === 'text' ? b.text : '')).join('')] : [],
      );
      assert.deepEqual(messages, [
        ['user', 'u1', 'hi'],
        ['agent', 'a1', 'Hello, again'],
      ]);
      apply({ sessionUpdate: 'agent_message', messageId: 'a1', content: null });
      const agent = model.entries[1];
      assert.equal(agent?.type === 'message' && agent.content.length, 0, 'null clears');
    });

    it('ends the user’s turn on the agent’s idle once the agent has the prompt, and never on an earlier one', () => {
      const { model, apply } = v2Session();
      const idle = { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' };
      model.beginTurn([{ type: 'text', text: 'go' }]);
      // The agent's own work ends while the prompt waits for its gates (a checkpoint): the user's turn goes on.
      apply({ sessionUpdate: 'state_update', state: 'running' });
      apply(idle);
      assert.equal(model.turn.phase, 'running');
      model.v2.prompt = 'sent';
      apply(idle);
      assert.equal(model.turn.phase, 'running', 'sent, not yet taken in: a repeated idle is the last turn’s');
      model.v2.prompt = 'taken';
      apply(idle);
      assert.equal(model.turn.phase, 'idle', 'taken in: an agent that never says running still ends its turn');

      model.beginTurn([{ type: 'text', text: 'again' }]);
      model.v2.prompt = 'sent';
      model.cancelTurn();
      apply({ ...idle, stopReason: 'cancelled' });
      assert.deepEqual(model.turn, { phase: 'idle', stopReason: 'cancelled' }, 'a stopped turn ends on the agent’s idle');
    });

    it('keeps a thought and a message that share an id apart, and the cost a usage update leaves out', () => {
      const { model, apply } = v2Session();
      apply({ sessionUpdate: 'agent_thought_chunk', messageId: 'x', content: { type: 'text', text: 'hmm' } });
      apply({ sessionUpdate: 'agent_message_chunk', messageId: 'x', content: { type: 'text', text: 'Hi' } });
      apply({ sessionUpdate: 'agent_thought_chunk', messageId: 'x', content: { type: 'text', text: ' more' } });
      const shown = model.entries.map((e) =>
        e.type === 'message' ? `${e.role}:${e.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}` : '',
      );
      assert.deepEqual(shown, ['thought:hmm more', 'agent:Hi']);
      apply({ sessionUpdate: 'usage_update', used: 1, size: 10, cost: { amount: 0.5, currency: 'USD' } });
      apply({ sessionUpdate: 'usage_update', used: 2, size: 10 });
      assert.deepEqual(model.usage, { used: 2, size: 10, cost: { amount: 0.5, currency: 'USD' } });
      apply({ sessionUpdate: 'usage_update', used: 3, size: 10, cost: null });
      assert.deepEqual(model.usage, { used: 3, size: 10 }, 'null clears it');
    });

    it('ends the turn on idle once, and runs work the agent starts alone', () => {
      const { model, apply } = v2Session();
      model.beginTurn([{ type: 'text', text: 'go' }]);
      model.v2.prompt = 'sent';
      apply({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: { code: 1, message: 'the last turn' } });
      assert.equal(model.turn.phase, 'running', 'an idle before the agent runs the new turn is the last one’s again');
      apply({ sessionUpdate: 'state_update', state: 'running' });
      apply({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn', usage: { totalTokens: 30, inputTokens: 20, outputTokens: 10 } });
      assert.deepEqual(model.turn, { phase: 'idle', stopReason: 'end_turn' });
      assert.equal(model.turnEnds.at(-1)?.usage?.total, 30);
      apply({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
      assert.equal(model.turnEnds.length, 1, 'a repeated idle is no new ending');
      apply({ sessionUpdate: 'state_update', state: 'running' });
      assert.equal(model.turn.phase, 'running', 'the agent’s own work');
      apply({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: { code: 1, message: 'quota' } });
      assert.deepEqual(model.turn, { phase: 'idle', error: 'quota', errorCode: 1 }, 'the agent’s code is kept');
    });

    it('keeps an agent terminal’s output (replaced or appended) and lists the background work the agent reports', () => {
      const { model, apply } = v2Session();
      apply({ sessionUpdate: 'terminal_update', terminalId: 't', command: 'npm run dev', capabilities: { cancel: {} } });
      const bytes = Buffer.from('one ✓\n', 'utf8');
      const cut = bytes.indexOf(0xe2) + 1; // inside the check mark
      apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: bytes.subarray(0, cut).toString('base64') });
      apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: bytes.subarray(cut).toString('base64') });
      apply({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64('two\n') });
      assert.equal(model.terminals.get('t')?.text, 'one ✓\ntwo\n', 'a character split between chunks');
      const replaced: unknown[] = [];
      model.onDidChange((c) => c.type === 'terminal' && replaced.push(c));
      apply({ sessionUpdate: 'terminal_update', terminalId: 't', output: { data: b64('all\n') } });
      assert.equal(model.terminals.get('t')?.text, 'all\n', 'a terminal_update replaces the output');
      assert.deepEqual(replaced, [{ type: 'terminal', terminalId: 't', appended: 'all\n', replaced: true }]);
      apply({
        sessionUpdate: 'state_update',
        state: 'idle',
        background: [
          { type: 'terminal', terminalId: 't' },
          { type: 'tool_call', toolCallId: 'c' },
        ],
      });
      const items = model.background.items.map((i) => [i.key, i.title, i.cancel?.type ?? null]);
      assert.deepEqual(items, [
        ['t:t', 'npm run dev', 'terminal'],
        ['c:c', 'c', null],
      ]);
      assert.equal(model.background.dismiss('t:t'), true);
      apply({ sessionUpdate: 'state_update', state: 'idle', background: [] });
      assert.deepEqual(model.background.items, []);
      assert.equal(model.background.running, false);
    });

    it('names a listed subagent by its announcement, and offers Stop only while the agent says it may be cancelled', () => {
      const { model, apply } = v2Session();
      apply({ sessionUpdate: 'state_update', state: 'idle', background: [{ type: 'subagent', sessionId: 'kid' }] });
      assert.deepEqual(
        model.background.items.map((i) => [i.key, i.title, i.cancel ?? null]),
        [['s:kid', 'Subagent', null]],
        'listed before its announcement: a fallback name, no Stop',
      );
      let changes = 0;
      model.onDidChange((c) => c.type === 'background' && changes++);
      model.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'kid', title: 'Test watcher', capabilities: { cancel: {} } });
      assert.equal(changes, 1, 'the strip shows the announcement');
      assert.deepEqual(
        model.background.items.map((i) => [i.key, i.title, i.cancel ?? null]),
        [['s:kid', 'Test watcher', { type: 'subagent', id: 'kid' }]],
      );
      model.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'kid', state: { state: 'idle' } });
      assert.equal(model.background.items[0]?.cancel, undefined, 'idle, listed for its own background work: session/cancel stops nothing');
      model.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'kid', state: { state: 'running' } });
      assert.deepEqual(model.background.items[0]?.cancel, { type: 'subagent', id: 'kid' });
      model.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'kid', capabilities: null });
      assert.equal(model.background.items[0]?.cancel, undefined, 'capabilities cleared: only the agent can stop it');
      model.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'other', title: 'Not listed' });
      assert.equal(changes, 4, 'a subagent that is not listed does not touch the strip');
    });

    it('offers Stop on a card only while the agent says the call can be stopped alone', () => {
      const { model, apply } = v2Session();
      apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', title: 'Search', status: 'in_progress', capabilities: { cancel: {} } });
      assert.equal(model.toolCall('c')?.cancellable, true);
      assert.equal(model.background.canCancel('c'), true);
      apply({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'cancelled', capabilities: null });
      assert.equal(model.toolCall('c')?.cancellable, undefined);
      assert.equal(model.toolCall('c')?.status, 'cancelled');
    });

    it('bounds the content appended to one tool call', () => {
      const { model, apply } = v2Session();
      for (let i = 0; i < 600; i++) {
        apply({
          sessionUpdate: 'tool_call_content_chunk',
          toolCallId: 'c',
          content: { type: 'content', content: { type: 'text', text: `line ${i}` } },
        });
      }
      const content = model.toolCall('c')?.content ?? [];
      assert.equal(content.length, 500);
      const last = content.at(-1);
      assert.equal(last?.type === 'content' && last.content.type === 'text' && last.content.text, 'line 599');
    });
  });
});
