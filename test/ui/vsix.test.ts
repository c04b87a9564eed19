// The extension as users get it: the VSIX that `npm run package` builds (made here from a staging copy, so the other
// UI tests keep the working tree's dist/), installed into a fresh code-server with --install-extension, no
// extension under development. A chat from the palette, the Extensions view and the getting-started walkthrough.
import * as assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../lib/wait';
import { packageVsix, readVsixFile, type Vsix } from '../harness/lib/vsix';
import { EXTENSION_ID, fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const MAX_VSIX_BYTES = 1.5 * 1024 * 1024;
/** What a user needs, and nothing else: the manifest, the docs, the bundles and the media. */
const SHIPPED =
  /^(\[Content_Types\]\.xml|extension\.vsixmanifest|extension\/(package\.json|package\.nls\.json|readme\.md|changelog\.md|LICENSE\.txt|dist\/(extension\.js|core\.js|editor-tools-mcp\.js|mcp-stdio\.js|page-text\.js|webview\.js|webview\.css|codicon\.ttf)|media\/([\w/-]+\.(png|svg|md|css)|registry-snapshot\.json)))$/;
const WALKTHROUGH_STEPS = ['Pick an agent', 'Sign in to the agent', 'Start your first chat', 'Decide what the agent may do'];

describe('installed from the VSIX', function () {
  this.timeout(180_000);
  const work = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'vsix');
  const { settings } = fixtureAgents(work, { 'Fixture Echo': 'echo' });
  let vsix: Vsix;
  let workbench: Workbench;

  before(async () => {
    vsix = await packageVsix(repoRoot, join(repoRoot, 'test-output', 'vsix'));
    const started = Date.now();
    workbench = await openWorkbench(
      'vsix',
      { machine: { 'acp.agents': settings }, user: { 'acp.defaultAgent': 'Fixture Echo' } },
      { vsix: vsix.file },
    );
    process.stdout.write(
      `      (packaged in ${(vsix.ms / 1000).toFixed(1)} s; installed and the workbench up in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('is a VSIX under 1.5 MB holding only the manifest, the docs, the production bundles and the media', () => {
    assert.ok(vsix.bytes < MAX_VSIX_BYTES, `the VSIX is ${(vsix.bytes / 1024).toFixed(0)} KB`);
    const names = vsix.entries.map((e) => e.name);
    assert.deepEqual(
      names.filter((n) => !SHIPPED.test(n)),
      [],
      'files users do not need',
    );
    for (const needed of [
      'extension/dist/extension.js',
      'extension/dist/webview.js',
      'extension/dist/core.js',
      'extension/dist/editor-tools-mcp.js',
      'extension/dist/mcp-stdio.js',
      'extension/dist/page-text.js',
      'extension/media/icon.png',
      'extension/media/registry-snapshot.json',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
    ]) {
      assert.ok(names.includes(needed), `${needed} is in the VSIX`);
    }
    // The production build: no link to a source map (the maps are not shipped).
    const host = readVsixFile(vsix.file, 'extension/dist/extension.js').toString('utf8');
    assert.doesNotMatch(host, /sourceMappingURL/);
    // Every walkthrough page the manifest names is inside.
    const manifest = JSON.parse(readVsixFile(vsix.file, 'extension/package.json').toString('utf8')) as {
      contributes: { walkthroughs: { steps: { media: { markdown: string } }[] }[] };
    };
    for (const step of manifest.contributes.walkthroughs.flatMap((w) => w.steps))
      assert.ok(names.includes(`extension/${step.media.markdown}`), `${step.media.markdown} is in the VSIX`);
  });

  it('installs with --install-extension and answers a chat opened from the command palette', async () => {
    // Installed as a copy from the VSIX, not linked to the working tree.
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const installed = join(workbench.workDir, 'extensions', `${EXTENSION_ID}-${version}`);
    assert.equal(lstatSync(installed).isSymbolicLink(), false);
    // The editor tools' MCP SDKs, a bundle apart that the core loads on first use: it loads on its own from the VSIX.
    const mcp = require(join(installed, 'dist', 'editor-tools-mcp.js')) as Record<string, unknown>;
    for (const name of ['toolServer', 'httpTransport', 'stdioTransport', 'overAcpServer']) assert.equal(typeof mcp[name], 'function', name);

    // The agent chosen for new chats (acp.defaultAgent): New Chat opens it without asking.
    const chat = await workbench.sendInNewChat('hello from the VSIX');
    await chat.getByRole('log').getByText('You said: hello from the VSIX').waitFor();
    await chat.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('is listed in the Extensions view with its name, description and icon', async () => {
    await workbench.runCommand('Extensions: Show Installed Extensions');
    const row = workbench.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'ACP Client' }).first();
    await row.waitFor();
    await row.getByText('Chat with coding agents that speak the Agent Client Protocol', { exact: false }).waitFor();
    const icon = row.locator('img.icon');
    await icon.waitFor();
    const width = () =>
      icon.evaluate((element) => {
        const img = element as unknown as { complete: boolean; naturalWidth: number };
        return img.complete && img.naturalWidth;
      });
    assert.equal(await waitFor(width, { what: 'the icon to load' }), 128);
  });

  it('opens the getting-started walkthrough with its four steps; its New Chat button opens a chat and checks the step off', async () => {
    await workbench.runAndPick('Welcome: Open Walkthrough...', 'Get Started with ACP Client');
    const page = workbench.page;
    const details = page.locator('.gettingStartedSlideDetails');
    await details.getByText('Get Started with ACP Client').first().waitFor();
    for (const title of WALKTHROUGH_STEPS) await details.getByRole('button', { name: title }).waitFor();
    assert.equal(await details.locator('[data-step-id]').count(), WALKTHROUGH_STEPS.length);

    // The first chat, from the walkthrough's button: the chat opens, and the step is checked off.
    const step = details.getByRole('button', { name: 'Start your first chat' });
    await step.click();
    // The step's page, from media/walkthrough/ in the VSIX, beside it.
    await page
      .frameLocator('iframe.webview.ready >> nth=0')
      .frameLocator('#active-frame')
      .getByRole('heading', { name: 'Your first chat' })
      .waitFor();
    await details.getByRole('button', { name: 'New Chat' }).click();
    await workbench.chat().getByRole('textbox', { name: 'Message' }).waitFor();
    await page.locator('.gettingStartedSlideDetails [data-step-id$="firstChat"][aria-checked="true"]').waitFor();
  });
});
