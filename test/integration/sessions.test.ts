// Sessions in a real extension host: several chats at once whose updates never cross, session/close when a chat
// closes, what sessions are opened with (acp.mcpServers, the other workspace folders), and Open Previous Session
// from the agent's session/list (every page) or from the transcripts kept on this computer.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, alive, api, closeAllChats, messages, recorded, useFixtureAgents, workspaceFolder } from './lib/fixture';

async function newChat(agent: string): Promise<ChatHandle> {
  const chat = await (await api()).newChat(agent);
  assert.ok(chat, `a chat with ${agent} opened`);
  return chat;
}

function textOf(chat: ChatHandle, role: 'user' | 'agent'): string {
  return messages(chat, role).join('|');
}

/** What the chat shows, one line per entry. */
function shown(chat: ChatHandle): string[] {
  return chat.entries.map((e) => (e.kind === 'message' ? `${e.role}:${e.text}` : e.kind));
}

async function openPrevious(agent: string, sessionId: string, cwd?: string): Promise<ChatHandle> {
  await api(); // activated first, so the command returns the handle itself
  const chat = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent, sessionId, ...(cwd ? { cwd } : {}) });
  assert.ok(chat, `session ${sessionId} of ${agent} opened`);
  return chat;
}

const NO_REOPEN = JSON.stringify({ promptCapabilities: {}, sessionCapabilities: { close: {} } });

