// Subagents (unstable) in a real extension host with the fixture agent: a child announced by its parent gets a card
// with its name, task and state; the task its parent sent it and its reply (inter-session messages) show on the
// card; its own traffic streams into the card; its permission request reaches the user and
// is answered on its session; Cancel goes to the child; a malformed announcement is skipped and logged.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor, within } from '../lib/wait';
import { join } from 'node:path';
import { acpLog, agentText, answeringQuickInput, closeAllChats, ENTER, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

describe('subagents', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('shows a child as a card with its own traffic, and its permission request is answered on its session', async () => {
    const fixture = await useFixtureAgent('subagents');
    const chat = await newChat();
    const turn = chat.send('research it');
    const child = await waitFor(() => chat.subagents[0]?.permissions[0] && chat.subagents[0], { what: 'the subagent and its permission request' });
    assert.equal(child.sessionId, 'child-1');
    assert.equal(child.title, 'Researcher');
    assert.equal(child.description, 'Find the docs');
    assert.equal(child.state, 'running');
    assert.equal(child.canCancel, true);
    assert.equal(child.task, 'Find where the docs explain sessions', 'the task the parent sent');
    assert.deepEqual(
      child.entries.map((e) => (e.kind === 'message' ? e.text : e.kind === 'tool' ? e.title : e.kind)),
      ['Reading the docs', 'Read docs/index.md'],
    );
    assert.equal(chat.attention, 'needsYou', 'a child waiting for the user makes the chat need the user');
    assert.equal(await chat.answerSubagentPermission('child-1', child.permissions[0]!.id, 'allow'), true);
    assert.equal(await within(turn, 15_000, 'the turn'), 'end_turn');
    const done = chat.subagents[0]!;
    assert.equal(done.state, 'idle');
    assert.match(done.entries.map((e) => (e.kind === 'message' ? e.text : '')).join(''), /outcome:allow/);
    assert.equal(done.reply, 'The docs explain it in **sessions.md**.', 'the reply to the parent, its chunks in order');
    // Copy on the child's first message copies that message, not the chat's own entry of the same number.
    await vscode.env.clipboard.writeText('');
    assert.equal(await chat.copyEntry(done.entries[0]!.id, false, 'child-1'), true);
    assert.equal(await vscode.env.clipboard.readText(), 'Reading the docs');
    assert.equal(await chat.copyEntry(done.entries[0]!.id, false, 'no-such-child'), false, 'an unknown subagent copies nothing');
    assert.equal(chat.subagents.length, 1, 'the malformed announcement made no card');
    const answer = recorded(fixture.recordFile).find(
      (m) => (m.result as { outcome?: { optionId?: string } } | undefined)?.outcome?.optionId === 'allow',
    );
    assert.ok(answer, 'the agent got the answer');
    await waitFor(() => acpLog().includes('skipped a malformed subagent_update'), { what: 'the malformed update in the log' });
    await waitFor(() => acpLog().includes('skipped a malformed session_message'), { what: 'the malformed message in the log' });
  });

  it('answers a child’s permission request by its chat’s level, as the chat’s own', async () => {
    await useFixtureAgent('subagents');
    const chat = await newChat();
    await answeringQuickInput(() => chat.setPermissionLevel('allowAll'), ENTER, 'the Allow all confirmation');
    assert.equal(chat.permissionLevel.level, 'allowAll');
    assert.equal(await within(chat.send('research it'), 15_000, 'the turn, with no one asked'), 'end_turn');
    const child = chat.subagents[0]!;
    assert.match(child.entries.map((e) => (e.kind === 'message' ? e.text : '')).join(''), /outcome:allow/);
    const read = child.entries.find((e) => e.kind === 'tool');
    assert.match(read?.kind === 'tool' ? (read.autoAnswer?.reason ?? '') : '', /Allow all/, 'the card says what answered it');
  });

  it('asks about a child\u2019s path outside the folders named for it, even inside the workspace and at Allow all', async () => {
    await useFixtureAgent('subagent-roots');
    const chat = await newChat();
    await answeringQuickInput(() => chat.setPermissionLevel('allowAll'), ENTER, 'the Allow all confirmation');
    const turn = chat.send('work in your folder');
    const child = await waitFor(() => chat.subagents[0]?.permissions[0] && chat.subagents[0], { what: 'the request that waits for the user' });
    const inside = child.entries.find((e) => e.kind === 'tool' && e.title.endsWith('a.txt'));
    assert.match(inside?.kind === 'tool' ? (inside.autoAnswer?.reason ?? '') : '', /Allow all/, 'inside its folders the level answers');
    assert.match(child.permissions[0]!.title, /top\.txt$/);
    assert.equal(await chat.answerSubagentPermission('child-roots', child.permissions[0]!.id, 'reject'), true);
    await within(turn, 15_000, 'the turn');
    assert.match(agentText(chat), /edit-inside:allow edit-outside:reject/);
  });

  it('starts a child\u2019s terminal where the child works now, after a later update moved it', async () => {
    await useFixtureAgent('subagent-moves');
    const chat = await newChat();
    assert.equal(await within(chat.send('move and run'), 15_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), new RegExp(`ran in ${join(workspaceFolder(), 'sub').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('sends Cancel to the child', async () => {
    const fixture = await useFixtureAgent('subagent-cancel');
    const chat = await newChat();
    const turn = chat.send('long job');
    await waitFor(() => chat.subagents[0]?.state === 'running', { what: 'the running subagent' });
    assert.equal(await chat.cancelSubagent('child-2'), true);
    await waitFor(() => recorded(fixture.recordFile).some((m) => m.method === 'session/cancel' && m.params?.['sessionId'] === 'child-2'), {
      what: 'session/cancel for the child',
    });
    await chat.cancel();
    assert.equal(await within(turn, 15_000, 'the turn'), 'cancelled');
  });
});
