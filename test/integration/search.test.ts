// Search Chats in a real extension host with the fixture agent: the text of every chat kept for this workspace is
// searched through the index, and opening a result brings its chat back (or forward) at the matching message.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor } from '../lib/wait';
import { answeringQuickInput, api, closeAllChats, ENTER, newChat, useFixtureAgent } from './lib/fixture';

/** Runs Search Chats for `query` and accepts the first result once there is one, as the user's Enter would. */
function searchAndOpen(query: string): Promise<ChatHandle | undefined> {
  return answeringQuickInput(
    () => vscode.commands.executeCommand<ChatHandle | undefined>('acp.searchChats', query),
    ENTER,
    `a result for "${query}" to open`,
  );
}

describe('Search Chats', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('finds a message among several chats, and opens its chat at that message', async () => {
    // No session/load: the chat comes back from what this computer kept, and the match is among those entries.
    await useFixtureAgent('echo', { env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) } });
    const first = await newChat();
    await first.send('the pelican migration plan');
    await first.send('something else entirely');
    const second = await newChat();
    await second.send('a note about walruses');
    await second.send('walruses again, with zebras');
    const sessionId = second.sessionId;
    first.close();
    second.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chats to close' });

    const opened = await searchAndOpen('walruses zebr');
    assert.ok(opened, 'a chat opened');
    await waitFor(() => opened.revealed !== undefined, { what: 'the match to be brought into view' });
    const match = opened.revealed!;
    assert.equal(match.kind, 'message');
    assert.match(match.kind === 'message' ? match.text : '', /walruses again, with zebras/);
    // The chat is the one that holds it (kept on this computer, since this agent cannot reopen sessions).
    assert.ok(opened.entries.some((e) => e.kind === 'message' && e.text.includes('walruses again')));
    assert.ok(!opened.entries.some((e) => e.kind === 'message' && e.text.includes('pelican')));
    void sessionId;
  });

  it('finds an open chat too, and brings it forward at the match', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    await chat.send('the quokka question');
    await chat.send('unrelated');
    const opened = await searchAndOpen('quokka');
    // Compared by identity and session: a handle is too large for assert's diff of two objects.
    assert.equal(opened?.sessionId, chat.sessionId, 'the chat of the match');
    assert.ok(opened === chat, 'the open chat, not a new one');
    assert.equal((await api()).chats.length, 1);
    await waitFor(() => chat.revealed !== undefined, { what: 'the match to be brought into view' });
    assert.match(chat.revealed?.kind === 'message' ? chat.revealed.text : '', /quokka/);
  });
});
