// Never missing a chat that needs you, as a user sees it: a permission waiting puts a badge on the ACP container,
// "needs you" on the chat's row in the Sessions view and a mark on its tab; answering it clears all three.
import { join } from 'node:path';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const workRoot = process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui');

describe('attention UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const { settings } = fixtureAgents(join(workRoot, 'attention'), { 'Fixture Asks': 'permission' });

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
});
