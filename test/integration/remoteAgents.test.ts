// Agents on another machine, in a real extension host: the fixture agent behind the SDK's own WebSocket server on
// loopback, reached through an `acp.agents` entry with a `url` and a token from SecretStorage. A chat works as with a
// local agent (fs/* from the editor's buffers), runs no commands here unless its entry allows it, and gets no editor
// tools; a refused token is a sign-in problem that names Set Agent Token…; a binary frame closes the connection with
// the reason said. The socket's other bounds (an oversized frame, silence) are in test/unit/acp/socket.test.ts.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { serveHostile } from '../lib/hostileSocket';
import { waitFor, within } from '../lib/wait';
import { acpLog, agentText, closeAllChats, FIXTURE_AGENT, newChat, recorded, workspaceFolder } from './lib/fixture';
import { serveRemoteFixture as serve, type RemoteAgent } from '../lib/remoteFixture';

/** The fixture agent behind the SDK's WebSocket server on loopback (test/lib/remoteFixture.ts). */
const serveRemoteFixture = (scenario: string, options?: Parameters<typeof serve>[2]) => serve(FIXTURE_AGENT, scenario, options);

/** New Chat with an agent that does not connect: no chat opens, and the notification's sentence is in the log. */
async function failedChat(what: RegExp): Promise<void> {
  assert.equal(await vscode.commands.executeCommand('acp.newChat'), undefined, 'no chat opens');
  await waitFor(() => what.test(acpLog()), { what: `the log to say ${what.source}` });
}

/** An `acp.agents` entry for the agent at `url`, made the default, with its token set (or removed) as a user does. */
async function useRemoteAgent(name: string, url: string, token: string | undefined, extra: Record<string, unknown> = {}): Promise<void> {
  const config = vscode.workspace.getConfiguration('acp');
  await config.update('agents', { [name]: { url, ...extra } }, vscode.ConfigurationTarget.Global);
  await config.update('defaultAgent', name, vscode.ConfigurationTarget.Global);
  await waitFor(() => vscode.workspace.getConfiguration('acp').get('defaultAgent') === name, { what: 'the settings to apply' });
  if (token !== undefined) assert.equal(await vscode.commands.executeCommand('acp.setAgentToken', name, token), true);
}

