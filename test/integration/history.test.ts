// What the user does with a chat as a whole, in a real extension host with the fixture agent: Rename Chat (kept
// here, and given to an agent that stores titles), Delete Chat (after the user confirms in the quick pick; the
// agent's copy too when it advertises session/delete), Fork (only when the agent advertises the unstable
// session/fork) and Export Chat as Markdown.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import type { PreviousSessionItem } from '../../src/sessions/previousSessions';
import { waitFor } from '../lib/wait';
import { answeringQuickInput, api, closeAllChats, ENTER, messages, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

// No session/list: Open Previous Session then lists what this computer keeps, which these tests look at.
const STABLE = { loadSession: true, promptCapabilities: { embeddedContext: true }, sessionCapabilities: { close: {}, resume: {} } };
const ALL = { ...STABLE, sessionCapabilities: { ...STABLE.sessionCapabilities, delete: {}, fork: {}, title: {} } };

function withCapabilities(caps: object): { env: Record<string, string> } {
  return { env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(caps) } };
}

async function kept(agent: string): Promise<PreviousSessionItem[]> {
  return (await (await api()).previousSessions(agent)).filter((s) => s.source === 'local');
}

/** Runs a command that asks in a quick pick, and accepts the first item (Delete) as the user's Enter would. */
function confirming<T>(run: () => Thenable<T>): Promise<T> {
  return answeringQuickInput(run, ENTER, 'the command to finish', 15_000);
}

