// While the agent works, as a user sees it: a permission waiting puts a badge on the ACP container, "needs you" on
// the chat's row in the Sessions view and a mark on its tab, and answering it clears all three; a message written
// during a turn is queued under it (Enter, or the send button's menu) and goes when the turn ends; the agent's
// questions are a form answered from the keyboard, or a url shown whole and never fetched; a subagent is a card
// with its own traffic and its own permission request.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const workRoot = process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui');

describe('while the agent works UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const { settings } = fixtureAgents(join(workRoot, 'attention'), {
    'Fixture Asks': 'permission',
    'Fixture Slow': 'slow',
    'Fixture Form': 'elicit-form',
    'Fixture Url': 'elicit-url',
    'Fixture Parent': 'subagents',
  });

  before(async () => {
    workbench = await openWorkbench('attention', { machine: { 'acp.agents': settings } });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('badges the ACP container, marks the tab and says "needs you" in the Sessions view while a permission waits', async () => {
    const page = workbench.page;
    const { chat } = await workbench.chatWith('Fixture Asks', 'may I?');
    const container = page.locator('.activitybar').getByRole('tab', { name: /ACP/ });
    await container.locator('.badge-content', { hasText: '1' }).waitFor();
    await page.locator('.tab', { hasText: '● (1) Fixture Asks' }).waitFor();
    if (!(await page.getByRole('tree', { name: 'Sessions' }).isVisible())) await container.click();
    const rows = page.getByRole('tree', { name: 'Sessions' }).getByRole('treeitem');
    await rows.filter({ hasText: 'needs you' }).waitFor();

    await chat
      .getByRole('group', { name: /^Permission/ })
      .getByRole('button', { name: 'Allow', exact: true })
      .click();
    await chat.getByRole('log').getByText('outcome:allow').waitFor();
    await container.locator('.badge-content', { hasText: /\d/ }).waitFor({ state: 'detached' });
    await rows.filter({ hasText: 'needs you' }).waitFor({ state: 'detached' });
    await page.locator('.tab', { hasText: '● ' }).waitFor({ state: 'detached' });
  });

  it('queues a message written during a turn, shows it under the turn, and sends it when the turn ends', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Slow', 'think about it');
    await chat.getByRole('button', { name: 'Stop' }).waitFor();
    await message.fill('and then this');
    await message.press('Enter');
    const queue = chat.getByRole('region', { name: 'Queued messages' });
    await queue.getByText('and then this').waitFor();
    await queue.getByText('Queued').waitFor();
    // The send button's menu offers the three ways, from the keyboard.
    await chat.getByRole('button', { name: 'More ways to send' }).focus();
    await page.keyboard.press('Enter');
    const menu = chat.getByRole('menu', { name: 'Send while the agent works' });
    for (const name of ['Add to Queue', 'Steer with Message', 'Stop and Send']) await menu.getByRole('menuitem', { name }).waitFor();
    await workbench.screenshot('queued-message');
    await page.keyboard.press('Escape');
    // The slow agent's turn ends only when stopped: the queue then waits for the user's word.
    await chat.getByRole('button', { name: 'Stop' }).click();
    await chat.getByRole('group', { name: 'Send the queued messages?' }).getByRole('button', { name: 'Send' }).click();
    await chat.getByRole('log').getByText('and then this').waitFor();
    await queue.waitFor({ state: 'detached' });
  });

  it('answers a question form from the keyboard, with the messages of invalid fields before Submit', async () => {
    const page = workbench.page;
    const { chat } = await workbench.chatWith('Fixture Form', 'set it up');
    const form = chat.getByRole('group', { name: 'Fixture Form asks: How should the project be set up?' });
    await form.getByRole('button', { name: 'Submit' }).waitFor();
    await form.getByRole('textbox', { name: 'Name', exact: true }).focus();
    await page.keyboard.type('x');
    await page.keyboard.press('Enter'); // submits the form
    await form.getByText('Enter at least 2 characters.').waitFor();
    assert.equal(await form.getByText('This is required.').count(), 2, 'Email and Count are required');
    await workbench.screenshot('question-form');
    await page.keyboard.type('yz');
    await page.keyboard.press('Tab');
    await page.keyboard.type('me@example.com');
    await form.getByRole('spinbutton', { name: 'Count', exact: true }).focus();
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await chat
      .getByRole('log')
      .getByText('answer:{"action":"accept","content":{"name":"xyz","email":"me@example.com","count":3,"strict":true}}')
      .waitFor();
    await form.waitFor({ state: 'detached' });
  });

  it('shows a url question whole, with its host emphasized, and Cancel answers it', async () => {
    const { chat } = await workbench.chatWith('Fixture Url', 'sign me in');
    const card = chat.getByRole('group', { name: 'Fixture Url asks: Sign in to the example service' });
    await card.getByText('http://localhost:9/authorize?client=acp').waitFor();
    assert.equal(await card.locator('strong').innerText(), 'localhost');
    await card.getByRole('button', { name: 'Open' }).waitFor();
    await card.getByRole('button', { name: 'Cancel' }).click();
    await chat.getByRole('log').getByText('answer:{"action":"cancel"}').waitFor();
  });

  it('keeps queued messages across a window reload, waiting for the user\u2019s Send', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Slow', 'take your time');
    await chat.getByRole('button', { name: 'Stop' }).waitFor();
    await message.fill('for after the reload');
    await message.press('Enter');
    await chat.getByRole('region', { name: 'Queued messages' }).getByText('for after the reload').waitFor();
    await workbench.runCommand('Developer: Reload Window');
    await workbench.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    const restored = workbench.chat();
    await restored.getByRole('region', { name: 'Queued messages' }).getByText('for after the reload').waitFor({ timeout: 60_000 });
    await restored.getByRole('group', { name: 'Send the queued messages?' }).getByRole('button', { name: 'Send' }).click();
    await restored.getByRole('log').getByRole('article', { name: 'You' }).getByText('for after the reload').waitFor();
  });

  it('shows a subagent as a card with its own messages, and its permission request labelled with its name', async () => {
    const { chat } = await workbench.chatWith('Fixture Parent', 'research it');
    const card = chat.locator('details.subagent', { hasText: 'Researcher' });
    await card.getByText('Find the docs').waitFor();
    await card.getByText('Reading the docs').waitFor();
    const question = card.getByRole('group', { name: 'Permission: Read docs/index.md' });
    await question.getByText('Fixture Parent › Researcher asks permission', { exact: false }).waitFor();
    // It reaches the user like the chat's own requests: a notification, labelled with the subagent's name.
    await workbench.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'Fixture Parent › Researcher asks permission — Read: Read docs/index.md' })
      .waitFor();
    await workbench.screenshot('subagent-card');
    await question.getByRole('button', { name: 'Allow', exact: true }).click();
    await card.getByText('(outcome:allow)', { exact: false }).waitFor();
    await chat.getByRole('log').getByText('Researcher finished').waitFor();
  });
});
