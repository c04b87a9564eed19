// Work that outlives its turn, in a real extension host with the fixture agent over ACP v1: a command the client runs
// for the agent (a real process) and a tool call the agent left in progress show as background work once the turn
// ended, with the command's output; the chat is "working in background", not done; Stop kills the command (its card
// shows the exit); what only the agent can stop cannot be stopped here, but can be dismissed; when the last of it ends
// the chat is done.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, newChat, recorded, useFixtureAgent } from './lib/fixture';

/** The exit a tool card shows for its command, if it ended. */
function exitOf(chat: ChatHandle, toolCallId: string): unknown {
  const entry = chat.entries.find((e) => e.kind === 'tool' && e.toolCallId === toolCallId);
  return entry?.kind === 'tool' ? entry.terminals[0]?.exit : undefined;
}

describe('background work', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('shows what outlived its turn, stops the command the client runs, and is done when the last of it ends', async () => {
    await useFixtureAgent('background');
    const chat = await newChat();
    assert.equal(await within(chat.send('serve'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => chat.background.some((i) => i.tail.includes('serving on http://localhost:5173')), {
      what: "the server's output in the background work",
    });
    const items = chat.background;
    assert.deepEqual(
      items.map((i) => [i.key, i.title, i.stop]),
      [
        ['c:dev-server', 'npm run dev', 'kill'],
        ['c:watch-tests', 'Watch the tests', 'dismiss'],
      ],
    );
    assert.ok(
      items.every((i) => i.startedAt <= Date.now() && Date.now() - i.startedAt < 60_000),
      'each says when it started',
    );
    assert.equal(chat.attention, 'background', 'not done while the work runs');
    assert.equal(chat.turn.phase, 'idle');
    const tools = chat.entries.filter((e) => e.kind === 'tool');
    assert.deepEqual(
      tools.map((e) => e.kind === 'tool' && e.status),
      ['in_progress', 'in_progress'],
      'a tool call still running when the turn ended is not marked cancelled',
    );

    assert.equal(await chat.stopBackground('c:watch-tests', 'stop'), false, 'only the agent can stop its own work');
    assert.equal(await chat.stopBackground('c:dev-server', 'stop'), true);
    await waitFor(() => chat.background.length === 1, { what: 'the stopped server to leave the background work' });
    assert.ok(exitOf(chat, 'dev-server'), "the server's card shows that it ended");
    assert.equal(chat.attention, 'background', 'the test watcher still runs');

    assert.equal(await within(chat.send('finish'), 15_000, 'the second turn'), 'end_turn');
    await waitFor(() => chat.background.length === 0, { what: 'the finished watcher to leave the background work' });
    assert.notEqual(chat.attention, 'background');
  });

  it('keeps a closed chat’s session open while its server runs, and gives it back, live, to the chat opened again', async () => {
    const fixture = await useFixtureAgent('background');
    const chat = await newChat();
    assert.equal(await within(chat.send('serve'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => chat.background.some((i) => i.tail.includes('serving on')), { what: 'the server in the background work' });
    const sessionId = chat.sessionId;
    assert.ok(sessionId);
    chat.close(); // as the tab's close button does: the user is asked afterwards, and meanwhile the server runs on
    const sent = () => recorded(fixture.recordFile).map((m) => m.method);
    await api();
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: fixture.name, sessionId });
    assert.ok(again, 'the chat opened again');
    assert.equal(again.sessionId, sessionId);
    await waitFor(() => again.background.some((i) => i.key === 'c:dev-server' && i.stop === 'kill'), {
      what: 'the running server in the chat again',
    });
    assert.deepEqual(
      sent().filter((m) => m === 'session/close' || m === 'session/load' || m === 'session/resume'),
      [],
      'the session was neither closed nor opened again at the agent: it is the same, live',
    );
    assert.equal(await again.stopBackground('c:dev-server', 'stop'), true);
    await waitFor(() => !again.background.some((i) => i.key === 'c:dev-server'), { what: 'the stopped server to leave' });
  });

  it('dismisses what only the agent can stop; Stop on the rest leaves nothing in the background', async () => {
    await useFixtureAgent('background');
    const chat = await newChat();
    assert.equal(await within(chat.send('serve'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => chat.background.length === 2, { what: 'the background work' });
    assert.equal(await chat.stopBackground('c:dev-server', 'dismiss'), false, 'a command the client runs is stopped, not hidden');
    assert.equal(await chat.stopBackground('c:watch-tests', 'dismiss'), true);
    assert.deepEqual(
      chat.background.map((i) => i.key),
      ['c:dev-server'],
    );
    assert.equal(await chat.stopBackground('c:watch-tests', 'dismiss'), false, 'already gone');
    assert.equal(await chat.stopBackground('c:dev-server', 'stop'), true);
    await waitFor(() => chat.background.length === 0 && chat.attention !== 'background', {
      what: `nothing in the background (attention ${chat.attention})`,
    });
  });
});
