// Permission levels in a real extension host with the fixture agent: Ask asks; Auto-approve edits answers an edit
// inside the workspace and asks about the rest; Allow all answers everything but a plan approval and a path outside
// the workspace; each automatic answer shows on the tool card and in the log; a chat keeps its level when it is
// reopened; a new chat starts at acp.permissions.defaultLevel, and "Allow all" as a default is confirmed first.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, agentText, answeringQuickInput, api, closeAllChats, ENTER, newChat, recorded, useFixtureAgents } from './lib/fixture';

const AGENT = 'Leveled';

/** Sends `word` and, when the agent's request waits for the user, answers it with Reject: returns what happened. */
async function ask(chat: ChatHandle, word: string): Promise<'asked' | 'answered'> {
  const before = agentText(chat);
  const sent = chat.send(word);
  let asked = false;
  await waitFor(
    () => {
      if (chat.permissions.length > 0) asked = true;
      return asked || agentText(chat) !== before;
    },
    { what: `the request for "${word}" to be answered or to wait` },
  );
  if (asked) await chat.answerPermission(chat.permissions[0]!.id, 'reject');
  await within(sent, 10_000, `the turn about "${word}"`);
  return asked ? 'asked' : 'answered';
}

async function setDefaultLevel(level: string | undefined): Promise<void> {
  const config = vscode.workspace.getConfiguration('acp');
  const current = (config.inspect<Record<string, unknown>>('permissions')?.globalValue ?? {}) as Record<string, unknown>;
  const { defaultLevel: _old, ...rest } = current;
  void _old;
  await config.update('permissions', level ? { ...rest, defaultLevel: level } : rest, vscode.ConfigurationTarget.Global);
}

