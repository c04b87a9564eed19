// The Sessions view and the history in the real workbench, in a multi-root workspace: agents with their open chats
// and recent sessions, a history item that reopens its chat, Open Previous Session from the agent's session/list,
// a reload with an agent that cannot load sessions (the transcript kept on this computer), and the second folder
// reaching agents that accept more folders.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

describe('sessions UI', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  const work = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'sessions');
  const { settings, agents } = fixtureAgents(work, {
    'Fixture Titled': { scenario: 'titled', env: { ACP_FIXTURE_STATE_DIR: join(work, 'titled-state') } },
    'Fixture Forgets': {
      scenario: 'echo',
      env: { ACP_FIXTURE_STATE_DIR: join(work, 'forgets-state'), ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) },
    },
    'Fixture Account': { scenario: 'echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ auth: { status: {} } }) } },
    'Fixture Limits': 'limits',
    'Fixture Wide': {
      scenario: 'echo',
      env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ sessionCapabilities: { additionalDirectories: {} } }) },
    },
  });

  before(async () => {
    workbench = await openWorkbench('sessions', { machine: { 'acp.agents': settings }, user: { 'acp.followAgent': false } }, { secondFolder: true });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  /** The Sessions view, opened from its activity-bar container. */
  async function sessionsView(): Promise<Locator> {
    const tree = workbench.page.getByRole('tree', { name: 'Sessions' });
    if (!(await tree.isVisible())) await workbench.page.locator('.activitybar').getByRole('tab', { name: 'ACP' }).click();
    await tree.waitFor();
    return tree;
  }

  const row = (tree: Locator, text: string) => tree.getByRole('treeitem').filter({ hasText: text });

  it('shows each agent, its open chat by title, and the chat in its history once closed; clicking it there reopens the chat, which the view brings forward and closes', async () => {
    const tree = await sessionsView();
    for (const name of ['Fixture Titled', 'Fixture Forgets', 'Fixture Wide']) await row(tree, name).first().waitFor();
    await row(tree, 'Fixture Titled').filter({ hasText: 'not running' }).waitFor();

    const { chat } = await workbench.chatWith('Fixture Titled', 'apples');
    await chat.getByRole('log').getByText('You said: apples').waitFor();
    await row(tree, 'About apples').filter({ hasText: 'open' }).waitFor();
    await row(tree, 'Fixture Titled').filter({ hasText: 'running' }).filter({ hasNotText: 'not running' }).waitFor();

    await workbench.runCommand('View: Close All Editors');
    await workbench.page.locator('iframe.webview.ready').waitFor({ state: 'detached' });
    const history = row(tree, 'About apples');
    await history.filter({ hasText: 'now' }).waitFor();
    await row(tree, 'Fixture Titled').filter({ hasText: 'not running' }).waitFor();

    await history.click();
    const reopened = workbench.chat();
    await reopened.getByRole('log').getByText('You said: apples').waitFor({ timeout: 30_000 });
    await reopened.getByRole('article', { name: 'You' }).getByText('apples').waitFor();
    const open = row(tree, 'About apples').filter({ hasText: 'open' });
    await open.waitFor();
    await workbench.screenshot('sessions-view');

    // Clicking an open chat brings it forward; its Close action closes it, and it goes back to the history.
    await workbench.runCommand('File: New Untitled Text File');
    await workbench.page.locator('.tab.active', { hasText: 'Untitled' }).waitFor();
    await open.click();
    await workbench.page.locator('.tab.active', { hasText: 'About apples' }).waitFor();
    await open.hover();
    await open.getByRole('button', { name: 'Close Chat' }).click();
    await workbench.page.locator('.tab', { hasText: 'About apples' }).waitFor({ state: 'detached' });
    await row(tree, 'About apples').filter({ hasNotText: 'open' }).waitFor();
  });

  it('lists the agent\u2019s earlier sessions with Open Previous Session and opens the one chosen', async () => {
    await workbench.runAndPick('ACP: Open Previous Session…', 'Fixture Titled');
    const items = workbench.page.locator('.quick-input-widget .monaco-list-row');
    await items.filter({ hasText: 'About apples' }).waitFor();
    await items.filter({ hasText: 'An earlier conversation' }).waitFor();
    await workbench.pick('An earlier conversation');
    const chat = workbench.chat();
    await chat.getByRole('log').getByText('A protocol between editors and agents.').waitFor({ timeout: 30_000 });
    await chat.getByRole('article', { name: 'You' }).getByText('What is ACP?').waitFor();
  });

  it('shows the earlier messages kept on this computer after a reload, when the agent cannot load sessions', async () => {
    const { chat } = await workbench.chatWith('Fixture Forgets', 'hello there');
    await chat.getByRole('log').getByText('You said: hello there').waitFor();
    await workbench.runCommand('Developer: Reload Window');
    await workbench.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    const restored = workbench.chat();
    await restored
      .getByText('Fixture Forgets could not reopen this conversation, so this is a new session', { exact: false })
      .waitFor({ timeout: 60_000 });
    const log = restored.getByRole('log');
    await log.getByText('You said: hello there').waitFor();
    await log.getByRole('article', { name: 'You' }).getByText('hello there').waitFor();
    await log.getByRole('separator').getByText('Earlier messages, kept on this computer').waitFor();
    const box = restored.getByRole('textbox', { name: 'Message' });
    await box.fill('again');
    await box.press('Enter');
    await log.getByText('You said: again').waitFor();
    // The earlier messages stay above the divider, the new session's below it.
    const text = await log.innerText();
    const order = ['You said: hello there', 'Earlier messages, kept on this computer', 'You said: again'].map((part) => text.indexOf(part));
    assert.ok(
      order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] ?? 0))),
      `in order: ${order.join(', ')}`,
    );
  });

  it('gives agents that accept more folders the workspace\u2019s other folder', async () => {
    const { chat } = await workbench.chatWith('Fixture Wide', 'hi');
    await chat.getByRole('log').getByText('You said: hi').waitFor();
    const record = agents['Fixture Wide']!.recordFile;
    const sessionNew = await waitFor(() =>
      readFileSync(record, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> })
        .find((m) => m.method === 'session/new'),
    );
    assert.equal(sessionNew.params?.['cwd'], workbench.workspace);
    assert.deepEqual(sessionNew.params?.['additionalDirectories'], [workbench.secondFolder]);
  });
  it('shows the account a running agent is signed in with: in the Sessions view, the status bar and Select Agent', async () => {
    const tree = await sessionsView();
    const { chat } = await workbench.chatWith('Fixture Account', 'who am I');
    await chat.getByRole('log').getByText('You said: who am I').waitFor();
    const account = 'Signed in as ada@example.com (Fixture Pro, Analytical Engines)';
    await row(tree, 'Fixture Account').filter({ hasText: account }).waitFor();
    await workbench.page.locator(`.statusbar-item[aria-label*="${account}"]`).waitFor();
    const agentRow = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Fixture Account' }).filter({ hasText: account });
    await workbench.runCommand('ACP: Select Agent…');
    await agentRow.waitFor({ timeout: 15_000 });
    await workbench.page.keyboard.press('Escape');
  });

  it('moves a status bar meter with the agent’s quota, warns once at 90%, and says when a refused turn’s limit resets', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Limits');
    // Before any message: the account's limits, as the agent answered quota/read when it started.
    await page.locator('.statusbar-item[aria-label^="Fixture Limits has used 17% of its weekly limit; it resets"]').waitFor();
    await message.fill('quota 42');
    await message.press('Enter');
    await chat.getByRole('log').getByText('quota:42').waitFor();
    const meter = (used: number) => page.locator(`.statusbar-item[aria-label^="Fixture Limits has used ${used}% of its 5-hour limit; it resets"]`);
    await meter(42).waitFor();
    await page.locator('.statusbar-item', { hasText: 'Fixture Limits: 42% of 5-hour' }).waitFor();
    await message.fill('quota 95');
    await message.press('Enter');
    await meter(95).waitFor();
    const warning = page.locator('.notification-toast', { hasText: 'Fixture Limits has used 95% of its 5-hour limit' });
    await warning.waitFor();
    // Still past the mark in the same window: the meter moves, and nothing warns again.
    await message.fill('quota 96');
    await message.press('Enter');
    await meter(96).waitFor();
    await message.fill('refuse');
    await message.press('Enter');
    const failed = chat.getByRole('alert', { name: 'The turn failed' });
    await failed.getByText(/Your 5-hour usage limit is used up\. It resets \w+/).waitFor();
    await failed.getByRole('button', { name: 'Switch Model' }).waitFor();
    await failed.getByRole('button', { name: 'Retry' }).waitFor();
    assert.equal(
      await page.locator('.notification-toast', { hasText: /Fixture Limits has used 9\d% of its 5-hour limit/ }).count(),
      1,
      'warned once',
    );
  });

  it('archives a chat out of the Sessions view; Show Archived lists it again, marked', async () => {
    const tree = await sessionsView();
    const { chat } = await workbench.chatWith('Fixture Titled', 'pears');
    await chat.getByRole('log').getByText('You said: pears').waitFor();
    await row(tree, 'About pears').filter({ hasText: 'open' }).waitFor();
    await workbench.runCommand('ACP: Archive Chat');
    await workbench.page.locator('iframe.webview.ready').waitFor({ state: 'detached' });
    await row(tree, 'About pears').waitFor({ state: 'detached' });
    const showMenu = async (item: string) => {
      await workbench.page
        .locator('.sidebar')
        .getByRole('button', { name: /More Actions/ })
        .first()
        .click();
      // The workbench's menus act on mouse-up after a hover, or on Enter for the focused item.
      await workbench.page.getByRole('menuitem', { name: item }).hover();
      await workbench.page.keyboard.press('Enter');
    };
    await showMenu('Show Archived Chats');
    const archived = row(tree, 'About pears').filter({ hasText: 'archived' });
    await archived.waitFor();
    await workbench.screenshot('sessions-archived');
    await archived.click({ button: 'right' });
    await workbench.page.getByRole('menuitem', { name: 'Unarchive Chat…' }).hover();
    await workbench.page.keyboard.press('Enter');
    await row(tree, 'About pears').filter({ hasNotText: 'archived' }).waitFor();
    await showMenu('Hide Archived Chats');
  });
});
