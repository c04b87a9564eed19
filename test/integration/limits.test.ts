// Failures that say what to do, in a real extension host with the fixture agent: a turn refused for a used-up quota
// says which limit and when it resets, and offers Switch Model (another model is offered) and Retry; an overloaded
// service offers Retry, which sends the same message and attachment again, exactly, and the failed turn stays. The
// kinds are read from the error's code and data (the draft quota RFD's -32003, claude-agent-acp's errorKind). The
// status bar meter the agent's quota moves is driven in test/ui/sessions.test.ts, where the status bar is.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { RESETS_AT } from '../fixtures/lib/limitScenarios';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, messages, newChat, recorded, useFixtureAgent, workspaceFolder, type FixtureSetup } from './lib/fixture';

describe('failures that say what to do', function () {
  this.timeout(60_000);
  let setup: FixtureSetup;

  beforeEach(async () => {
    setup = await useFixtureAgent('limits', { name: 'Limited' });
  });

  afterEach(async () => {
    await closeAllChats();
  });

  it('says a used-up quota with its limit and reset time, and offers Switch Model and Retry', async () => {
    const chat = await newChat();
    await assert.rejects(chat.send('refuse'));
    const turn = chat.turn;
    assert.deepEqual(turn.failure, {
      kind: 'quotaExhausted',
      limit: 'five_hour',
      resetsAt: Date.parse(RESETS_AT),
      actions: ['switchModel', 'retry'],
    });
    assert.match(turn.error ?? '', /Quota exceeded/);
  });

  it('reads the account’s quota when the agent starts, and a session’s when it is reopened (the draft quota/read)', async () => {
    // Sessions kept on disk, as real agents keep them: the next process reopens them.
    setup = await useFixtureAgent('limits', { name: 'Limited (kept)', env: { ACP_FIXTURE_STATE_DIR: mkdtempSync(join(tmpdir(), 'acp-limits-')) } });
    const chat = await newChat();
    const reads = () => recorded(setup.recordFile).filter((m) => m.method === 'quota/read');
    await waitFor(() => reads().length === 1, { what: 'quota/read for the account' });
    assert.deepEqual(reads()[0]?.params, {}, 'no session: the account a new session would use');
    assert.equal(await within(chat.send('quota 42'), 10_000, 'the turn'), 'end_turn');
    const sessionId = chat.sessionId;
    assert.ok(sessionId);
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: setup.name, sessionId });
    assert.equal(again?.sessionId, sessionId);
    await waitFor(() => reads().some((m) => m.params?.['sessionId'] === sessionId), { what: 'quota/read for the reopened session' });
  });

  it('retries an overloaded turn with the same message and attachment, and keeps the failed turn', async () => {
    writeFileSync(join(workspaceFolder(), 'retry.txt'), 'attached for the retry\n');
    const chat = await newChat();
    const pick = await waitFor(async () => (await chat.completeMention('retry')).find((m) => m.kind === 'file' && m.path.endsWith('retry.txt')), {
      what: '@retry to offer the file',
    });
    await chat.mention(pick.kind, pick.path);
    await waitFor(() => chat.attachments.length === 1, { what: 'the file attached' }).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; the chat says: ${chat.notice ?? 'nothing'}`);
    });
    await assert.rejects(chat.send('overloaded please'));
    assert.deepEqual(chat.turn.failure, { kind: 'overloaded', actions: ['switchModel', 'retry'] });
    await chat.runTurnAction('retry');
    await waitFor(
      () => chat.turn.phase === 'idle' && chat.turn.failure === undefined && /done:overloaded please/.test(messages(chat, 'agent').join('')),
      {
        what: 'the retried turn to end',
      },
    );
    const prompts = recorded(setup.recordFile).filter((m) => m.method === 'session/prompt');
    assert.equal(prompts.length, 2);
    assert.deepEqual(prompts[1]?.params?.['prompt'], prompts[0]?.params?.['prompt'], 'the very same message and attachment');
    assert.ok(JSON.stringify(prompts[0]?.params?.['prompt']).includes('attached for the retry'), 'the attachment went with the message');
    assert.deepEqual(messages(chat, 'user'), ['overloaded please', 'overloaded please'], 'the failed turn stays above the retry');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
