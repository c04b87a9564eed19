// Import Sessions from Agent… in a real extension host with the fixture agent, which lists its sessions and replays
// them: the ones this computer does not keep are replayed into local transcripts that Search Chats finds, those
// kept are skipped, and a cancel (the notification's own Cancel) keeps nothing of the replay it stopped.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import type { ImportResult } from '../../src/sessions/importSessions';
import { waitFor } from '../lib/wait';
import { answeringQuickInput, closeAllChats, ENTER, newChat, recorded, useFixtureAgent } from './lib/fixture';

const NAME = 'Fixture (import)';
const CAPS = { loadSession: true, promptCapabilities: { embeddedContext: true }, sessionCapabilities: { list: {}, close: {} } };

/**
 * Runs Import Sessions and accepts its pick with Enter (every new session is checked when it shows), until
 * `started()` or the run ended.
 */
async function importing(started: () => boolean = () => false): Promise<{ run: Promise<ImportResult | undefined> }> {
  const run = Promise.resolve(vscode.commands.executeCommand<ImportResult | undefined>('acp.importSessions', NAME));
  let ended = false;
  void run.finally(() => (ended = true));
  await waitFor(
    async () => {
      if (started() || ended) return true;
      await vscode.commands.executeCommand(ENTER);
      return false;
    },
    { timeoutMs: 20_000, what: 'the import to run' },
  );
  return { run };
}

describe('Import Sessions', function () {
  this.timeout(90_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('imports the sessions not kept here (Search Chats finds them), skips those kept, and a cancel keeps nothing', async () => {
    const env = { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(CAPS), ACP_FIXTURE_STATE_DIR: mkdtempSync(join(tmpdir(), 'acp-import-')) };
    // A chat of this computer: the agent lists it beside the session it "remembers" (sess-stored, never kept here).
    await useFixtureAgent('echo', { name: NAME, env });
    const chat = await newChat();
    assert.equal(await chat.send('the heron question'), 'end_turn');
    await closeAllChats();

    // Cancelled while the agent holds the replay: the notification's Cancel, as the user would press it.
    const held = await useFixtureAgent('echo', { name: NAME, env: { ...env, ACP_FIXTURE_LOAD_HOLD: '1' } });
    await vscode.commands.executeCommand('notifications.clearAll');
    const { run: cancelling } = await importing(() => recorded(held.recordFile).some((m) => m.method === 'session/load'));
    let result: ImportResult | undefined;
    void cancelling.then((r) => (result = r));
    await waitFor(
      async () => {
        if (!result) await vscode.commands.executeCommand('notification.acceptPrimaryAction'); // the progress's Cancel
        return result !== undefined;
      },
      { what: 'the import to be cancelled' },
    );
    assert.deepEqual(result, { imported: 0, skipped: 1, failed: 0, cancelled: true });
    // The replay was given up without waiting for the agent (which the run then stops, as nothing else uses it), and
    // nothing of it is kept: the next run offers and imports that session.
    writeFileSync(`${held.recordFile}.release`, ''); // an agent still running ends the replay late: it changes nothing

    const fixture = await useFixtureAgent('echo', { name: NAME, env });
    const imported = await (await importing()).run;
    assert.deepEqual(imported, { imported: 1, skipped: 1, failed: 0, cancelled: false });
    assert.deepEqual(
      recorded(fixture.recordFile)
        .filter((m) => m.method === 'session/load')
        .map((m) => m.params?.['sessionId']),
      ['sess-stored'],
      'only the session not kept here was replayed',
    );

    const found = await answeringQuickInput(
      () => vscode.commands.executeCommand<ChatHandle | undefined>('acp.searchChats', 'What is ACP'),
      ENTER,
      'the imported session among the results',
    );
    assert.equal(found?.sessionId, 'sess-stored');
    assert.ok(found?.entries.some((e) => e.kind === 'message' && e.text.includes('A protocol between editors and agents.')));
    await closeAllChats();

    // Everything is here now: nothing is offered, nothing replayed.
    const again = await vscode.commands.executeCommand<ImportResult | undefined>('acp.importSessions', NAME);
    assert.deepEqual(again, { imported: 0, skipped: 2, failed: 0, cancelled: false });
  });
});
