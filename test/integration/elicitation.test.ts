// The agent's questions (elicitation/create) in a real extension host with the fixture agent: a form of every field
// kind under its tool call, refused with the field's message until valid and then answered with typed content;
// Decline; Stop answering `cancel`; a url question opened on the user's word and closed by elicitation/complete, or
// cancelled; an unknown mode declined and logged.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, agentText, closeAllChats, ENTER, newChat, recorded, releaseTurn, useFixtureAgent } from './lib/fixture';

async function question(chat: ChatHandle) {
  return waitFor(() => chat.elicitations[0], { what: 'the agent\u2019s question' });
}

function answer(chat: ChatHandle): unknown {
  const said = agentText(chat).match(/answer:(\{.*?\})(?: completed)?$/);
  return said ? JSON.parse(said[1]!) : undefined;
}

describe('the agent\u2019s questions', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('shows a form of every field kind under its tool call, refuses invalid input with the field\u2019s message, and answers typed content', async () => {
    await useFixtureAgent('elicit-form');
    const chat = await newChat();
    const turn = chat.send('set it up');
    const q = await question(chat);
    assert.equal(q.toolCallId, 'ask-1');
    assert.equal(q.message, 'How should the project be set up?');
    assert.deepEqual(
      q.form?.fields.map((f) => [f.name, f.kind, f.required]),
      [
        ['name', 'text', true],
        ['email', 'text', true],
        ['site', 'text', false],
        ['start', 'text', false],
        ['count', 'integer', true],
        ['ratio', 'number', false],
        ['strict', 'boolean', false],
        ['license', 'select', false],
        ['size', 'select', false],
        ['tags', 'multiselect', false],
      ],
    );
    assert.equal(chat.attention, 'needsYou');
    const valid = { name: 'demo', email: 'me@example.com', count: '3', ratio: '0.5', strict: true, license: 'mit', tags: ['web', 'cli'] };
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, name: 'x' }), 'Name: Enter at least 2 characters.');
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, email: 'nope' }), 'Email: Enter an email address.');
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, count: '2.5' }), 'Count: Enter a whole number.');
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, count: '9' }), 'Count: Enter 5 or less.');
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, tags: ['web', 'cli', 'lib'] }), 'Tags: Pick at most 2.');
    assert.equal(await chat.answerElicitation(q.id, 'accept', { ...valid, start: '24/11/2026' }), 'Start: Enter a date as YYYY-MM-DD.');
    assert.equal(chat.elicitations.length, 1, 'still waiting after refused answers');
    assert.equal(await chat.answerElicitation(q.id, 'accept', valid), undefined);
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(answer(chat), {
      action: 'accept',
      content: { name: 'demo', email: 'me@example.com', count: 3, ratio: 0.5, strict: true, license: 'mit', tags: ['web', 'cli'] },
    });
    assert.equal(chat.elicitations.length, 0);
  });

  it('answers decline, and Stop answers cancel', async () => {
    await useFixtureAgent('elicit-form');
    const chat = await newChat();
    const first = chat.send('one');
    assert.equal(await chat.answerElicitation((await question(chat)).id, 'decline'), undefined);
    assert.equal(await within(first, 15_000, 'the declined turn'), 'end_turn');
    assert.deepEqual(answer(chat), { action: 'decline' });

    const second = chat.send('two');
    await question(chat);
    await chat.cancel();
    assert.equal(await within(second, 15_000, 'the stopped turn'), 'cancelled');
    assert.equal(chat.elicitations.length, 0, 'Stop settled the question');
  });

  it('shows a url question without fetching it; Open answers accept and the card stays until elicitation/complete', async () => {
    const fixture = await useFixtureAgent('elicit-url');
    const chat = await newChat();
    const turn = chat.send('sign me in');
    const q = await question(chat);
    assert.deepEqual(q.url, { url: 'http://localhost:9/authorize?client=acp', host: 'localhost', hostAt: 7, opened: false });
    assert.equal(await chat.openElicitationUrl(q.id), true, 'opened');
    // The card stays, opened, until the agent says the flow is complete: the test says when it does.
    await waitFor(() => chat.elicitations[0]?.url?.opened === true, { what: 'the question to show it was opened' });
    await waitFor(() => /answer:\{"action":"accept"\}/.test(agentText(chat)), { what: 'the agent to hear accept' });
    assert.equal(chat.elicitations.length, 1, 'still there before elicitation/complete');
    await releaseTurn(fixture);
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), /answer:\{"action":"accept"\} completed/);
    await waitFor(() => chat.elicitations.length === 0, { what: 'elicitation/complete to close the card' });
  });

  it('answers cancel for a url question the user cancels', async () => {
    await useFixtureAgent('elicit-url');
    const chat = await newChat();
    const turn = chat.send('sign me in');
    await chat.answerElicitation((await question(chat)).id, 'cancel');
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(answer(chat), { action: 'cancel' });
  });

  it('declines a mode it does not know, and keeps its payload in the log', async () => {
    await useFixtureAgent('elicit-unknown');
    const chat = await newChat();
    assert.equal(await within(chat.send('guess'), 15_000, 'the turn'), 'end_turn');
    assert.deepEqual(answer(chat), { action: 'decline' });
    await waitFor(() => acpLog().includes('telepathy'), { what: 'the declined payload in the log' });
  });

  it('tells of a question outside any chat (during setup) in a notification, asks it in the quick input on Show, and answers with what was picked', async () => {
    const fixture = await useFixtureAgent('elicit-setup');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The notification's Show (its primary action, Ctrl+Shift+A), then the quick pick (Yes, No): Enter takes the
    // first, as the user would. Nothing opens before Show.
    const opening = newChat();
    let settled = false;
    void opening.finally(() => (settled = true));
    await waitFor(
      async () => {
        if (!settled) {
          await vscode.commands.executeCommand('notification.acceptPrimaryAction');
          await vscode.commands.executeCommand(ENTER);
        }
        return settled;
      },
      { timeoutMs: 20_000, what: 'the chat to open once the question was answered' },
    );
    await opening;
    const answer = recorded(fixture.recordFile).find((m) => (m.result as { action?: string } | undefined)?.action !== undefined);
    assert.deepEqual(answer?.result, { action: 'accept', content: { ready: true } });
  });
});