describe('agents at a URL', function () {
  this.timeout(60_000);
  let remote: RemoteAgent | undefined;

  afterEach(async () => {
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
    await remote?.close();
    remote = undefined;
  });

  it('chats as with a local agent: files from the editor’s buffers, no commands run here, no editor tools, the token never logged', async () => {
    const token = `team-token-${randomUUID()}`;
    const record = join(tmpdir(), `acp-record-${randomUUID()}.jsonl`);
    writeFileSync(join(workspaceFolder(), 'input.txt'), 'read from afar\n');
    remote = await serveRemoteFixture('fs', { env: { ACP_FIXTURE_RECORD: record }, token });
    await useRemoteAgent('Remote (fs)', remote.url, token);
    // A local MCP server with a secret in its env: this machine's, never handed to an agent elsewhere.
    await vscode.workspace
      .getConfiguration('acp')
      .update(
        'mcpServers',
        { local: { command: 'node', args: ['server.js'], env: { API_KEY: 'local-only-key' } } },
        vscode.ConfigurationTarget.Global,
      );
    const chat = await newChat();
    const host = new URL(remote.url).host;
    assert.match(
      chat.notice ?? '',
      new RegExp(`editor tools and your MCP servers \\(acp\\.mcpServers\\) are not offered: the agent runs on ${host.replace(/\./g, '\\.')}`),
    );
    assert.equal(await within(chat.send('go'), 20_000, 'the turn'), 'end_turn');
    const text = agentText(chat);
    assert.match(text, /^read:read from afar\n/);
    assert.match(text, /\nwrite:/);
    assert.equal(readFileSync(join(workspaceFolder(), 'output.txt'), 'utf8'), 'written by the agent');
    assert.match(text, /\nterminal:error:/, 'terminal/* is not served to an agent on another machine');
    const init = recorded(record).find((m) => m.method === 'initialize');
    const capabilities = init?.params?.['clientCapabilities'] as { terminal?: boolean } | undefined;
    assert.notEqual(capabilities?.terminal, true, 'nor advertised');
    const session = recorded(record).find((m) => m.method === 'session/new');
    assert.deepEqual(
      ((session?.params?.['mcpServers'] as { name: string }[] | undefined) ?? []).map((s) => s.name),
      [],
      'neither the loopback editor tools nor the MCP servers of acp.mcpServers are handed to it',
    );
    assert.equal(acpLog().includes(token), false, 'the token is scrubbed from the log');
    assert.match(acpLog(), new RegExp(`connected to ${host.replace(/\./g, '\\.')}`));
  });

  it('chats over wss:// behind a certificate this VS Code trusts', async () => {
    remote = await serveRemoteFixture('fs', { tls: true });
    assert.match(remote.url, /^wss:\/\/127\.0\.0\.1:\d+\/acp$/);
    writeFileSync(join(workspaceFolder(), 'input.txt'), 'read over TLS\n');
    await useRemoteAgent('Remote (TLS)', remote.url, undefined);
    const chat = await newChat();
    assert.equal(await within(chat.send('go'), 20_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), /^read:read over TLS\n/);
  });

  it('chats over Streamable HTTP as over WebSocket, and says a refused token the same way', async () => {
    const token = `http-token-${randomUUID()}`;
    remote = await serveRemoteFixture('fs', { http: true, token });
    assert.match(remote.url, /^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    writeFileSync(join(workspaceFolder(), 'input.txt'), 'read over HTTP\n');
    await useRemoteAgent('Remote (HTTP)', remote.url, token);
    const chat = await newChat();
    assert.equal(await within(chat.send('go'), 20_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), /^read:read over HTTP\n/);
    assert.match(agentText(chat), /\nterminal:error:/, 'no commands here for an agent over HTTP either');
    await closeAllChats();
    await useRemoteAgent('Remote (HTTP, refused)', remote.url, `wrong-${randomUUID()}`);
    await failedChat(/Could not start Remote \(HTTP, refused\): 127\.0\.0\.1:\d+ refused the token \(HTTP 401\)/);
  });

  it('offers the editor tools through the ACP connection to an agent that takes MCP over ACP, over wss:// and over HTTP', async () => {
    writeFileSync(join(workspaceFolder(), 'remote-tools.txt'), 'open in the editor\n');
    await vscode.window.showTextDocument(vscode.Uri.file(join(workspaceFolder(), 'remote-tools.txt')));
    for (const transport of [{ tls: true }, { http: true }]) {
      const record = join(tmpdir(), `acp-record-${randomUUID()}.jsonl`);
      remote = await serveRemoteFixture('mcpAcp', { ...transport, env: { ACP_FIXTURE_RECORD: record } });
      await useRemoteAgent(`Remote tools (${Object.keys(transport)[0]})`, remote.url, undefined);
      await vscode.workspace
        .getConfiguration('acp')
        .update('mcpServers', { local: { command: 'node', args: ['server.js'] } }, vscode.ConfigurationTarget.Global);
      const chat = await newChat();
      assert.match(
        chat.notice ?? '',
        /Your MCP servers \(acp\.mcpServers\) are not offered: the agent runs on 127\.0\.0\.1:\d+.*The editor tools reach it through the ACP connection\./,
      );
      const script = [
        { tool: 'open_editors' },
        { tool: 'get_diagnostics', arguments: { path: '../outside.ts' } },
        { tool: 'open_editors', serverId: 'vscode-guessed' },
        { tool: 'open_editors', protocolVersion: '2025-06-18' },
      ];
      assert.equal(await within(chat.send(JSON.stringify(script)), 30_000, 'the turn'), 'end_turn');
      const { listed, results } = JSON.parse(agentText(chat)) as { listed: string[]; results: Record<string, unknown>[] };
      assert.ok(
        ['get_diagnostics', 'document_symbols', 'open_editors', 'run_task'].every((t) => listed.includes(t)),
        `listed: ${listed.join(', ')}`,
      );
      assert.equal(results[0]?.['isError'], false, String(results[0]?.['text']));
      assert.match(String(results[0]?.['text']), /"path":"remote-tools\.txt"/, 'this machine’s open editors');
      assert.equal(results[1]?.['isError'], true);
      assert.match(String(results[1]?.['text']), /outside this session's workspace/);
      assert.deepEqual(results[2], { tool: 'open_editors', outer: -33001 }, 'a server that was never declared is refused by the binding');
      assert.equal((results[3]?.['mcpError'] as { code?: number } | undefined)?.code, -32022, 'an MCP revision the binding does not carry');
      const servers = recorded(record).find((m) => m.method === 'session/new')?.params?.['mcpServers'] as Record<string, unknown>[];
      assert.deepEqual(
        servers.map((s) => [s['type'], s['name']]),
        [['acp', 'vscode']],
        'only the editor tools, through the connection: no loopback URL, none of acp.mcpServers',
      );
      await closeAllChats();
      await remote.close();
      remote = undefined;
    }
  });

  it('runs commands here only for an agent whose entry allows it', async () => {
    remote = await serveRemoteFixture('fs');
    await useRemoteAgent('Remote (terminals)', remote.url, undefined, { terminals: true });
    const chat = await newChat();
    assert.equal(await within(chat.send('go'), 20_000, 'the turn'), 'end_turn');
    assert.match(agentText(chat), /\noutput:hi/);
  });

  for (const [transport, http] of [
    ['WebSocket', false],
    ['Streamable HTTP', true],
  ] as const) {
    it(`reconnects after a dropped connection (${transport}): the chat says so, resumes its session, withdraws what waited, sends nothing twice`, async () => {
      const state = mkdtempSync(join(tmpdir(), 'acp-remote-state-'));
      const record = join(tmpdir(), `acp-record-${randomUUID()}.jsonl`);
      try {
        remote = await serveRemoteFixture('permission', { env: { ACP_FIXTURE_STATE_DIR: state, ACP_FIXTURE_RECORD: record }, http });
        await useRemoteAgent('Remote (drops)', remote.url, undefined);
        const chat = await newChat();
        const sessionId = chat.sessionId;
        const turn = chat.send('do something risky');
        const failed = assert.rejects(within(turn, 20_000, 'the turn'), 'the turn in flight fails, it is not sent again');
        await waitFor(() => chat.permissions.length === 1, { what: 'the permission request' });
        remote.dropConnections();
        const said = await waitFor(() => (chat.agentError?.actions.includes('stopReconnecting') ? chat.agentError : undefined), {
          what: 'the chat to say it is reconnecting',
        });
        assert.match(said.message, /^The connection to 127\.0\.0\.1:\d+ closed\. Reconnecting in 1 s \(attempt 1 of 8\)…/);
        assert.match(said.message, /The request that was waiting for your answer was withdrawn\./);
        await failed;
        await waitFor(() => chat.agentError === null && chat.sessionId === sessionId && /Reconnected to Remote \(drops\)/.test(chat.notice ?? ''), {
          timeoutMs: 20_000,
          what: 'the chat to get its session back',
        });
        assert.equal(remote.children.length, 2, 'one agent per connection');
        const reopened = recorded(record).filter((m) => m.method === 'session/load' || m.method === 'session/resume');
        assert.deepEqual(
          reopened.map((m) => m.params?.['sessionId']),
          [sessionId],
        );
        assert.equal(recorded(record).filter((m) => m.method === 'session/prompt').length, 1, 'the prompt went once');
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    });
  }

  it('stops reconnecting when the user says so', async () => {
    remote = await serveRemoteFixture('basic');
    await useRemoteAgent('Remote (stopped)', remote.url, undefined);
    const chat = await newChat();
    await remote.close();
    remote = undefined;
    await waitFor(() => chat.agentError?.actions.includes('stopReconnecting'), { what: 'the chat to say it is reconnecting' });
    await chat.runErrorAction('stopReconnecting');
    const error = await waitFor(() => (chat.agentError?.actions.includes('restart') ? chat.agentError : undefined), {
      what: 'the chat to say it stopped',
    });
    assert.match(error.message, /You stopped reconnecting to Remote \(stopped\)/);
  });

  it('says a refused token is a sign-in problem that names Set Agent Token…, and starts nothing', async () => {
    remote = await serveRemoteFixture('basic', { token: `right-${randomUUID()}` });
    await useRemoteAgent('Remote (refused)', remote.url, `wrong-${randomUUID()}`);
    await failedChat(
      /Could not start Remote \(refused\): 127\.0\.0\.1:\d+ refused the token \(HTTP 401 Unauthorized\); set it with ACP: Set Agent Token…/,
    );
    assert.equal(remote.children.length, 0, 'no agent ran for a refused connection');
  });

  it('never sends a token to another origin than the one it was set for', async () => {
    const token = `moved-${randomUUID()}`;
    remote = await serveRemoteFixture('basic', { token });
    const elsewhere = await serveRemoteFixture('basic', { token });
    try {
      await useRemoteAgent('Remote (moved)', remote.url, token);
      await useRemoteAgent('Remote (moved)', elsewhere.url, undefined);
      await failedChat(/Remote \(moved\).*refused the token/);
      assert.match(acpLog(), /the token of Remote \(moved\) was set for ws:\/\/127\.0\.0\.1:\d+, not its URL now: it is not sent/);
      assert.equal(elsewhere.children.length, 0);
    } finally {
      await elsewhere.close();
    }
  });

  it('closes the connection on a binary frame, and says why', async () => {
    const hostile = await serveHostile('binary');
    try {
      await useRemoteAgent('Remote (binary)', hostile.url, undefined);
      await failedChat(/Could not start Remote \(binary\): .*sent a binary frame, which ACP does not use; the connection was closed/);
    } finally {
      await hostile.close();
    }
  });

  it('refuses ws:// off this machine before connecting, and Test Agent Connection names the host', async () => {
    await useRemoteAgent('Remote (insecure)', 'ws://agents.example.invalid/acp', undefined);
    await failedChat(
      /agents\.example\.invalid is not on this machine by name \(localhost, 127\.0\.0\.1 or ::1\), so the URL must use wss:\/\/ or https:\/\//,
    );
    const uri = await vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', 'Remote (insecure)');
    const report = (await vscode.workspace.openTextDocument(uri)).getText();
    assert.match(report, /- URL: `ws:\/\/agents\.example\.invalid\/acp`/);
    assert.match(report, /- Result: \*\*failed\*\*: agents\.example\.invalid is not on this machine/);
  });
});
