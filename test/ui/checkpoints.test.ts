// Checkpoints in the real workbench, in a multi-root workspace: the changes card under a turn, Review Changes in the
// multi-file diff editor with its per-hunk revert, Undo and Redo from the card, the marks on changed files, Restore
// Checkpoint from a message, and a line comment that becomes the next prompt. The fixture agent plays the prompt as a
// script of changes it makes on disk itself (test/fixtures/lib/changeScenarios.ts).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

describe('checkpoints UI', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  const work = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'checkpoints');
  const { settings, agents } = fixtureAgents(work, { 'Fixture Changes': 'changes' });

  before(async () => {
    workbench = await openWorkbench(
      'checkpoints',
      { machine: { 'acp.agents': settings }, user: { 'acp.defaultAgent': 'Fixture Changes', 'files.autoSave': 'off', 'acp.followAgent': false } },
      { secondFolder: true },
    );
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

  /** Sends a script of changes in a new chat and returns the chat and its card, once the card shows. */
  async function changeInNewChat(steps: unknown[]): Promise<{ chat: FrameLocator; card: Locator }> {
    const chat = await workbench.sendInNewChat(JSON.stringify(steps));
    const card = chat.getByRole('region', { name: 'Changes of this turn' }).last();
    await card.waitFor({ timeout: 30_000 });
    return { chat, card };
  }

  it('shows the card with each folder’s files, undoes and redoes them from it, and keeps them', async () => {
    const first = join(workbench.workspace, 'src', 'hello.ts');
    const second = join(workbench.secondFolder!, 'notes.md');
    const { card } = await changeInNewChat([
      { op: 'disk', path: first, text: 'export const hello = "agent";\nexport const more = 1;\n' },
      { op: 'disk', path: second, text: '# Second folder\n\nEdited by the agent.\n' },
    ]);
    await card.getByText('2 files changed').waitFor();
    await card.getByRole('button', { name: 'workspace/src/hello.ts' }).waitFor();
    await card.getByRole('button', { name: 'second/notes.md' }).waitFor();
    await card.getByRole('img', { name: 'Modified' }).first().waitFor();
    for (const name of ['Review Changes', 'Undo Changes', 'Keep']) await card.getByRole('button', { name, exact: true }).waitFor();
    await workbench.screenshot('changes-card');

    await card.getByRole('button', { name: 'Undo Changes' }).click();
    await card.getByText('Changes undone').waitFor();
    await waitFor(() => read(first) === 'export const hello = "world";\n' && read(second) === '# Second folder\n', {
      what: 'the files to be undone',
    });

    await card.getByRole('button', { name: 'Redo Changes' }).click();
    await card.getByRole('button', { name: 'Keep' }).waitFor();
    await waitFor(() => read(second) === '# Second folder\n\nEdited by the agent.\n', { what: 'the agent’s version back' });

    // The Sessions view shows the chat's lines added and removed.
    const page = workbench.page;
    await page.locator('.activitybar').getByRole('tab', { name: 'ACP' }).click();
    await page.getByRole('tree', { name: 'Sessions' }).getByRole('treeitem').filter({ hasText: 'open · +4 −1' }).waitFor();
    await page
      .locator('.activitybar')
      .getByRole('tab', { name: /^Explorer/ })
      .click();

    await card.getByRole('button', { name: 'Keep' }).click();
    await card.getByRole('button', { name: '2 files changed · kept' }).waitFor();
    assert.equal(await card.getByRole('button', { name: 'Undo Changes' }).count(), 0, 'a kept card is one line');
  });

  it('marks the changed files in the Explorer and on their tabs until Keep, naming the chat', async () => {
    const file = join(workbench.workspace, 'marked.txt');
    writeFileSync(file, 'plain\n');
    const { card } = await changeInNewChat([{ op: 'disk', path: file, text: 'marked by the agent\n' }]);
    const page = workbench.page;
    const explorerRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'marked.txt' }).first();
    await explorerRow.waitFor();
    const badge = (row: Locator) =>
      row.evaluate((el) =>
        [...el.querySelectorAll('*')]
          .map((node) => getComputedStyle(node, '::after').content)
          .filter((content) => content && content !== 'none' && content !== 'normal')
          .join(' '),
      );
    await waitFor(async () => (await badge(explorerRow)).includes('✦'), { what: 'the mark on the Explorer row', timeoutMs: 10_000 });
    assert.match(await explorerRow.getAttribute('aria-label').then((l) => l ?? ''), /marked\.txt/);

    await card.getByRole('button', { name: 'workspace/marked.txt' }).click();
    const tab = page.locator('.tabs-container .tab', { hasText: 'marked.txt' }).first();
    await tab.waitFor();
    await waitFor(async () => (await badge(tab)).includes('✦'), { what: 'the mark on the editor tab', timeoutMs: 10_000 });

    await card.getByRole('button', { name: 'Keep' }).click();
    await waitFor(async () => !(await badge(explorerRow)).includes('✦'), { what: 'the mark to clear after Keep', timeoutMs: 10_000 });
  });

  it('opens Review Changes in the multi-file diff editor, where a hunk’s revert arrow undoes that hunk in the real file', async () => {
    const file = join(workbench.workspace, 'review.txt');
    writeFileSync(file, 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n');
    const { card } = await changeInNewChat([
      { op: 'disk', path: file, text: 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\n' },
      { op: 'disk', path: join(workbench.workspace, 'added.txt'), text: 'new\n' },
    ]);
    await card.getByRole('button', { name: 'Review Changes' }).click();
    const page = workbench.page;
    await page.locator('.tabs-container .tab', { hasText: 'Changes by' }).waitFor();
    const editor = page.locator('.multiDiffEditor, .multi-diff-editor').first();
    await editor.waitFor();
    await editor.getByText('review.txt').first().waitFor();
    await editor.getByText('added.txt').first().waitFor();
    await workbench.screenshot('review-changes');

    // The diff editor's own revert, on the first hunk of review.txt: the real file gets "one" back, and keeps "TEN".
    const entry = editor.locator('.multiDiffEntry').filter({ has: page.locator('.header', { hasText: 'review.txt' }) });
    await entry.locator('.editor.modified .view-line', { hasText: 'ONE' }).first().hover();
    await entry.getByRole('button', { name: 'Revert Block' }).first().click();
    await entry.locator('.editor.modified .view-line', { hasText: /^one$/ }).first().waitFor();
    await workbench.runCommand('File: Save All');
    await waitFor(() => read(file)?.startsWith('one\n') && read(file)?.includes('TEN\n'), {
      what: 'the first hunk reverted on disk',
      timeoutMs: 15_000,
    });
  });

  it('restores every file to before a message after the chat lists them, and Redo Changes puts them back', async () => {
    const file = join(workbench.workspace, 'restore.txt');
    writeFileSync(file, 'original\n');
    const { chat } = await changeInNewChat([{ op: 'disk', path: file, text: 'first turn\n' }]);
    const message = chat.getByRole('textbox', { name: 'Message' });
    await message.fill(JSON.stringify([{ op: 'disk', path: file, text: 'second turn\n' }]));
    await message.press('Enter');
    await waitFor(() => read(file) === 'second turn\n', { what: 'the second turn' });
    await chat.getByRole('region', { name: 'Changes of this turn' }).nth(1).waitFor();

    const firstMessage = chat.getByRole('article', { name: 'You' }).first();
    await firstMessage.hover();
    await firstMessage.getByRole('button', { name: 'Restore Checkpoint' }).click();
    const question = chat.getByRole('group', { name: 'Restore 1 file to how it was before this message?' });
    await question.getByText('restore.txt').waitFor();
    assert.equal(read(file), 'second turn\n', 'nothing changes before the user agrees');
    await question.getByRole('button', { name: 'Restore', exact: true }).click();
    await waitFor(() => read(file) === 'original\n', { what: 'the file restored' });
    await chat.getByText('Restored 1 file to how it was before this message.').waitFor();
    await chat.getByRole('status').filter({ hasText: 'Restored 1 file' }).getByRole('button', { name: 'Redo Changes' }).click();
    await waitFor(() => read(file) === 'second turn\n', { what: 'the restore taken back' });
  });

  it('turns a comment on a changed line into the next prompt with Send Feedback', async () => {
    const file = join(workbench.workspace, 'feedback.ts');
    writeFileSync(file, 'export const a = 1;\n');
    const { chat, card } = await changeInNewChat([{ op: 'disk', path: file, text: 'export const a = 1;\nexport const b = a + a;\n' }]);
    await card.getByRole('button', { name: 'workspace/feedback.ts' }).click();
    const page = workbench.page;
    // Comment on line 2 of the real file (the diff's right side): the Comments API's own widget.
    const modified = page.locator('.editor.modified .monaco-editor, .monaco-diff-editor .editor.modified').first();
    await modified.locator('.view-line', { hasText: 'export const b' }).first().click();
    await workbench.runCommand('Comments: Add Comment on Current Selection');
    const widget = page.locator('.review-widget').first();
    await widget.waitFor();
    await widget.locator('textarea, .monaco-editor').first().click();
    await page.keyboard.type('Use a product, not a sum.');
    await widget.getByRole('button', { name: 'Add Comment' }).click();
    await widget.getByText('Use a product, not a sum.').waitFor();
    await card.getByRole('button', { name: /^Send Feedback/ }).click();

    await chat
      .getByRole('article', { name: 'You' })
      .filter({ hasText: 'Feedback on your changes:' })
      .getByText(/feedback\.ts:2: Use a product, not a sum\./)
      .waitFor();
    const record = agents['Fixture Changes']!.recordFile;
    type Block = { type: string; resource?: { uri: string; text: string } };
    type Sent = { method?: string; params?: { prompt?: Block[] } };
    const prompts = () =>
      readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const parsed = JSON.parse(line) as Sent & { message?: Sent };
          return parsed.message ?? parsed;
        })
        .filter((m) => m.method === 'session/prompt');
    await waitFor(
      () =>
        prompts().some((m) =>
          m.params?.prompt?.some(
            (b) => b.type === 'resource' && b.resource?.uri.endsWith('feedback.ts#L2-L2') && b.resource.text.includes('export const b'),
          ),
        ),
      { what: 'the prompt with the commented lines as embedded context' },
    );
  });
});
