// Writing while the agent works, in a real extension host with the fixture agent: messages queue and go one at a
// time after each end_turn (never on top of a running prompt), a stopped turn holds the queue until the user says
// Send, Stop and Send stops and sends, and Steer sends into the running turn of an agent that advertises it (and
// queues, saying so once, for one that does not).
import * as assert from 'node:assert/strict';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { closeAllChats, messages, newChat, recorded, releaseTurn, useFixtureAgent } from './lib/fixture';

/** The texts of the prompts the agent received, in order. */
function prompts(recordFile: string): string[] {
  return recorded(recordFile)
    .filter((m) => m.method === 'session/prompt')
    .map((m) => ((m.params?.['prompt'] as { text?: string }[] | undefined) ?? []).map((b) => b.text ?? '').join(''));
}

const idle = (chat: ChatHandle) => chat.queue.items.length === 0 && chat.attention !== 'working';

/** Waits until the agent has the turn (it said so), not only the chat. */
async function agentWorking(chat: ChatHandle, says: string): Promise<void> {
  await waitFor(() => messages(chat, 'agent').some((text) => text.includes(says)), { what: `the agent to say "${says}"` });
}

describe('writing while the agent works', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('queues messages during a turn and sends each as its own turn after end_turn, in the order the user left them', async () => {
    const fixture = await useFixtureAgent('paced');
    const chat = await newChat();
    const first = chat.send('one');
    await agentWorking(chat, 'Working on: one');
    chat.submit('two', 'queue');
    chat.submit('three', 'queue');
    chat.submit('four', 'queue');
    await waitFor(() => chat.queue.items.length === 3, { what: 'three queued messages' });
    const [two, three, four] = chat.queue.items;
    chat.changeQueued(three!.id, 'up');
    chat.changeQueued(four!.id, 'remove');
    assert.deepEqual(
      chat.queue.items.map((i) => i.text),
      ['three', 'two'],
    );
    assert.equal(two?.text, 'two');
    // Each turn ends when the test says so: the queue was edited while the first one surely ran.
    await releaseTurn(fixture);
    assert.equal(await within(first, 15_000, 'the first turn'), 'end_turn');
    await agentWorking(chat, 'Working on: three');
    await releaseTurn(fixture);
    await agentWorking(chat, 'Working on: two');
    await releaseTurn(fixture);
    await waitFor(() => prompts(fixture.recordFile).length === 3 && idle(chat), { timeoutMs: 20_000, what: 'the queue to be sent' });
    assert.deepEqual(prompts(fixture.recordFile), ['one', 'three', 'two']);
    // Each reply belongs to its own prompt: the agent never had two at once.
    assert.deepEqual(messages(chat, 'user'), ['one', 'three', 'two']);
    assert.deepEqual(messages(chat, 'agent'), ['Working on: one\nDone: one', 'Working on: three\nDone: three', 'Working on: two\nDone: two']);
  });

  it('holds the queue after a stopped turn, and sends it when the user says Send', async () => {
    const fixture = await useFixtureAgent('paced');
    const chat = await newChat();
    const first = chat.send('one');
    await agentWorking(chat, 'Working on: one');
    chat.submit('two', 'queue');
    await chat.cancel();
    assert.equal(await within(first, 15_000, 'the stopped turn'), 'cancelled');
    await waitFor(() => chat.queue.held, { what: 'the queue to be held' });
    assert.deepEqual(prompts(fixture.recordFile), ['one'], 'nothing went without the user');
    chat.sendQueued();
    await agentWorking(chat, 'Working on: two');
    await releaseTurn(fixture);
    await waitFor(() => prompts(fixture.recordFile).length === 2 && idle(chat), { what: 'the held message to be sent' });
    assert.deepEqual(messages(chat, 'user'), ['one', 'two']);
  });

  it('Stop and Send stops the turn and sends the message once it has stopped', async () => {
    const fixture = await useFixtureAgent('paced');
    const chat = await newChat();
    const first = chat.send('long job');
    await agentWorking(chat, 'Working on: long job');
    chat.submit('do this instead', 'stopAndSend');
    assert.equal(await within(first, 15_000, 'the stopped turn'), 'cancelled');
    await agentWorking(chat, 'Working on: do this instead');
    await releaseTurn(fixture);
    await waitFor(() => prompts(fixture.recordFile).length === 2 && idle(chat), { what: 'the message to be sent' });
    assert.deepEqual(prompts(fixture.recordFile), ['long job', 'do this instead']);
    assert.match(messages(chat, 'agent').at(-1) ?? '', /Done: do this instead/);
  });

  it('steers into the running turn of an agent that advertises it, and says how it went', async () => {
    const fixture = await useFixtureAgent('steerable');
    const chat = await newChat();
    const turn = chat.send('start');
    await agentWorking(chat, 'working');
    chat.submit('go left', 'steer');
    assert.equal(await within(turn, 15_000, 'the steered turn'), 'end_turn');
    assert.deepEqual(prompts(fixture.recordFile), ['start'], 'one prompt: the message went into it');
    const steer = recorded(fixture.recordFile).find((m) => m.method === '_session/steering');
    assert.equal(((steer?.params?.['prompt'] as { text?: string }[] | undefined) ?? [])[0]?.text, 'go left');
    const sent = chat.entries.find((e) => e.kind === 'message' && e.role === 'user' && e.text === 'go left');
    assert.equal(sent?.kind === 'message' ? sent.steer : undefined, 'injected');
    assert.match(messages(chat, 'agent').join(''), /Steered: go left/);
  });

  it('queues a steer for an agent that cannot take it, and sends it after the turn', async () => {
    const fixture = await useFixtureAgent('paced');
    const chat = await newChat();
    const first = chat.send('one');
    await agentWorking(chat, 'Working on: one');
    chat.submit('two', 'steer');
    await waitFor(() => chat.queue.items.length === 1, { what: 'the message to be queued instead' });
    await releaseTurn(fixture);
    assert.equal(await within(first, 15_000, 'the turn'), 'end_turn');
    await agentWorking(chat, 'Working on: two');
    await releaseTurn(fixture);
    await waitFor(() => prompts(fixture.recordFile).length === 2 && idle(chat), { what: 'the queued message to be sent' });
    assert.equal(
      recorded(fixture.recordFile).filter((m) => m.method === '_session/steering').length,
      0,
      'no steering request to an agent without it',
    );
  });
});
