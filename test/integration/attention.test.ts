// What a chat asks of its user, in a real extension host: needs you while a permission waits (and the tab says so),
// working, done and not yet seen when the turn ends out of sight until the user looks, and failed when the agent
// crashes.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor, within } from '../lib/wait';
import { closeAllChats, newChat, useFixtureAgent } from './lib/fixture';

const tabLabels = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));

describe('what a chat asks of its user', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('needs you while a permission waits, with a mark on its tab, then works, and is done once the turn ends', async () => {
    await useFixtureAgent('permission');
    const chat = await newChat();
    const turn = chat.send('may I?');
    await waitFor(() => chat.attention === 'needsYou', { what: 'the chat to need the user' });
    await waitFor(() => tabLabels().includes(`● (1) ${chat.agentName}`), { what: `the tab to be marked; tabs: ${tabLabels().join(', ')}` });
    const [request] = chat.permissions;
    assert.ok(request && (await chat.answerPermission(request.id, 'allow')));
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn');
    // In front of the user when it ended: nothing more to see.
    await waitFor(() => chat.attention === 'none', { what: `the chat to ask nothing (it is ${chat.attention})` });
    await waitFor(() => tabLabels().includes(chat.agentName), { what: `the mark to leave the tab; tabs: ${tabLabels().join(', ')}` });
  });

  it('is done and not yet seen when its turn ends behind another tab, until the user looks at it', async () => {
    await useFixtureAgent('echo', { name: 'Fixture Behind' });
    const chat = await newChat();
    // Another editor in front of the chat, in the same group; then the turn runs and ends out of sight.
    const doc = await vscode.workspace.openTextDocument({ content: 'in front' });
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputText, { what: 'the editor in front' });
    assert.equal(await within(chat.send('while you were away'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => chat.attention === 'unseen', { what: `the chat to be done and unseen (it is ${chat.attention})` });
    await waitFor(() => tabLabels().includes(`✓ ${chat.agentName}`), { what: `the done mark on the tab; tabs: ${tabLabels().join(', ')}` });
    // The user looks: the editor in front goes, and the chat is in front again.
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor(() => chat.attention === 'none', { what: `the chat to be seen (it is ${chat.attention})` });
    await waitFor(() => tabLabels().includes(chat.agentName), { what: `the mark to leave the tab; tabs: ${tabLabels().join(', ')}` });
  });

  it('is failed when its agent crashes', async () => {
    await useFixtureAgent('crash');
    const chat = await newChat();
    await chat.send('go').catch(() => undefined);
    await waitFor(() => chat.attention === 'failed', { what: `the chat to be failed (it is ${chat.attention})` });
    await waitFor(() => tabLabels().some((label) => label.startsWith('✕ ')), { what: 'the failed mark on the tab' });
  });
});
