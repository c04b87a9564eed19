// The walking skeleton end to end in a real extension host: settings → spawn → initialize → session/new → prompt.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { shortId } from '../../src/acp/log';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, agentText, alive, api, closeAllChats, newChat, recorded, releaseTurn, useFixtureAgent, workspaceFolder } from './lib/fixture';

describe('chat with the fixture agent', function () {
  this.timeout(30_000);
  afterEach(closeAllChats);

  it('spawns the agent from the settings, initializes it and opens a session in the workspace folder', async () => {
    const fixture = await useFixtureAgent('basic');
    const chat = await newChat();
    const acp = await api();
    assert.deepEqual(acp.chats, [chat]);
    assert.equal(chat.agentName, fixture.name);
    assert.ok(alive(chat.agentPid ?? -1), 'the agent process runs');

    const sent = recorded(fixture.recordFile);
    const init = sent.find((m) => m.method === 'initialize');
    assert.equal(init?.params?.['protocolVersion'], 1);
    const capabilities = init?.params?.['clientCapabilities'] as { fs?: unknown; terminal?: unknown; _meta?: unknown };
    assert.deepEqual(capabilities.fs, { readTextFile: true, writeTextFile: true });
    assert.equal(capabilities.terminal, true);
    assert.deepEqual(capabilities._meta, { terminal_output: true }, 'agents that run commands themselves may stream their output');
    const newSession = sent.find((m) => m.method === 'session/new');
    assert.equal(newSession?.params?.['cwd'], workspaceFolder());
  });

  it('reuses the running agent for a second chat, and stops it when the last chat closes', async () => {
    await useFixtureAgent('basic');
    const first = await newChat();
    const second = await newChat();
    assert.notEqual(first.sessionId, second.sessionId);
    const pid = first.agentPid ?? -1;
    assert.equal(second.agentPid, pid, 'one process serves both chats');
    first.close();
    // Once the first chat is gone, the agent still serves the second: the same process answers a turn.
    await waitFor(async () => (await api()).chats.length === 1, { what: 'the first chat to close' });
    assert.equal(await within(second.send('still here'), 10_000, 'a turn after the first chat closed'), 'end_turn');
    assert.equal(second.agentPid, pid);
    assert.ok(alive(pid), 'the agent lives while a chat is open');
    second.close();
    await waitFor(() => !alive(pid), { timeoutMs: 10_000, what: 'the agent to stop after its last chat closed' });
  });

  it('keeps the agent for a chat whose session is still starting when the agent\u2019s last open chat closes', async () => {
    const fixture = await useFixtureAgent('basic', { env: { ACP_FIXTURE_NEW_HOLD: '1' } });
    const first = await newChat();
    const pid = first.agentPid ?? -1;
    // A second chat of the same agent, whose session/new the agent holds; the first chat closes meanwhile.
    const opening = vscode.commands.executeCommand<ChatHandle | undefined>('acp.newChat');
    await waitFor(() => recorded(fixture.recordFile).filter((m) => m.method === 'session/new').length === 2, { what: 'the second session/new' });
    first.close();
    await waitFor(async () => (await api()).chats.every((c) => c.sessionId !== first.sessionId), { what: 'the first chat to close' });
    await releaseTurn(fixture);
    const second = await within(Promise.resolve(opening), 10_000, 'the second chat');
    assert.ok(second?.sessionId, 'the second chat has its session');
    assert.equal(second.agentPid, pid, 'the same process, not stopped under it');
    assert.equal(await within(second.send('hello'), 10_000, 'a turn in the second chat'), 'end_turn');
    await closeAllChats();
  });

  it('runs a full prompt round trip and streams the answer into the chat', async () => {
    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    const stop = await within(chat.send('hello from the test'), 10_000, 'the prompt to finish');
    assert.equal(stop, 'end_turn');
    assert.equal(agentText(chat), 'You said: hello from the test');
    const entries = chat.entries;
    assert.equal(entries[0]?.kind === 'message' && entries[0].role, 'user');
    const prompt = recorded(fixture.recordFile).find((m) => m.method === 'session/prompt');
    assert.deepEqual(prompt?.params?.['prompt'], [{ type: 'text', text: 'hello from the test' }]);
    assert.equal(chat.turn.phase, 'idle');
  });

  describe('fs/read_text_file', () => {
    const file = () => join(workspaceFolder(), 'input.txt');

    it('reads the file from disk when it is not open', async () => {
      writeFileSync(file(), 'line one on disk\nline two on disk\n');
      await useFixtureAgent('fs');
      const chat = await newChat();
      await within(chat.send('read it'), 10_000, 'the prompt to finish');
      assert.match(agentText(chat), /^read:line one on disk\nline two on disk\n/);
    });

    it('reads the open document with its unsaved edits', async () => {
      writeFileSync(file(), 'saved text\n');
      const doc = await vscode.workspace.openTextDocument(file());
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((edit) => edit.replace(new vscode.Range(0, 0, doc.lineCount, 0), 'unsaved text\nsecond line\n'));
      assert.ok(doc.isDirty, 'the buffer has unsaved edits');
      try {
        await useFixtureAgent('fs');
        const chat = await newChat();
        await within(chat.send('read it'), 10_000, 'the prompt to finish');
        assert.match(agentText(chat), /^read:unsaved text\nsecond line\n/);
      } finally {
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    });
  });

  it('answers a pending permission request "cancelled" when the user stops the turn', async () => {
    const fixture = await useFixtureAgent('permission');
    const chat = await newChat();
    const turn = chat.send('do something risky');
    await waitFor(() => chat.permissions.length === 1, { timeoutMs: 10_000, what: 'the permission request' });
    await chat.cancel();
    const stop = await within(turn, 10_000, 'the turn to end');
    assert.equal(stop, 'cancelled');
    assert.equal(chat.permissions.length, 0);
    const sent = recorded(fixture.recordFile);
    const answer = sent.find((m) => m.result !== undefined && (m.result['outcome'] as { outcome?: string } | undefined)?.outcome !== undefined);
    assert.deepEqual(answer?.result, { outcome: { outcome: 'cancelled' } });
    assert.ok(
      sent.some((m) => m.method === 'session/cancel'),
      'session/cancel was sent',
    );
  });

  it('shows an agent that crashes mid-turn as an error with its exit code and stderr', async () => {
    await useFixtureAgent('crash');
    const chat = await newChat();
    const pid = chat.agentPid ?? -1;
    await assert.rejects(within(chat.send('go'), 10_000, 'the turn to fail'));
    const end = await waitFor(() => chat.agentEnd, { what: 'the chat to see the exit' });
    assert.match(end.message, /^the agent exited with code 3/);
    assert.ok(end.stderr.includes('giving up'), `stderr tail: ${end.stderr.join(' | ')}`);
    const turn = chat.turn;
    assert.equal(turn.phase, 'idle');
    assert.match(turn.error ?? '', /exited with code 3/);
    assert.equal(alive(pid), false);
    await assert.rejects(chat.send('again'), /the agent is not running/);
  });

  it('logs the JSON-RPC traffic to the ACP channel when acp.trace is "messages", and the agent\u2019s stderr always', async () => {
    const config = vscode.workspace.getConfiguration('acp');
    await config.update('trace', 'messages', vscode.ConfigurationTarget.Global);
    try {
      await useFixtureAgent('stderr-flood');
      const chat = await newChat();
      await within(chat.send('traced prompt'), 10_000, 'the prompt to finish');
      const log = await waitFor(
        () => {
          const text = acpLog();
          return text.includes('← response session/prompt') && text.includes('stderr line 250') ? text : undefined;
        },
        { timeoutMs: 10_000, what: 'the traced prompt and the stderr in the ACP log' },
      );
      const tag = `[trace Fixture (stderr-flood) ${shortId(chat.sessionId ?? '')}]`.replace(/[[\]().*+?^$|\\{}]/g, '\\$&');
      assert.match(log, /\[trace Fixture \(stderr-flood\)\] → request initialize #\d+\n/);
      assert.match(log, new RegExp(`${tag} → request session/prompt #\\d+\\n`));
      assert.match(log, new RegExp(`${tag} ← notification session/update agent_message_chunk\\n`));
      assert.match(log, new RegExp(`${tag} ← response session/prompt #\\d+ \\(\\d+ ms\\)\\n`));
      assert.ok(!log.includes('traced prompt'), '"messages" names messages without their payload');
      assert.match(log, /\[process\] stderr: stderr line 1\n/);
    } finally {
      await config.update('trace', undefined, vscode.ConfigurationTarget.Global);
    }
    await useFixtureAgent('echo', { name: 'Untraced' });
    const quiet = await newChat();
    await within(quiet.send('untraced prompt'), 10_000, 'the prompt to finish');
    quiet.close();
    // The agent's stop is logged after anything its prompt could have logged.
    await waitFor(() => acpLog().includes('[Untraced] [process] stopped'), { timeoutMs: 10_000, what: 'the untraced agent to stop' });
    assert.ok(!acpLog().includes('untraced prompt'), 'with acp.trace off, messages are not logged');
  });

  it('refuses to start an agent whose command does not exist, without opening a chat', async () => {
    await useFixtureAgent('basic', { name: 'Missing' });
    await vscode.workspace
      .getConfiguration('acp')
      .update('agents', { Missing: { command: 'acp-no-such-command-xyz' } }, vscode.ConfigurationTarget.Global);
    const chat = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.newChat');
    assert.equal(chat, undefined);
    assert.equal((await api()).chats.length, 0);
  });

  it('opens a tool call\u2019s location only inside the workspace: a link in it to a file outside is not followed', async () => {
    await useFixtureAgent('levels');
    const outside = mkdtempSync(join(tmpdir(), 'acp-location-'));
    writeFileSync(join(outside, 'secret.txt'), 'not for the chat\n');
    const link = join(workspaceFolder(), 'levels.txt');
    symlinkSync(join(outside, 'secret.txt'), link);
    try {
      const chat = await newChat();
      const turn = chat.send('edit');
      const card = await waitFor(() => chat.entries.find((e) => e.kind === 'tool' && e.title === 'Edit levels.txt'), { what: 'the tool call' });
      assert.ok(card.kind === 'tool');
      // Settles once the click has done what it does.
      await chat.openLocation(card.toolCallId, 0);
      const opened = vscode.workspace.textDocuments.some((d) => d.uri.fsPath === join(outside, 'secret.txt') || d.uri.fsPath === link);
      assert.equal(opened, false, 'the file behind the link was not opened');
      await chat.cancel();
      await turn.catch(() => undefined);
    } finally {
      rmSync(link, { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
