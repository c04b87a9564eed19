// The questions the files adapter asks: a path outside the workspace, and unsaved edits the agent has not read.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

describe('files UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  let outside: string;
  const { settings } = fixtureAgents(join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'files'), {
    'Fixture Calls': 'client-calls',
  });

  before(async () => {
    outside = mkdtempSync(join(tmpdir(), 'acp-ui-outside-'));
    writeFileSync(join(outside, 'notes.txt'), 'outside the workspace\n');
    workbench = await openWorkbench('files', {
      machine: { 'acp.agents': settings },
      user: { 'acp.defaultAgent': 'Fixture Calls', 'files.autoSave': 'off' },
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      const dir = await workbench.saveFailure(this.currentTest.fullTitle());
      process.stdout.write(`      saved the screenshot and logs to ${dir}\n`);
    }
  });

  after(async () => {
    await workbench?.close();
    rmSync(outside, { recursive: true, force: true });
  });

  const sendCalls = (steps: unknown[]) => workbench.sendInNewChat(JSON.stringify(steps));

  function toast(text: string) {
    return workbench.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  }

  it('asks before an agent reads outside the workspace: Allow Once reads, Deny refuses', async () => {
    const file = join(outside, 'notes.txt');
    const chat = await sendCalls([
      { method: 'fs/read_text_file', params: { path: file } },
      { method: 'fs/read_text_file', params: { path: file } },
    ]);
    const question = `Fixture Calls wants to read ${file}, which is outside the workspace folders.`;
    await toast(question).getByRole('button', { name: 'Allow Once' }).click();
    await chat.getByRole('log').getByText('fs/read_text_file:{"content":"outside the workspace\\n"}').waitFor();
    await toast(question).getByRole('button', { name: 'Deny' }).click();
    await chat.getByRole('log').getByText(`the user did not allow reading ${file}, which is outside the workspace folders`).waitFor();
    await workbench.runCommand('View: Close All Editors');
  });

  it('keeps unsaved edits the agent has not read when the user says so', async () => {
    const file = join(workbench.workspace, 'README.md');
    await workbench.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).click();
    const editor = workbench.page.locator('.editor-instance .monaco-editor').first();
    await editor.click();
    await workbench.page.keyboard.press('Control+End');
    await workbench.page.keyboard.type('typed and not saved');
    await workbench.page.locator('.tab.active.dirty', { hasText: 'README.md' }).waitFor();

    const chat = await sendCalls([{ method: 'fs/write_text_file', params: { path: file, content: 'the agent wrote this\n' } }]);
    await toast('Fixture Calls wants to overwrite README.md, which has unsaved changes it has not read.')
      .getByRole('button', { name: 'Keep My Changes' })
      .click();
    await chat.getByRole('log').getByText('that you have not read, and kept them; the file was not written').waitFor();
    assert.doesNotMatch(readFileSync(file, 'utf8'), /the agent wrote this/);
    await workbench.page.locator('.tab.dirty', { hasText: 'README.md' }).waitFor();
    const shown = (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' '); // Monaco renders spaces as nbsp
    assert.match(shown, /typed and not saved/);
  });
});
