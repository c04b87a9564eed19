// ACP v2, in a real extension host with the fixture agent serving v2 as the maintained adapters do (v2 to a client
// that asks for it, v1 to others): the negotiation both ways, a turn that ends by the agent's idle state (the prompt's
// answer has no stop reason in v2), work the agent starts alone, its own terminal running on in the background and
// stopped from the strip (`terminal/cancel`), and one tool call stopped from its card (`tool_call/cancel`) while the
// turn goes on.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, newChat, recorded, useFixtureAgent } from './lib/fixture';

const V2 = { ACP_FIXTURE_V2: '1' };

/** The protocol versions the client asked for in `initialize`, in order. */
function asked(recordFile: string): unknown[] {
  return recorded(recordFile)
    .filter((m) => m.method === 'initialize')
    .map((m) => m.params?.['protocolVersion']);
}

function agentText(chat: ChatHandle): string {
  return chat.entries
    .filter((e) => e.kind === 'message' && e.role === 'agent')
    .map((e) => (e.kind === 'message' ? e.text : ''))
    .join('\n');
}

describe('ACP v2', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('speaks v2 to an agent that answers 2: the turn ends with the agent’s idle state', async () => {
    const fixture = await useFixtureAgent('basic', { protocol: 'v2', env: V2 });
    const chat = await newChat();
    assert.equal(await within(chat.send('hi'), 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(asked(fixture.recordFile), [2], 'one initialize, for v2');
    const init = recorded(fixture.recordFile).find((m) => m.method === 'initialize');
    assert.ok(init?.params?.['info'], 'v2 names the client in `info`');
    assert.equal(agentText(chat), 'Hello');
    const users = chat.entries.filter((e) => e.kind === 'message' && e.role === 'user');
    assert.equal(users.length, 1, 'the agent’s user_message names the message the user sent, and adds none');
    assert.equal(chat.turn.phase, 'idle');
    assert.equal(await within(chat.send('again'), 15_000, 'the second turn'), 'end_turn');

    // v2 names a config option's key `configId`, and a select's value's type.
    const current = (id: string) => chat.session.pickers.find((p) => p.id === id)?.current;
    assert.ok(current('model'), 'the model picker, from the v2 config options');
    assert.equal(
      chat.session.pickers.find((p) => p.id === 'mode'),
      undefined,
      'v2 has no modes',
    );
    await chat.setConfigOption('model', 'smart');
    assert.equal(current('model'), 'smart');
    const set = recorded(fixture.recordFile).find((m) => m.method === 'session/set_config_option');
    assert.deepEqual(set?.params, { sessionId: chat.sessionId, configId: 'model', type: 'id', value: 'smart' });
  });

  it('falls back to v1 when the agent answers 1, and asks v1 alone of an agent whose v2 was not tried', async () => {
    const v1Agent = await useFixtureAgent('basic', { protocol: 'v2' });
    const chat = await newChat();
    assert.equal(await within(chat.send('hi'), 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(asked(v1Agent.recordFile), [2, 1], 'asked for 2, answered 1: initialized again in v1’s terms');
    const again = recorded(v1Agent.recordFile).filter((m) => m.method === 'initialize')[1];
    assert.ok(again?.params?.['clientCapabilities'], 'the v1 initialize carries the client’s v1 capabilities');
    await closeAllChats();

    const auto = await useFixtureAgent('basic', { name: 'Fixture (auto)', env: V2 });
    const second = await newChat();
    assert.equal(await within(second.send('hi'), 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(asked(auto.recordFile), [1], '`auto` asks v2 only of the adapters whose v2 was tried');
  });

  it('shows work the agent starts by itself, with no prompt', async () => {
    await useFixtureAgent('v2-agent-work', { protocol: 'v2', env: V2 });
    const chat = await newChat();
    assert.equal(await within(chat.send('hi'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => agentText(chat).includes('The nightly build finished'), { what: 'the message of the agent’s own work' });
    await waitFor(() => chat.turn.phase === 'idle', { what: 'the agent’s work to end' });
    assert.equal(chat.entries.filter((e) => e.kind === 'message' && e.role === 'user').length, 1, 'no user message for it');
  });

  it('shows the agent’s terminal that outlives the turn, stops it from the strip, and the chat’s state follows', async () => {
    const fixture = await useFixtureAgent('v2-background', { protocol: 'v2', env: V2 });
    const chat = await newChat();
    assert.equal(await within(chat.send('serve'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => chat.background.some((i) => i.tail.includes('Local: http://localhost:5173/')), {
      what: 'the server’s output in the strip',
    });
    const [item] = chat.background;
    assert.equal(item?.title, 'npm run dev');
    assert.equal(item?.stop, 'kill', 'the agent said it can stop it');
    assert.equal(chat.attention, 'background', 'working in background, not done');
    assert.equal(await chat.stopBackground(item.key, 'stop'), true);
    await waitFor(() => chat.background.length === 0, { what: 'the stopped server to leave the strip' });
    assert.notEqual(chat.attention, 'background');
    const cancel = recorded(fixture.recordFile).find((m) => m.method === 'terminal/cancel');
    assert.ok(cancel, 'terminal/cancel went to the agent');
    const terminals = chat.entries.flatMap((e) => (e.kind === 'tool' ? e.terminals : []));
    assert.ok(
      terminals.some((t) => t.exit),
      'the card shows that the terminal ended',
    );
  });

  it('shows a detached subagent in the strip and as a card, and stops it with session/cancel on its own session', async () => {
    const fixture = await useFixtureAgent('v2-subagent', { protocol: 'v2', env: V2 });
    const chat = await newChat();
    assert.equal(await within(chat.send('watch the tests'), 15_000, 'the turn'), 'end_turn');
    const item = await waitFor(() => chat.background.find((i) => i.title === 'Test watcher'), { what: 'the subagent in the strip' });
    assert.equal(item.stop, 'kill', 'its subagent_update said it may be cancelled');
    assert.equal(chat.attention, 'background', 'working in background, not done');
    const card = await waitFor(() => chat.subagents.find((s) => s.title === 'Test watcher' && s.entries.length > 0), {
      what: 'the subagent’s card with its own message',
    });
    assert.equal(card.state, 'running');
    assert.deepEqual(
      card.entries.map((e) => (e.kind === 'message' ? e.text : e.kind)),
      ['Watching the tests.'],
      'its v2 message, on its own session',
    );
    assert.equal(await chat.stopBackground(item.key, 'stop'), true);
    await waitFor(() => chat.background.length === 0, { what: 'the stopped subagent to leave the strip' });
    assert.notEqual(chat.attention, 'background');
    assert.equal(chat.subagents.find((s) => s.sessionId === card.sessionId)?.state, 'idle');
    const cancels = recorded(fixture.recordFile).filter((m) => m.method === 'session/cancel');
    assert.deepEqual(
      cancels.map((m) => (m.params as { sessionId?: string }).sessionId),
      [card.sessionId],
      'session/cancel went to the child alone',
    );
  });

  it('stops one tool call from its card while the turn goes on', async () => {
    const fixture = await useFixtureAgent('v2-cancel-tool', { protocol: 'v2', env: V2 });
    const chat = await newChat();
    const turn = chat.send('search');
    await waitFor(() => chat.entries.some((e) => e.kind === 'tool' && e.canStop === true), { what: 'the search’s card to offer Stop' });
    const card = chat.entries.find((e) => e.kind === 'tool');
    assert.ok(card?.kind === 'tool');
    assert.equal(await chat.cancelToolCall(card.toolCallId), true);
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn', 'the turn was not stopped');
    const after = chat.entries.find((e) => e.kind === 'tool');
    assert.equal(after?.kind === 'tool' && after.status, 'cancelled');
    assert.ok(agentText(chat).includes('looked in the project instead'), 'the agent went on after the stopped call');
    assert.equal(recorded(fixture.recordFile).filter((m) => m.method === 'session/cancel').length, 0, 'the turn itself was not cancelled');
  });

  it('opens a v2 chat again with its history, replayed by session/resume from the start', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-v2-state-'));
    try {
      const fixture = await useFixtureAgent('basic', { name: 'Fixture (v2, kept)', protocol: 'v2', env: { ...V2, ACP_FIXTURE_STATE_DIR: state } });
      const chat = await newChat();
      assert.equal(await within(chat.send('remember this'), 15_000, 'the turn'), 'end_turn');
      const sessionId = chat.sessionId;
      assert.ok(sessionId);
      await closeAllChats();
      await api();
      const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: fixture.name, sessionId });
      assert.ok(again, 'the chat opened again');
      const resume = recorded(fixture.recordFile).find((m) => m.method === 'session/resume');
      assert.deepEqual(resume?.params?.['replayFrom'], { type: 'start' }, 'v2 loads a session by resuming it from the start');
      assert.ok(!recorded(fixture.recordFile).some((m) => m.method === 'session/load'), 'v2 has no session/load');
      await waitFor(() => agentText(again) === 'Hello', { what: 'the replayed answer' });
      assert.equal(await within(again.send('and now?'), 15_000, 'a turn in the reopened chat'), 'end_turn');
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