describe('sessions', function () {
  this.timeout(60_000);
  afterEach(async () => {
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
  });

  it('runs chats with two agents and two chats with one agent at once, each seeing only its own session; closing one sends session/close', async () => {
    const agents = await useFixtureAgents({ 'Agent One': { scenario: 'titled' }, 'Agent Two': { scenario: 'titled' } });
    const first = await newChat('Agent One');
    const second = await newChat('Agent One');
    const other = await newChat('Agent Two');
    assert.ok(first.agentPid !== undefined && other.agentPid !== undefined);
    assert.equal(first.agentPid, second.agentPid, 'one process serves both chats with Agent One');
    assert.notEqual(first.agentPid, other.agentPid);
    const words = (name: string) => `${name} ${Array.from({ length: 20 }, (_, i) => `${name}${i}`).join(' ')}`;
    await within(Promise.all([first.send(words('apple')), second.send(words('pear')), other.send(words('plum'))]), 20_000, 'the three turns');
    for (const [chat, name] of [
      [first, 'apple'],
      [second, 'pear'],
      [other, 'plum'],
    ] as const) {
      assert.equal(textOf(chat, 'user'), words(name), `${name}: only its own prompt`);
      assert.equal(textOf(chat, 'agent'), `You said: ${words(name)}`, `${name}: only its own answer, whole`);
      assert.equal(chat.title, `About ${words(name)}`, `${name}: its own title, on the tab`);
    }

    const closedId = first.sessionId;
    const keptId = second.sessionId;
    const pid = second.agentPid ?? -1;
    first.close();
    const record = agents['Agent One']!.recordFile;
    await waitFor(() => recorded(record).some((m) => m.method === 'session/close'), { what: 'session/close' });
    assert.deepEqual(
      recorded(record)
        .filter((m) => m.method === 'session/close')
        .map((m) => m.params?.['sessionId']),
      [closedId],
    );
    assert.ok(alive(pid), 'the agent keeps running for the other chat');
    await within(second.send('again'), 10_000, 'a turn after the other chat closed');
    assert.match(textOf(second, 'agent'), /You said: again$/);
    assert.equal(second.sessionId, keptId);
    assert.ok(!recorded(record).some((m) => m.method === 'session/close' && m.params?.['sessionId'] === keptId));
    assert.deepEqual(
      recorded(agents['Agent Two']!.recordFile).filter((m) => m.method === 'session/close'),
      [],
      'the other agent closed nothing',
    );
  });

  it('passes acp.mcpServers to session/new, leaving out an http server the agent does not support and saying so', async () => {
    const agents = await useFixtureAgents({ 'MCP Agent': { scenario: 'echo' } });
    await vscode.workspace.getConfiguration('acp').update(
      'mcpServers',
      {
        files: { command: 'mcp-files', args: ['--root', '/tmp'], env: { FILES_TOKEN: 'secret-env-value' } },
        docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer secret-header-value' } },
        broken: { command: '' },
      },
      vscode.ConfigurationTarget.Global,
    );
    const chat = await newChat('MCP Agent');
    const params = recorded(agents['MCP Agent']!.recordFile).find((m) => m.method === 'session/new')?.params;
    const servers = params?.['mcpServers'] as { name: string; command?: string }[];
    assert.deepEqual(
      servers.filter((s) => s.name !== 'vscode'),
      [{ name: 'files', command: 'mcp-files', args: ['--root', '/tmp'], env: [{ name: 'FILES_TOKEN', value: 'secret-env-value' }] }],
    );
    assert.equal(servers.at(-1)?.name, 'vscode', 'then the editor tools, over stdio for an agent without MCP over HTTP');
    assert.equal(servers.at(-1)?.command, process.execPath);
    assert.equal('additionalDirectories' in (params ?? {}), false, 'a single folder has no other folders to add');
    assert.deepEqual(chat.leftOut, [{ name: 'docs', transport: 'http' }]);
    const log = await waitFor(
      () => {
        const text = acpLog();
        return text.includes('MCP server "docs" left out') && text.includes('The MCP server "broken"') ? text : undefined;
      },
      { what: 'the log lines about the left-out and the broken server' },
    );
    assert.ok(!log.includes('secret-env-value') && !log.includes('secret-header-value'), 'no env or header value is logged');
  });

  it('passes http servers to session/new and session/load when the agent supports them', async () => {
    // This window has one folder, so there are no other folders to add (the UI tests open a multi-root workspace).
    const caps = { loadSession: true, mcpCapabilities: { http: true }, sessionCapabilities: { additionalDirectories: {}, close: {} } };
    const agents = await useFixtureAgents({ 'Wide Agent': { scenario: 'echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(caps) } } });
    await vscode.workspace
      .getConfiguration('acp')
      .update('mcpServers', { docs: { type: 'http', url: 'https://mcp.example.com/mcp' } }, vscode.ConfigurationTarget.Global);
    const chat = await newChat('Wide Agent');
    assert.deepEqual(chat.leftOut, []);
    await openPrevious('Wide Agent', 'sess-stored');
    const sent = recorded(agents['Wide Agent']!.recordFile);
    for (const method of ['session/new', 'session/load']) {
      const params = sent.find((m) => m.method === method)?.params;
      const servers = params?.['mcpServers'] as { name: string; type?: string; url?: string }[];
      assert.deepEqual(
        servers.filter((s) => s.name !== 'vscode'),
        [{ type: 'http', name: 'docs', url: 'https://mcp.example.com/mcp', headers: [] }],
        method,
      );
      assert.match(servers.at(-1)?.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, `${method}: then the editor tools, over HTTP`);
      assert.equal('additionalDirectories' in (params ?? {}), false, method);
      assert.equal(params?.['cwd'], workspaceFolder(), method);
    }
  });

  it('lists the agent\u2019s sessions through every session/list page, and opens one with session/load, replayed; opening it again shows the same chat', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-list-state-'));
    const agents = await useFixtureAgents({ Lister: { scenario: 'titled', env: { ACP_FIXTURE_STATE_DIR: state, ACP_FIXTURE_LIST_PAGE_SIZE: '2' } } });
    for (const word of ['alpha', 'beta']) {
      const chat = await newChat('Lister');
      await within(chat.send(word), 10_000, `the turn about ${word}`);
      chat.close();
    }
    await closeAllChats();
    const acp = await api();
    const items = await acp.previousSessions('Lister');
    assert.deepEqual(items.map((i) => i.title).sort(), ['About alpha', 'About beta', 'An earlier conversation']);
    assert.ok(items.every((i) => i.source === 'agent'));
    const lists = recorded(agents['Lister']!.recordFile).filter((m) => m.method === 'session/list');
    assert.deepEqual(
      lists.map((m) => m.params?.['cursor'] ?? null),
      [null, 'page-2'],
      'the second page was asked for with the first page\u2019s cursor',
    );
    assert.ok(lists.every((m) => m.params?.['cwd'] === workspaceFolder()));

    const alpha = items.find((i) => i.title === 'About alpha');
    assert.ok(alpha);
    const chat = await openPrevious('Lister', alpha.sessionId, alpha.cwd);
    assert.equal(chat.sessionId, alpha.sessionId);
    assert.deepEqual(shown(chat), ['user:alpha', 'agent:You said: alpha'], 'the agent replayed the conversation, and it is shown once');
    assert.equal(chat.title, 'About alpha');
    const loads = recorded(agents['Lister']!.recordFile).filter((m) => m.method === 'session/load');
    assert.deepEqual(
      loads.map((m) => m.params?.['sessionId']),
      [alpha.sessionId],
    );

    const again = await openPrevious('Lister', alpha.sessionId);
    assert.equal(again, chat, 'the chat that shows it is brought forward');
    assert.equal(acp.chats.length, 1);
  });

  it('opens a session the agent cannot reopen from the transcript kept on this computer, above a new session', async () => {
    // With a state dir the fixture's session ids are unique across processes, as real agents' are.
    const state = mkdtempSync(join(tmpdir(), 'acp-forgetful-state-'));
    const agents = await useFixtureAgents({
      Forgetful: { scenario: 'echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: NO_REOPEN, ACP_FIXTURE_STATE_DIR: state } },
    });
    const chat = await newChat('Forgetful');
    await within(chat.send('remember the milk'), 10_000, 'the turn');
    const oldId = chat.sessionId;
    assert.ok(oldId);
    chat.close();
    await closeAllChats();

    const acp = await api();
    const items = await acp.previousSessions('Forgetful');
    assert.deepEqual(
      items.map((i) => [i.sessionId, i.title, i.source]),
      [[oldId, 'remember the milk', 'local']],
    );
    const reopened = await openPrevious('Forgetful', oldId, items[0]?.cwd);
    assert.deepEqual(shown(reopened), ['user:remember the milk', 'agent:You said: remember the milk'], 'the kept conversation');
    assert.notEqual(reopened.sessionId, oldId, 'a new session');
    const sent = recorded(agents['Forgetful']!.recordFile);
    assert.equal(sent.filter((m) => m.method === 'session/new').length, 2);
    assert.ok(
      !sent.some((m) => m.method === 'session/load' || m.method === 'session/resume' || m.method === 'session/list'),
      'nothing the agent did not advertise',
    );

    // The new session carries the kept conversation on: the history has it in place of the old one.
    await within(reopened.send('and eggs'), 10_000, 'a turn in the new session');
    assert.deepEqual(
      shown(reopened).slice(2),
      ['user:and eggs', 'agent:You said: and eggs'],
      'the new session\u2019s turn below the kept conversation',
    );
    const newId = reopened.sessionId;
    reopened.close();
    const after = await acp.previousSessions('Forgetful');
    assert.deepEqual(
      after.map((i) => [i.sessionId, i.title]),
      [[newId, 'remember the milk']],
    );
  });
});
