// Agents from the ACP Registry as a user meets them: Add Agent from Registry lists a registry served on loopback
// (how each agent would run here, which cannot), a pick installs one with a progress notification, and a New Chat
// with it answers; a hostile archive is refused with a sentence that names its member.
import * as assert from 'node:assert/strict';
import { platformKey } from '../../src/registry/format';
import { launcher, tgz } from '../lib/archives';
import { RegistryServer } from '../lib/registryServer';
import { waitFor } from '../lib/wait';
import { FIXTURE_AGENT, openWorkbench, type Workbench } from './lib/workbench';

const PLATFORM = platformKey(process.platform, process.arch);

describe('registry UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  let server: RegistryServer;
  let agents: { id: string; name: string; version: string; description: string; website?: string; distribution: unknown }[];
  const env = { ACP_FIXTURE_NODE: process.execPath, ACP_FIXTURE_AGENT_JS: FIXTURE_AGENT, ACP_FIXTURE_MAX_LIFETIME_MS: '300000' };
  const binary = (path: string) => ({
    [String(PLATFORM)]: { archive: server.url(path), cmd: './fixture-agent/bin/fixture-agent', args: ['--scenario', 'echo'], env },
  });

  before(async () => {
    if (!PLATFORM) throw new Error(`no registry target for ${process.platform}-${process.arch}`);
    server = await RegistryServer.start();
    // Slow enough that the progress notification is on screen while it downloads.
    server.route('/fixture-agent-1.4.0.tar.gz', { body: tgz(launcher()), chunkDelayMs: 300, chunkBytes: 64 });
    server.route('/hostile-0.1.0.tar.gz', { body: tgz([...launcher(), { name: '../escaped.txt', content: 'x' }]) });
    agents = [
      {
        id: 'fixture-agent',
        name: 'Fixture Registry Agent',
        version: '1.4.0',
        description: 'The test suite’s scripted agent, as a binary download',
        website: 'https://agents.example.com/fixture',
        distribution: { binary: binary('/fixture-agent-1.4.0.tar.gz') },
      },
      {
        id: 'hostile',
        name: 'Hostile Archive',
        version: '0.1.0',
        description: 'An archive with a member that climbs out of its folder',
        distribution: { binary: binary('/hostile-0.1.0.tar.gz') },
      },
      {
        id: 'elsewhere',
        name: 'Elsewhere Only',
        version: '2.0.0',
        description: 'Built for one platform that is not this one',
        distribution: {
          binary: { [PLATFORM === 'windows-aarch64' ? 'darwin-x86_64' : 'windows-aarch64']: { archive: server.url('/none.zip'), cmd: './x.exe' } },
        },
      },
      {
        id: 'npx-sample',
        name: 'Npx Sample',
        version: '0.9.1',
        description: 'Runs with npx, pinned to 0.9.1',
        distribution: { npx: { package: '@acp-test/npx-sample', args: ['--acp'] } },
      },
    ];
    server.route('/registry.json', { body: JSON.stringify({ version: '1.0.0', agents, extensions: [] }), etag: true });
    workbench = await openWorkbench('registry', { machine: { 'acp.registry.url': server.url('/registry.json') } });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
    await server?.close();
  });

  it('installs an agent from the registry with a progress notification, and a new chat with it answers', async () => {
    const page = workbench.page;
    await workbench.runCommand('ACP: Add Agent from Registry…');
    const row = (name: string) => page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first();
    await row('Fixture Registry Agent').waitFor();
    assert.match(await row('Fixture Registry Agent').innerText(), new RegExp(`1\\.4\\.0 · binary for ${PLATFORM}`));
    assert.match(await row('Npx Sample').innerText(), /0\.9\.1 · npx/);
    assert.match(await row('Elsewhere Only').innerText(), /Cannot run here: it has no build for/);
    // The registry's website is a button of its row, named for where it goes; an entry without one has none.
    await row('Fixture Registry Agent').hover();
    await row('Fixture Registry Agent').getByRole('button', { name: 'Open https://agents.example.com/fixture' }).waitFor();
    assert.equal(
      await row('Npx Sample')
        .getByRole('button', { name: /^Open https/ })
        .count(),
      0,
    );
    await workbench.pick('Fixture Registry Agent');

    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Installing Fixture Registry Agent 1.4.0' }).waitFor();
    const done = page.locator('.notifications-toasts .notification-toast', { hasText: 'Fixture Registry Agent 1.4.0 is installed.' });
    await done.waitFor({ timeout: 30_000 });
    await done.getByRole('button', { name: 'New Chat' }).click();
    const chat = workbench.chat();
    const message = chat.getByRole('textbox', { name: 'Message' });
    await message.waitFor();
    await message.fill('hello from the registry');
    await message.press('Enter');
    await chat.getByRole('article', { name: 'Agent' }).getByText('You said: hello from the registry').waitFor({ timeout: 30_000 });

    await chat.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
    // Listed again, it is marked as installed: the README's picture.
    await workbench.runCommand('ACP: Add Agent from Registry…');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Installed' }).first().waitFor({ timeout: 15_000 });
    await workbench.screenshot('add-agent-from-registry');
    await page.keyboard.press('Escape');
  });

  it('shows an update in the Sessions view with a badge on its container, and Update Agent there installs it', async () => {
    const page = workbench.page;
    server.route('/fixture-agent-1.5.0.tar.gz', { body: tgz(launcher()) });
    server.route('/registry.json', {
      body: JSON.stringify({
        version: '1.0.0',
        agents: [{ ...agents[0], version: '1.5.0', distribution: { binary: binary('/fixture-agent-1.5.0.tar.gz') } }, ...agents.slice(1)],
        extensions: [],
      }),
      etag: true,
    });
    // Reading the list (as the daily check does) is what finds the update.
    await workbench.runCommand('ACP: Add Agent from Registry…');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Installed 1.4.0: update to 1.5.0 available' }).waitFor();
    await page.keyboard.press('Escape');

    const container = page.locator('.activitybar').getByRole('tab', { name: /ACP/ });
    await container.locator('.badge-content', { hasText: '1' }).waitFor();
    const rows = page.getByRole('tree', { name: 'Sessions' }).getByRole('treeitem').filter({ hasText: 'Fixture Registry Agent' });
    const row = rows.filter({ hasText: '1.5.0 available' });
    // From the keyboard: into the view, to its first row (the agent; a click could land on the session under it as the
    // view fills in, and open it), then the context menu key.
    await workbench.runCommand('ACP: Focus on Sessions View');
    await row.waitFor();
    const tree = page.getByRole('tree', { name: 'Sessions' });
    await waitFor(() => tree.evaluate((el) => el.contains(el.ownerDocument.activeElement)), { what: 'the Sessions view to have the keyboard' });
    await page.keyboard.press('Home');
    await row.and(page.locator('.monaco-list-row.focused')).waitFor();
    await page.keyboard.press('Shift+F10');
    const update = page.getByRole('menuitem', { name: 'Update Agent…' });
    await update.waitFor({ timeout: 10_000 });
    // The workbench's menus act on mouse-up after a hover, or on Enter for the focused item.
    await update.hover();
    await page.keyboard.press('Enter');
    await page
      .locator('.notifications-toasts .notification-toast', { hasText: 'Fixture Registry Agent is updated to 1.5.0.' })
      .waitFor({ timeout: 30_000 });
    await row.waitFor({ state: 'detached' });
    await rows.first().waitFor();
    await container.locator('.badge-content', { hasText: /\d/ }).waitFor({ state: 'detached' });
  });

  it('refuses an archive whose member climbs out of its folder, and says which', async () => {
    const page = workbench.page;
    await workbench.runAndPick('ACP: Add Agent from Registry…', 'Hostile Archive');
    await workbench.notification(
      'Hostile Archive 0.1.0 was not installed. The archive was refused: its member "../escaped.txt" climbs out of the folder with "..".',
    );
    await page.keyboard.press('Escape'); // the notification centre, if it was opened
    await workbench.runCommand('ACP: New Chat');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Fixture Registry Agent' }).first().waitFor();
    assert.equal(
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Hostile Archive' }).count(),
      0,
      'the refused agent is not listed',
    );
    await page.keyboard.press('Escape');
  });
});