describe('permission levels', function () {
  this.timeout(90_000);
  afterEach(async () => {
    await closeAllChats();
    await setDefaultLevel(undefined);
  });

  it('Ask asks; Auto-approve edits answers only edits inside the workspace; Allow all answers all but plans and outside paths; a chat keeps its level', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-levels-state-'));
    await useFixtureAgents({ [AGENT]: { scenario: 'levels', env: { ACP_FIXTURE_STATE_DIR: state } } });
    const chat = await newChat(AGENT);
    assert.deepEqual(chat.permissionLevel, { level: 'ask', offered: ['ask', 'autoApproveEdits', 'allowAll'] });
    assert.equal(await ask(chat, 'edit'), 'asked');

    await chat.setPermissionLevel('autoApproveEdits');
    assert.equal(chat.permissionLevel.level, 'autoApproveEdits');
    assert.equal(await ask(chat, 'edit'), 'answered');
    assert.match(agentText(chat), /outcome:allow$/, 'the agent\u2019s allow-once option');
    const card = chat.entries.filter((e) => e.kind === 'tool').at(-1);
    assert.equal(card?.kind === 'tool' ? card.autoAnswer?.reason : undefined, 'the permission level \u201cAuto-approve edits\u201d');
    assert.equal(await ask(chat, 'command'), 'asked', 'a command still asks');
    assert.equal(await ask(chat, 'outside'), 'asked', 'an edit outside the workspace still asks');

    // From the command palette, for the chat the user works in; Allow all is confirmed first (Enter confirms).
    await answeringQuickInput(() => vscode.commands.executeCommand('acp.setPermissionLevel', 'allowAll'), ENTER, 'the Allow all confirmation');
    await waitFor(() => chat.permissionLevel.level === 'allowAll', { what: 'the chat at Allow all' });
    assert.equal(await ask(chat, 'command'), 'answered');
    assert.equal(await ask(chat, 'edit'), 'answered');
    // A plan approval is the user's, and it shows the plan.
    const planned = chat.send('plan');
    const request = await waitFor(() => chat.permissions[0], { what: 'the plan approval' });
    assert.equal(request.plan, '1. Read the code\n2. Fix it');
    await chat.answerPermission(request.id, 'reject');
    await within(planned, 10_000, 'the plan turn');
    assert.equal(await ask(chat, 'outside'), 'asked', 'a path outside the workspace is the user\u2019s');
    assert.match(acpLog(), /answered "Allow" to Leveled's request "npm test" by the chat's permission level "Allow all"/);

    // Reopened, the chat has its level; a new chat starts at the default (Ask).
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: AGENT, sessionId });
    assert.ok(again);
    await waitFor(() => again.permissionLevel.level === 'allowAll', { what: 'the reopened chat at its own level' });
    const fresh = await newChat(AGENT);
    await waitFor(() => fresh.permissionLevel.offered.length === 3, { what: 'the new chat\u2019s level' });
    assert.equal(fresh.permissionLevel.level, 'ask');
  });

  it('starts a new chat at acp.permissions.defaultLevel, and asks before "Allow all" as a default applies', async () => {
    await useFixtureAgents({ [AGENT]: { scenario: 'levels' } });
    await setDefaultLevel('autoApproveEdits');
    const edits = await newChat(AGENT);
    await waitFor(() => edits.permissionLevel.level === 'autoApproveEdits', { what: 'the default level' });
    assert.equal(await ask(edits, 'edit'), 'answered');

    await setDefaultLevel('allowAll');
    // The confirmation comes first; Enter confirms the user's own setting. The log says when the question was put
    // (so the key reaches it) and what the answer was.
    const bold = await newChat(AGENT);
    await waitFor(() => acpLog().includes('asking whether new chats in this window may start there'), { what: 'the confirmation' });
    await waitFor(
      async () => {
        if (/new chats in this window start at/.test(acpLog())) return true;
        await vscode.commands.executeCommand(ENTER);
        return false;
      },
      { what: 'the answer to the confirmation' },
    );
    assert.match(acpLog(), /new chats in this window start at "Allow all", as acp.permissions.defaultLevel says and the user confirmed/);
    await waitFor(() => bold.permissionLevel.level === 'allowAll', { what: 'the chat at Allow all' });
    assert.equal(await ask(bold, 'command'), 'answered');
    // Confirmed once for this window: the next new chat starts at Allow all without asking.
    const next = await newChat(AGENT);
    await waitFor(() => next.permissionLevel.level === 'allowAll', { what: 'the next chat at Allow all' });
    assert.equal(acpLog().split('asking whether new chats').length - 1, 1, 'asked once');
  });

  it('sets claude-agent-acp’s own mode for the level, never over a plan mode the user picked, and Ask puts back what it replaced', async () => {
    const agents = await useFixtureAgents({ Claudish: { scenario: 'levels-claude' } });
    const chat = await newChat('Claudish');
    const modeOf = () => chat.session.pickers.find((p) => p.id === 'mode')?.current;
    const modesSent = () => recorded(agents['Claudish']!.recordFile).flatMap((m) => (m.method === 'session/set_mode' ? [m.params?.['modeId']] : []));

    await chat.setPermissionLevel('autoApproveEdits');
    await waitFor(() => modeOf() === 'acceptEdits', { what: 'the agent in acceptEdits' });
    await chat.setPermissionLevel('ask');
    await waitFor(() => modeOf() === 'default', { what: 'the agent back in the mode the level replaced' });
    assert.equal(await ask(chat, 'edit'), 'asked', 'at Ask the client answers nothing');

    await chat.setMode('plan');
    await answeringQuickInput(() => chat.setPermissionLevel('allowAll'), ENTER, 'the Allow all confirmation');
    assert.equal(await ask(chat, 'plan'), 'asked', 'a plan approval still asks');
    assert.equal(modeOf(), 'plan', 'Allow all does not take the agent out of the plan mode the user picked');
    await chat.setPermissionLevel('ask');
    await chat.setMode('default');
    await answeringQuickInput(() => chat.setPermissionLevel('allowAll'), ENTER, 'the Allow all confirmation');
    await waitFor(() => modeOf() === 'bypassPermissions', { what: 'the agent in bypassPermissions' });
    assert.deepEqual(modesSent(), ['acceptEdits', 'default', 'plan', 'default', 'bypassPermissions']);
    await waitFor(() => /the level "Allow all" moved Claudish from default to bypassPermissions/.test(acpLog()), {
      what: 'the log to say what the level set',
    });
  });

  it('never shows Ask while claude-agent-acp decides alone: its auto start is moved to Manual, Agent decides maps to auto, and a mode the user picks raises the level', async () => {
    await useFixtureAgents({ Auto: { scenario: 'levels-claude-auto' } });
    const chat = await newChat('Auto');
    const modeOf = () => chat.session.pickers.find((p) => p.id === 'mode')?.current;
    // A message sent at once waits for the level's mode: the agent never gets it while in auto.
    assert.equal(await ask(chat, 'edit'), 'asked', 'the first message is asked, though the agent started in auto');
    await waitFor(() => modeOf() === 'default', { what: 'the agent moved out of auto, since the chat is at Ask' });
    assert.equal(chat.permissionLevel.level, 'ask');
    await waitFor(() => /Auto started in its mode "Auto", which approves edits or commands by itself.*"Manual"/.test(chat.notice ?? ''), {
      what: 'the chat to say so',
    });
    assert.equal(await ask(chat, 'edit'), 'asked', 'at Ask the edit is asked');
    assert.equal(await ask(chat, 'command'), 'asked', 'at Ask the command is asked');
    // The adapter says who it runs as by its own extension, _auth/status_update: the header's tooltip shows it.
    await waitFor(() => chat.session.account !== undefined, { what: 'the account' });
    assert.deepEqual(chat.session.account, { state: 'authenticated', names: ['ada@example.com (Claude Max)'] });
    assert.deepEqual(chat.permissionLevel.offered, ['ask', 'autoApproveEdits', 'agentDecides', 'allowAll']);
    assert.equal(chat.permissionLevel.modes?.ask, 'Manual', 'the picker says which of the agent\u2019s modes each level is');
    assert.equal(chat.permissionLevel.modes?.agentDecides, 'Auto');

    await chat.setPermissionLevel('agentDecides');
    await waitFor(() => modeOf() === 'auto', { what: 'the agent in auto at Agent decides' });
    assert.equal(await ask(chat, 'command'), 'answered');
    assert.match(agentText(chat), /outcome:decided-alone in auto$/);

    await chat.setPermissionLevel('ask');
    await waitFor(() => modeOf() === 'default', { what: 'the agent back in Manual' });
    // The user picks the agent's acceptEdits: it stays theirs, and the chat shows the level it amounts to.
    await chat.setMode('acceptEdits');
    await waitFor(() => chat.permissionLevel.level === 'autoApproveEdits', { what: 'the level raised to what acceptEdits approves' });
    assert.equal(modeOf(), 'acceptEdits', 'the user\u2019s mode is not overridden');
    assert.match(chat.notice ?? '', /now in its mode "Accept Edits", which approves by itself/);
  });

  it('starts a new chat at Ask when the default is Agent decides and the agent has no such mode', async () => {
    // Sessions kept on disk get ids of their own: an id an earlier test's chat had would bring back its level.
    await useFixtureAgents({ [AGENT]: { scenario: 'levels', env: { ACP_FIXTURE_STATE_DIR: mkdtempSync(join(tmpdir(), 'acp-levels-state-')) } } });
    await setDefaultLevel('agentDecides');
    const chat = await newChat(AGENT);
    await waitFor(() => chat.permissionLevel.offered.length === 3, { what: 'the chat\u2019s levels' });
    assert.ok(!chat.permissionLevel.offered.includes('agentDecides'));
    await waitFor(() => chat.permissionLevel.level === 'ask', { what: 'the chat at Ask' });
    assert.equal(await ask(chat, 'edit'), 'asked');
  });
});
