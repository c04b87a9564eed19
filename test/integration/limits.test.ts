// Failures that say what to do, in a real extension host with the fixture agent: a turn refused for a used-up quota
// says which limit and when it resets, and offers Switch Model (another model is offered) and Retry; an overloaded
// service offers Retry, which sends the same message and attachment again, exactly, and the failed turn stays. The
// kinds are read from the error's code and data (the draft quota RFD's -32003, claude-agent-acp's errorKind). The
// status bar meter the agent's quota moves is driven in test/ui/sessions.test.ts, where the status bar is.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RESETS_AT } from '../fixtures/lib/limitScenarios';
import { waitFor } from '../lib/wait';
import { closeAllChats, messages, newChat, recorded, useFixtureAgent, workspaceFolder, type FixtureSetup } from './lib/fixture';

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
