// Worktree chats in the real workbench, with the keyboard alone, in a multi-root workspace whose first folder is a git
// repository and whose second is not: New Chat in Worktree on the second says why not and offers a plain chat; on the
// first, with the user's uncommitted work carried along, the agent changes a file in its worktree while the main
// checkout stays as it was, Apply Worktree Changes brings the change in beside the user's work, and the Discard
// Worktree it offers removes the worktree.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from '../lib/wait';
import { report, scan } from './lib/axe';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The focused element of the workbench's own document (not a webview's): its text and its role. */
function focused(page: Page): Promise<{ text: string; role: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return { text: el?.textContent?.trim() ?? '', role: el?.getAttribute('role') ?? null };
  });
}

/**
 * Presses the button `name` of the notification that says `text`, from the keyboard: Focus Notification Toast, then Tab
 * to the button (a few stops at most: the toast's own actions come first), then Enter.
 */
async function pressNotificationButton(workbench: Workbench, text: string, name: string): Promise<void> {
  const page = workbench.page;
  await page.locator('.notifications-toasts .notification-toast', { hasText: text }).waitFor({ timeout: 30_000 });
  await workbench.runCommand('Notifications: Focus Notification Toast');
  for (let stop = 0; (await focused(page)).text !== name; stop++) {
    if (stop >= 8) throw new Error(`Tab did not reach the notification's "${name}" button`);
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
}

/** Waits until the quick input titled `title` shows, then takes its default with Enter. */
async function enterOn(page: Page, title: string): Promise<void> {
  const question = page.locator('.quick-input-widget .quick-input-title', { hasText: title });
  await question.waitFor({ timeout: 30_000 });
  // An Enter that reaches the page before the quick input has the focus is lost, and the question stays: pressed
  // again only while this question still shows with the focus, so the next question is never answered by mistake.
  const widget = page.locator('.quick-input-widget', { has: page.locator('.quick-input-title', { hasText: title }) });
  // After a notification's button opened the question, the workbench gives the focus back to the window part that had
  // it once the toast has closed, which may be late; the question stays on focus out. A user clicks into it: a click
  // in its input box gives it the keyboard, and changes nothing else.
  await widget.locator('input').first().click();
  await widget.locator('input:focus').waitFor({ timeout: 5_000 });
  await page.keyboard.press('Enter');
  await question.waitFor({ state: 'hidden', timeout: 10_000 });
}

describe('worktree chats UI', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  const work = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'worktrees');
  const { settings } = fixtureAgents(work, { 'Fixture Changes': 'changes' });

  before(async () => {
    workbench = await openWorkbench(
      'worktrees',
      { machine: { 'acp.agents': settings }, user: { 'acp.defaultAgent': 'Fixture Changes', 'files.autoSave': 'off', 'acp.followAgent': false } },
      { secondFolder: true },
    );
    const main = workbench.workspace;
    git(main, 'init', '--quiet', '--initial-branch=main');
    git(main, 'config', 'user.email', 'ada@example.com');
    git(main, 'config', 'user.name', 'Ada');
    git(main, 'add', '--all');
    git(main, 'commit', '--quiet', '-m', 'the start');
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('goes from the command palette to applied changes and a discarded worktree, with the keyboard only', async () => {
    const page = workbench.page;
    const main = workbench.workspace;

    // The second folder is not in a repository: the command says so and offers a plain chat, which Enter opens.
    await workbench.runCommand('ACP: New Chat in Worktree…');
    await workbench.pick('second');
    await pressNotificationButton(workbench, 'is not in a git repository, so a worktree cannot be made', 'New Chat');
    await workbench.chat().getByRole('textbox', { name: 'Message' }).waitFor();
    assert.ok(!existsSync(`${main}.worktrees`), 'no worktree was made');
    await workbench.runCommand('View: Close All Editors');
    await page.locator('iframe.webview.ready').first().waitFor({ state: 'detached' });

    // The first folder is a repository, with the user's uncommitted work: Enter, Down and Enter (the base with the
    // uncommitted changes), Enter.
    writeFileSync(join(main, 'README.md'), '# Sample workspace\n\nThe user\u2019s own edit.\n');
    writeFileSync(join(main, 'draft.md'), 'a new file of the user\u2019s\n');
    const userWork = git(main, 'status', '--porcelain');
    await workbench.runCommand('ACP: New Chat in Worktree…');
    await workbench.pick('workspace');
    await enterOn(page, 'New Chat in Worktree (1/3): the agent');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'New Chat in Worktree (2/3): the base' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('ArrowDown');
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'with uncommitted changes' }).waitFor();
    await page.keyboard.press('Enter');
    await enterOn(page, 'New Chat in Worktree (3/3): the branch');
    const folder = `${main}.worktrees/acp-fixture-changes-1`;
    const chat = workbench.chat();
    await chat.getByRole('note', { name: `In the worktree ${folder}, on the branch acp/fixture-changes-1` }).waitFor({ timeout: 30_000 });
    assert.ok(existsSync(join(folder, 'src', 'hello.ts')), 'the worktree is checked out');
    assert.equal(readFileSync(join(folder, 'README.md'), 'utf8'), readFileSync(join(main, 'README.md'), 'utf8'), 'with the user\u2019s edit');
    assert.ok(existsSync(join(folder, 'draft.md')), 'and their new file');
    assert.equal(git(main, 'status', '--porcelain'), userWork, 'the main checkout keeps its uncommitted work');
    assert.equal(git(main, 'stash', 'list'), '', 'and its stash is untouched');

    // The composer has the focus: the message is typed, and Enter sends it.
    const message = chat.getByRole('textbox', { name: 'Message' });
    await waitFor(() => message.evaluate((el) => el === el.ownerDocument.activeElement), { what: 'the composer to have the focus' });
    await page.keyboard.type(JSON.stringify([{ op: 'disk', path: 'src/hello.ts', text: 'export const hello = "worktree";\n' }]));
    await page.keyboard.press('Enter');
    await chat.getByRole('region', { name: 'Changes of this turn' }).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(join(folder, 'src', 'hello.ts'), 'utf8'), 'export const hello = "worktree";\n', 'the agent worked in the worktree');
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "world";\n', 'the main checkout is as it was');
    const violations = await scan(chat);
    assert.equal(violations.length, 0, report('a worktree chat', violations));

    // The Sessions view has the chat under its worktree: the branch, the commits ahead and the lines changed.
    await workbench.runCommand('ACP: Focus on Sessions View');
    const tree = page.getByRole('tree', { name: 'Sessions' });
    await tree
      .getByRole('treeitem')
      .filter({ hasText: 'acp/fixture-changes-1' })
      .filter({ hasText: /0 ahead · \+\d+ −\d+/ })
      .waitFor({ timeout: 30_000 });
    await tree.getByRole('treeitem', { level: 3 }).filter({ hasText: 'open' }).first().waitFor();

    // Apply Worktree Changes: the agent's change is in the main checkout, uncommitted, beside the user's own work
    // (which the worktree had too, so nothing asks); Discard Worktree is offered.
    await workbench.runCommand('ACP: Apply Worktree Changes');
    await waitFor(() => readFileSync(join(main, 'src', 'hello.ts'), 'utf8') === 'export const hello = "worktree";\n', {
      what: 'the change to be applied to the main checkout',
    });
    assert.deepEqual(
      git(main, 'status', '--porcelain')
        .split('\n')
        .map((l) => l.trim()),
      ['M README.md', 'M src/hello.ts', '?? draft.md'],
      'uncommitted changes, nothing committed',
    );
    assert.match(readFileSync(join(main, 'README.md'), 'utf8'), /The user\u2019s own edit/);
    assert.equal(git(main, 'stash', 'list'), '', 'nothing was stashed: the user\u2019s work was already in the worktree');
    await chat.getByText('are in the main checkout now. Discard Worktree (in this chat’s menu) removes the worktree.', { exact: false }).waitFor();
    await pressNotificationButton(workbench, 'are in the main checkout now. Discard the worktree?', 'Discard Worktree');
    // What would be lost is listed under the question: the worktree's uncommitted files.
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Discard the worktree of acp/fixture-changes-1 and its branch?' })
      .waitFor({ timeout: 30_000 });
    for (const lost of ['uncommitted src/hello.ts', 'uncommitted draft.md']) {
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: lost }).waitFor();
    }
    await enterOn(page, 'Discard the worktree of acp/fixture-changes-1 and its branch?');
    await waitFor(() => !existsSync(folder) && git(main, 'branch', '--list', 'acp/fixture-changes-1') === '', {
      what: 'the worktree and its branch to be removed',
    });
    await page.locator('iframe.webview.ready').first().waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "worktree";\n', 'the applied change stays');
  });

  it('cleans up, after a reload, the worktree of a chat that was closed', async () => {
    const page = workbench.page;
    const main = workbench.workspace;
    await workbench.runCommand('ACP: New Chat in Worktree…');
    await workbench.pick('workspace');
    await enterOn(page, 'New Chat in Worktree (1/3): the agent');
    await enterOn(page, 'New Chat in Worktree (2/3): the base');
    await enterOn(page, 'New Chat in Worktree (3/3): the branch');
    const folder = `${main}.worktrees/acp-fixture-changes-1`;
    await workbench
      .chat()
      .getByRole('note', { name: `In the worktree ${folder}, on the branch acp/fixture-changes-1` })
      .waitFor({ timeout: 30_000 });
    await workbench.runCommand('View: Close All Editors');
    await page.locator('iframe.webview.ready').first().waitFor({ state: 'detached' });

    // The window reloads: the worktree made for the closed chat is still known, and Clean Up removes it.
    await workbench.runCommand('Developer: Reload Window');
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    await workbench.runCommand('ACP: Clean Up Worktrees…');
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'Remove All 1' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await waitFor(() => !existsSync(folder) && git(main, 'branch', '--list', 'acp/fixture-changes-1') === '', {
      timeoutMs: 30_000,
      what: 'the worktree and its branch (with nothing of its own) to be removed',
    });
  });
});
