// Agents in a real extension host: a crash under two chats settles everything, Test Agent Connection reports what
// the agent said, and Sign Out calls logout.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { waitFor, within } from '../lib/wait';
import { closeAllChats, newChat, recorded, useFixtureAgent } from './lib/fixture';

describe('agents', function () {
  this.timeout(30_000);
  afterEach(closeAllChats);

  it('settles a pending permission and both chats’ turns when the agent is killed, and the chats refuse to send', async () => {
    await useFixtureAgent('permission');
    const first = await newChat();
    const second = await newChat();
    const pid = first.agentPid;
    assert.ok(pid !== undefined);
    assert.equal(second.agentPid, pid, 'one process serves both chats');
    const turn = first.send('do something risky');
    await waitFor(() => first.permissions.length === 1, { timeoutMs: 10_000, what: 'the permission request' });

    process.kill(pid, 'SIGKILL');
    await assert.rejects(within(turn, 5000, 'the turn to settle'), /killed by SIGKILL/);
    for (const chat of [first, second]) {
      const end = await waitFor(() => chat.agentEnd, { what: `${chat.agentName}'s chat to see the end` });
      assert.match(end.message, /the agent was killed by SIGKILL/);
      assert.equal(chat.permissions.length, 0, 'the pending permission request was settled');
      assert.equal(chat.turn.phase, 'idle');
      await assert.rejects(chat.send('anyone?'), /the agent is not running/);
    }
  });

  it('Test Agent Connection starts the agent apart from the chats, reports what it is, and stops it', async () => {
    const fixture = await useFixtureAgent('auth-terminal', { name: 'Fixture Report' });
    // As the Sessions view's context menu runs it, with the agent's node.
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('acp.testConnection', { kind: 'agent', name: 'Fixture Report' });
    assert.ok(uri, 'the command returns the report');
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    assert.match(text, /^# Fixture Report: connection test/);
    assert.match(text, /- Agent: ACP Fixture Agent \(acp-fixture-agent\) 1\.0\.0/);
    assert.match(text, /- Protocol version: 1/);
    assert.match(text, /"loadSession": true/);
    assert.match(text, /- Log in to the fixture \(`fixture-login`\): The agent signs you in/);
    assert.match(text, /- Sign in in a terminal \(`fixture-terminal`\) \(in a terminal: `.*agent\.js --scenario auth-terminal --login`\)/);
    assert.match(text, /environment: ELECTRON_RUN_AS_NODE, ACP_FIXTURE_RECORD, ACP_FIXTURE_RELEASE, ACP_FIXTURE_MAX_LIFETIME_MS/);
    const sent = recorded(fixture.recordFile);
    const init = sent.find((m) => m.method === 'initialize');
    assert.deepEqual((init?.params?.['clientCapabilities'] as { auth?: unknown } | undefined)?.auth, { terminal: true });
    assert.ok(!sent.some((m) => m.method === 'session/new'), 'a connection test opens no session');
  });

  it('explains an agent that fails to start in one sentence: an exit before initialize with its stderr, or another protocol version', async () => {
    await useFixtureAgent('basic', { name: 'Fixture Future', env: { ACP_FIXTURE_PROTOCOL_VERSION: '2' } });
    const config = vscode.workspace.getConfiguration('acp');
    const agents = { ...(config.inspect<Record<string, unknown>>('agents')?.globalValue ?? {}) };
    agents['Fixture Quits'] = {
      command: process.execPath,
      args: ['-e', "process.stderr.write('unknown flag --acp\\n'); process.exit(2)"],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    };
    await config.update('agents', agents, vscode.ConfigurationTarget.Global);
    await waitFor(() => vscode.workspace.getConfiguration('acp').inspect<Record<string, unknown>>('agents')?.globalValue?.['Fixture Quits'], {
      what: 'the settings to apply',
    });

    const report = async (name: string) => {
      const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('acp.testConnection', name);
      assert.ok(uri);
      return (await vscode.workspace.openTextDocument(uri)).getText();
    };
    const future = await report('Fixture Future');
    assert.match(future, /- Result: \*\*failed\*\*: the agent speaks ACP version 2, but this extension supports version 1/);
    const quits = await report('Fixture Quits');
    assert.match(quits, /- Result: \*\*failed\*\*: the agent exited with code 2: unknown flag --acp/);
    assert.match(quits, /```text\nunknown flag --acp\n```/);
    assert.equal(await vscode.commands.executeCommand('acp.newChat', 'Fixture Quits'), undefined, 'no chat opens for an agent that did not start');
  });

  it('Sign Out calls logout on the running agent, and the chat’s next message needs a sign-in', async () => {
    // Signed in beforehand, as with a token on disk (what the terminal method writes).
    const credentials = join(tmpdir(), `acp-credentials-${randomUUID()}`);
    writeFileSync(credentials, 'signed in\n');
    const fixture = await useFixtureAgent('auth-terminal', { name: 'Fixture Signed', env: { ACP_FIXTURE_CREDENTIALS: credentials } });
    const chat = await newChat();
    await within(chat.send('hello'), 10_000, 'a signed-in prompt');
    await vscode.commands.executeCommand('acp.signOut', 'Fixture Signed');
    assert.equal(existsSync(credentials), false, 'logout reached the agent');
    assert.equal(
      recorded(fixture.recordFile).filter((m) => m.method === 'initialize').length,
      1,
      'the running agent signed out; none was started for it',
    );
    await assert.rejects(chat.send('hello?'), /Authentication required/);
  });
});
