// Where a chat lives, in a real extension host with the fixture agent: an editor tab or the secondary side bar's chat
// view (acp.chat.location), and moves between them that keep the conversation, the session and a running turn.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, messages, newChat, releaseTurn, useFixtureAgent } from './lib/fixture';

/** The chat tabs in the editor area. */
function chatTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('acp.chat'));
}

async function chats(): Promise<readonly ChatHandle[]> {
  return (await api()).chats;
}

describe('where a chat lives', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('chat.location', undefined, vscode.ConfigurationTarget.Global);
  });

  it('opens New Chat in the side bar when acp.chat.location says so; a second one there moves the first to a tab', async () => {
    await useFixtureAgent('echo');
    await vscode.workspace.getConfiguration('acp').update('chat.location', 'sideBar', vscode.ConfigurationTarget.Global);
    await waitFor(() => chatTabs().length === 0, { what: 'no chat tabs' });
    const first = await newChat();
    assert.equal(first.location, 'sideBar');
    assert.equal(chatTabs().length, 0, 'no editor tab for a chat in the side bar');
    assert.equal(await first.send('hello from the side bar'), 'end_turn');
    assert.deepEqual(messages(first, 'user'), ['hello from the side bar']);

    const second = await newChat();
    assert.equal(second.location, 'sideBar');
    assert.equal(first.location, 'editor', 'the chat that was there moved to a tab, not closed');
    assert.ok((await chats()).includes(first));
    await waitFor(() => chatTabs().length === 1, { what: 'the first chat in an editor tab' });
    assert.deepEqual(messages(first, 'user'), ['hello from the side bar'], 'its conversation went along');
  });

  it('moves a running chat to the side bar and back, keeping its session, its conversation and the running turn', async () => {
    const fixture = await useFixtureAgent('paced');
    const chat = await newChat();
    assert.equal(chat.location, 'editor');
    const sessionId = chat.sessionId;
    await waitFor(() => chatTabs().length === 1, { what: 'one chat tab' });
    const turn = chat.send('long job');
    await waitFor(() => messages(chat, 'agent').some((t) => t.includes('Working on: long job')), { what: 'the agent to start' });

    await vscode.commands.executeCommand('acp.moveChatToSideBar');
    assert.equal(chat.location, 'sideBar');
    await waitFor(() => chatTabs().length === 0, { what: 'the chat tab to close' });
    assert.equal(chat.sessionId, sessionId, 'the same session');
    assert.equal(chat.attention, 'working', 'the turn still runs');
    await releaseTurn(fixture);
    assert.equal(await within(turn, 20_000, 'the turn'), 'end_turn', 'the turn ended normally after the move');
    assert.match(messages(chat, 'agent').at(-1) ?? '', /Done: long job/);

    await vscode.commands.executeCommand('acp.moveChatToEditor');
    assert.equal(chat.location, 'editor');
    await waitFor(() => chatTabs().length === 1, { what: 'the chat back in a tab' });
    assert.equal(chat.sessionId, sessionId);
    const after = chat.send('after the moves');
    await waitFor(() => messages(chat, 'agent').some((t) => t.includes('Working on: after the moves')), { what: 'the second turn to start' });
    await releaseTurn(fixture);
    assert.equal(await after, 'end_turn');
    assert.deepEqual(messages(chat, 'user'), ['long job', 'after the moves']);
  });
});