describe('a chat as a whole: rename, delete, fork, export', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('renames a chat: the agent that stores titles gets session/set_title and the chat shows the title it stored', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(ALL));
    const chat = await newChat();
    await chat.send('hello');
    await vscode.commands.executeCommand('acp.renameChat', undefined, '  Release notes  ');
    await waitFor(() => chat.title === 'Release notes', { what: 'the new title' });
    const call = recorded(fixture.recordFile).find((m) => m.method === 'session/set_title');
    assert.deepEqual(call?.params, { sessionId: chat.sessionId, title: 'Release notes' });
  });

  it('renames a chat on this computer only when the agent does not store titles, and keeps the title with the transcript', async () => {
    const fixture = await useFixtureAgent('titled', withCapabilities(STABLE));
    const chat = await newChat();
    await chat.send('first');
    await waitFor(() => chat.title === 'About first', { what: "the agent's title" });
    await vscode.commands.executeCommand('acp.renameChat', undefined, 'Mine');
    await waitFor(() => chat.title === 'Mine', { what: 'the new title' });
    assert.ok(!recorded(fixture.recordFile).some((m) => m.method === 'session/set_title'), 'not called when not advertised');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await kept(fixture.name)).some((s) => s.sessionId === sessionId && s.title === 'Mine'), {
      what: 'the kept transcript to have the title',
    });
  });

  it('deletes a chat after the user confirms: the transcript goes, and session/delete when the agent advertises it', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(ALL));
    const chat = await newChat();
    await chat.send('to be deleted');
    const sessionId = chat.sessionId!;
    await waitFor(async () => (await kept(fixture.name)).some((s) => s.sessionId === sessionId), { what: 'the transcript to be kept' });
    assert.equal(await confirming(() => vscode.commands.executeCommand<boolean>('acp.deleteChat')), true);
    assert.ok(!(await api()).chats.includes(chat), 'the chat closed');
    await waitFor(async () => !(await kept(fixture.name)).some((s) => s.sessionId === sessionId), { what: 'the transcript to go' });
    await waitFor(() => recorded(fixture.recordFile).some((m) => m.method === 'session/delete' && m.params?.['sessionId'] === sessionId), {
      what: 'session/delete',
    });
  });

  it('deletes a kept session without calling session/delete on an agent that does not advertise it; Cancel keeps it', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(STABLE));
    const chat = await newChat();
    await chat.send('kept for a while');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await kept(fixture.name)).some((s) => s.sessionId === sessionId), { what: 'the transcript to be kept' });
    const target = { agent: fixture.name, sessionId };

    // Escape on the question: nothing is deleted.
    const cancelled = answeringQuickInput(
      () => vscode.commands.executeCommand<boolean>('acp.deleteChat', target),
      'workbench.action.closeQuickOpen',
      'the question to close',
    );
    assert.equal(await cancelled, false);
    assert.ok(
      (await kept(fixture.name)).some((s) => s.sessionId === sessionId),
      'still kept',
    );

    assert.equal(await confirming(() => vscode.commands.executeCommand<boolean>('acp.deleteChat', target)), true);
    await waitFor(async () => !(await kept(fixture.name)).some((s) => s.sessionId === sessionId), { what: 'the transcript to go' });
    assert.ok(!recorded(fixture.recordFile).some((m) => m.method === 'session/delete'), 'session/delete is not called when not advertised');
  });

  it('forks a chat from one of its messages: the conversation before it, and the message in the new composer', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(ALL));
    const chat = await newChat();
    await chat.send('one');
    await chat.send('two');
    const second = chat.entries.filter((e) => e.kind === 'message' && e.role === 'user')[1]!;
    chat.forkFrom(second.id);
    await waitFor(async () => (await api()).chats.length === 2, { what: 'the fork to open' });
    const fork = (await api()).chats.find((c) => c !== chat)!;
    await waitFor(() => fork.sessionId !== undefined, { what: 'the fork to have its session' });
    assert.deepEqual(messages(fork, 'user'), ['one'], 'the conversation up to the message it was forked at');
    assert.equal(fork.draft, 'two', 'that message is in the composer, to send again or change');
    assert.ok(recorded(fixture.recordFile).some((m) => m.method === 'session/fork'));

    // A closed chat asks nothing more of its owner: no resend, no fork, no new session at the agent.
    const opening = () => recorded(fixture.recordFile).filter((m) => ['session/new', 'session/fork', 'session/load'].includes(m.method ?? '')).length;
    const before = opening();
    chat.close();
    assert.equal(await chat.editAndResend(second.id, 'two, changed'), undefined, 'a closed chat resends nothing');
    assert.equal((await api()).chats.length, 1, 'and opens no chat');
    assert.equal(opening(), before, 'and opens no session');
  });

  it('forks at the message where the agent forks at a message: its copy keeps the conversation before it, and the chat says so', async () => {
    const atMessage = { ...ALL, _meta: { jetbrains: { air: { fork: { version: 1, inclusive: true } } } } };
    const state = mkdtempSync(join(tmpdir(), 'acp-fork-at-'));
    const fixture = await useFixtureAgent('echo', { env: { ...withCapabilities(atMessage).env, ACP_FIXTURE_STATE_DIR: state } });
    const chat = await newChat();
    for (const text of ['one', 'two', 'three']) await chat.send(text);
    const second = chat.entries.filter((e) => e.kind === 'message' && e.role === 'user')[1]!;
    chat.forkFrom(second.id);
    await waitFor(async () => (await api()).chats.length === 2, { what: 'the fork to open' });
    const fork = (await api()).chats.find((c) => c !== chat)!;
    await waitFor(() => fork.sessionId !== undefined, { what: 'the fork to have its session' });
    const call = recorded(fixture.recordFile).find((m) => m.method === 'session/fork');
    const point = (call?.params?.['_meta'] as { jetbrains?: { air?: { fork?: { version?: number; messageId?: unknown } } } } | undefined)?.jetbrains
      ?.air?.fork;
    assert.equal(point?.version, 1);
    assert.equal(typeof point?.messageId, 'string', 'the fork names the agent’s reply to "one"');
    assert.match(fork.notice ?? '', /Forked at this message: .* remembers the conversation before it, and nothing after\./);
    assert.deepEqual(messages(fork, 'user'), ['one']);
    assert.equal(fork.draft, 'two');
    assert.equal(await fork.send('two, again'), 'end_turn', 'the fork goes on by itself');
    // What the agent's copy holds: the first message and its reply, then the new one; nothing of "two" or "three".
    const kept = JSON.parse(readFileSync(join(state, `${fork.sessionId}.json`), 'utf8')) as {
      history: { sessionUpdate: string; content?: { text?: string } }[];
    };
    const said = kept.history.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content?.text);
    assert.deepEqual(said, ['one', 'two, again']);
    await closeAllChats();
    rmSync(state, { recursive: true, force: true });
  });

  it('forks a whole chat with Fork Chat when the agent advertises session/fork', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(ALL));
    const chat = await newChat();
    await chat.send('one');
    await chat.send('two');
    const fork = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.forkChat');
    assert.ok(fork, 'a fork opened');
    assert.notEqual(fork.sessionId, chat.sessionId);
    const call = recorded(fixture.recordFile).find((m) => m.method === 'session/fork');
    assert.equal(call?.params?.['sessionId'], chat.sessionId);
    // The fork shows the conversation it came from, and goes on by itself.
    assert.deepEqual(messages(fork, 'user'), ['one', 'two']);
    assert.equal(await fork.send('three'), 'end_turn');
    assert.deepEqual(messages(fork, 'user'), ['one', 'two', 'three']);
    assert.deepEqual(messages(chat, 'user'), ['one', 'two'], 'the original stays as it was');
  });

  it('does not fork when the agent does not advertise session/fork', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(STABLE));
    const chat = await newChat();
    await chat.send('one');
    const fork = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.forkChat');
    assert.equal(fork, undefined);
    assert.equal((await api()).chats.length, 1);
    assert.ok(!recorded(fixture.recordFile).some((m) => m.method === 'session/fork'));
  });

  it('exports a chat as Markdown: messages, tool calls with their diffs, the plan and how turns stopped', async () => {
    await useFixtureAgent('tools');
    const chat = await newChat();
    await chat.send('do the tools');
    const file = vscode.Uri.file(join(workspaceFolder(), `exported-chat-${Date.now()}.md`));
    try {
      // A file named by the caller is only suggested: the save dialog still asks, and Enter takes the suggestion.
      const written = await answeringQuickInput(
        () => vscode.commands.executeCommand<vscode.Uri | undefined>('acp.exportChat', undefined, file),
        ENTER,
        'the save dialog to take the suggested file',
      );
      assert.equal(written?.fsPath, file.fsPath);
      const markdown = readFileSync(file.fsPath, 'utf8');
      assert.match(markdown, /^# /m);
      assert.match(markdown, /do the tools/);
      assert.match(markdown, /```diff/);
      assert.match(markdown, /## Plan/);
    } finally {
      if (existsSync(file.fsPath)) rmSync(file.fsPath);
    }
  });
  it('archives a chat with an agent that archives sessions: out of the lists until asked for, found by Search Chats, back once opened', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-archive-state-'));
    const caps = { ...STABLE, sessionCapabilities: { list: {}, close: {}, resume: {}, archive: {} } };
    const fixture = await useFixtureAgent('echo', { env: { ...withCapabilities(caps).env, ACP_FIXTURE_STATE_DIR: state } });
    const chat = await newChat();
    await chat.send('the narwhal in the archive');
    const sessionId = chat.sessionId!;
    await vscode.commands.executeCommand('acp.archiveChat');
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the archived chat to close' });
    const calls = recorded(fixture.recordFile);
    assert.deepEqual(
      calls.filter((m) => m.method === 'session/archive').map((m) => m.params),
      [{ sessionId }],
    );
    assert.ok(!calls.some((m) => m.method === 'session/close'), 'the agent freed it as it archived it: no second close');

    const listed = async (archived?: boolean) =>
      (await (await api()).previousSessions(fixture.name, archived ? { archived } : {})).filter((s) => s.sessionId === sessionId);
    await waitFor(async () => (await listed()).length === 0, { what: 'the archived chat to leave Open Previous Session' });
    assert.deepEqual(
      (await listed(true)).map((s) => s.archived),
      [true],
      'listed, marked, when archived ones are asked for',
    );
    assert.ok(recorded(fixture.recordFile).some((m) => m.method === 'session/list' && m.params?.['archived'] === 'include'));

    const opened = await answeringQuickInput(
      () => vscode.commands.executeCommand<ChatHandle | undefined>('acp.searchChats', 'narwhal'),
      ENTER,
      'the archived chat among the results',
    );
    assert.equal(opened?.sessionId, sessionId, 'Search Chats finds and opens it');
    const reopening = recorded(fixture.recordFile)
      .map((m) => m.method)
      .filter((m) => m === 'session/unarchive' || m === 'session/load');
    assert.deepEqual(reopening, ['session/unarchive', 'session/load'], 'unarchived before it is loaded');
    assert.equal((await listed()).length, 1, 'back in the list');
  });

  it('archives on this computer only, saying nothing to an agent that does not archive, and Unarchive Chat brings it back', async () => {
    const fixture = await useFixtureAgent('echo', withCapabilities(STABLE));
    const chat = await newChat();
    await chat.send('the okapi note');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await kept(fixture.name)).some((s) => s.sessionId === sessionId), { what: 'the chat to be kept' });
    const started = () => recorded(fixture.recordFile).filter((m) => m.method === 'initialize').length;
    let before = started();
    await vscode.commands.executeCommand('acp.archiveChat', { agent: fixture.name, sessionId });
    assert.equal(started(), before, 'no agent started to archive it');
    assert.ok(!(await kept(fixture.name)).some((s) => s.sessionId === sessionId), 'out of Open Previous Session');
    const all = await (await api()).previousSessions(fixture.name, { archived: true });
    assert.equal(all.find((s) => s.sessionId === sessionId)?.archived, true);
    before = started();
    await vscode.commands.executeCommand('acp.unarchiveChat', { agent: fixture.name, sessionId });
    assert.equal(started(), before, 'nor to unarchive it');
    assert.ok(
      (await kept(fixture.name)).some((s) => s.sessionId === sessionId && !s.archived),
      'back',
    );
    const methods = recorded(fixture.recordFile).map((m) => m.method);
    assert.ok(!methods.includes('session/archive') && !methods.includes('session/unarchive'), 'nothing said to the agent');
  });
});
