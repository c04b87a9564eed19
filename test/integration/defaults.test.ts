// Agent defaults in a real extension host with the fixture agent: acp.agentDefaults gives a new chat its model, mode,
// config options and permission level, only with values the agent offers, and says once what it does not offer;
// Save as Default for This Agent writes a chat's choices there (never the agent's own allow-all); and a chat keeps
// its own choices when it is reopened in a new session.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, answeringQuickInput, api, closeAllChats, ENTER, newChat, recorded, useFixtureAgent } from './lib/fixture';

type Value = string | boolean;

function current(chat: ChatHandle): Record<string, Value> {
  return Object.fromEntries(chat.session.pickers.map((p) => [p.id, p.current]));
}

async function setDefaults(value: Record<string, unknown> | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('acp').update('agentDefaults', value, vscode.ConfigurationTarget.Global);
}

describe('agent defaults', function () {
  this.timeout(60_000);

  afterEach(async () => {
    await closeAllChats();
    await setDefaults(undefined);
  });

  it('starts a new chat with the agent\u2019s defaults, and says once what the agent does not offer', async () => {
    const fixture = await useFixtureAgent('settings', { name: 'Defaulted' });
    await setDefaults({
      Defaulted: {
        model: 'smart',
        mode: 'plan',
        configOptions: { effort: 'high', verbose: true, colour: 'blue' },
        permissionLevel: 'autoApproveEdits',
      },
    });
    const chat = await newChat();
    const wanted = { mode: 'plan', model: 'smart', effort: 'high', verbose: true };
    await waitFor(() => JSON.stringify(current(chat)) === JSON.stringify(wanted), { what: `the defaults (now ${JSON.stringify(current(chat))})` });
    await waitFor(() => chat.permissionLevel.level === 'autoApproveEdits', { what: 'the default level' });
    await waitFor(() => /does not offer "blue" for its setting "colour" that acp.agentDefaults names/.test(chat.notice ?? ''), {
      what: 'the value it does not offer, said in the chat',
    });
    const calls = recorded(fixture.recordFile).filter((m) => m.method === 'session/set_mode' || m.method === 'session/set_config_option');
    assert.deepEqual(
      calls.map((m) => m.params?.['modeId'] ?? `${String(m.params?.['configId'])}=${String(m.params?.['value'])}`),
      ['plan', 'model=smart', 'effort=high', 'verbose=true'],
      'only what the agent offers, and only what differs',
    );

    const second = await newChat();
    await waitFor(() => current(second)['effort'] === 'high', { what: 'the second chat to get the defaults' });
    await within(second.send('hello'), 10_000, 'a turn');
    assert.equal((acpLog().match(/does not offer colour "blue"/g) ?? []).length, 1, 'said once');
  });

  it('saves a chat\u2019s choices as the agent\u2019s defaults, and leaves out an entry that does not validate with a sentence', async () => {
    await useFixtureAgent('settings', { name: 'Saver' });
    const chat = await newChat();
    await chat.setConfigOption('effort', 'medium');
    await chat.setMode('plan');
    assert.equal(await vscode.commands.executeCommand('acp.saveAgentDefaults'), true);
    const saved = vscode.workspace.getConfiguration('acp').inspect<Record<string, unknown>>('agentDefaults')?.globalValue;
    assert.deepEqual(saved?.['Saver'], { model: 'fast', mode: 'plan', configOptions: { effort: 'medium', verbose: false }, permissionLevel: 'ask' });

    await setDefaults({ Saver: { model: 7 } });
    const next = await newChat();
    await waitFor(() => /entry for "Saver" that is not valid \(model: /.test(next.notice ?? ''), { what: 'the bad entry said' });
    assert.equal(current(next)['mode'], 'default', 'the chat starts as the agent says');
  });

  it('keeps a chat\u2019s own choices when it is reopened in a new session, over the defaults', async () => {
    // No session/load: a reopened chat gets a new session, which knows nothing of the old one's choices.
    const fixture = await useFixtureAgent('settings', {
      name: 'Keeper',
      // Session ids that do not repeat in the agent's next process (a state dir).
      env: {
        ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }),
        ACP_FIXTURE_STATE_DIR: mkdtempSync(join(tmpdir(), 'acp-keeper-')),
      },
    });
    await setDefaults({ Keeper: { model: 'fast', configOptions: { effort: 'low' } } });
    const chat = await newChat();
    await waitFor(() => current(chat)['effort'] === 'low', { what: 'the default effort' });
    await chat.setConfigOption('effort', 'high');
    await chat.setConfigOption('model', 'smart');
    await within(chat.send('remember this'), 10_000, 'a turn');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: 'Keeper', sessionId });
    assert.ok(again && again.sessionId !== sessionId, 'a new session in its place');
    await waitFor(() => current(again)['effort'] === 'high' && current(again)['model'] === 'smart', {
      what: `the chat's own choices (now ${JSON.stringify(current(again))})`,
    });
    assert.ok(recorded(fixture.recordFile).some((m) => m.method === 'session/set_config_option' && m.params?.['value'] === 'smart'));
  });
  it('keeps a chat\u2019s level in the new session it is reopened in, and never keeps the level\u2019s own mode as a choice', async () => {
    const env = {
      ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }),
      ACP_FIXTURE_STATE_DIR: mkdtempSync(join(tmpdir(), 'acp-carry-')),
    };
    await useFixtureAgent('levels-claude', { name: 'Carried', env });
    const chat = await newChat();
    await answeringQuickInput(() => chat.setPermissionLevel('allowAll'), ENTER, 'the Allow all confirmation');
    await waitFor(() => current(chat)['mode'] === 'bypassPermissions', { what: "the level's own mode" });
    await chat.setConfigOption('model', 'smart');
    await within(chat.send('hello'), 10_000, 'a turn');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: 'Carried', sessionId });
    assert.ok(again && again.sessionId !== sessionId, 'a new session in its place');
    await waitFor(() => again.permissionLevel.level === 'allowAll' && current(again)['model'] === 'smart', { what: 'the level and the model' });
    await waitFor(() => current(again)['mode'] === 'bypassPermissions', { what: "the level's mode, set by the level" });
    await again.setPermissionLevel('ask');
    await waitFor(() => current(again)['mode'] === 'default', { what: 'Ask puts back the mode the level replaced' });
  });
});
