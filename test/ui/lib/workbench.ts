// A real workbench for UI tests: code-server with the extension installed from the working tree (a symlink in a
// fresh extensions folder) or from a VSIX (code-server's --install-extension), a sample workspace, and headless
// Chromium driven by playwright-core. On a failed test it saves a screenshot, the browser console and the server's
// logs under test-output/ui/.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { launchBrowser } from '../../harness/lib/browser';
import { makeWorkspace } from '../../harness/lib/integration';
import { startCodeServer, type CodeServer } from '../../harness/lib/server';
import { ensureToolchain, type Toolchain } from '../../harness/lib/setup';
import { installVsix } from '../../harness/lib/vsix';

export const repoRoot = resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
export const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

/** out/test/ui/*.test.js → out/test/fixtures/agent.js */
export const FIXTURE_AGENT = join(repoRoot, 'out', 'test', 'fixtures', 'agent.js');

export interface FixtureAgentEntry {
  readonly scenario: string;
  readonly recordFile: string;
}

export interface Workbench {
  readonly page: Page;
  readonly server: CodeServer;
  readonly workspace: string;
  /** The second folder of a multi-root workspace (`openWorkbench`'s `secondFolder`). */
  readonly secondFolder?: string;
  readonly workDir: string;
  /** The chat webview's document; with several chats on screen, the one at `index` in the order they opened. */
  chat(index?: number): FrameLocator;
  /** Runs a command from the palette by its title, like "ACP: New Chat". */
  runCommand(title: string): Promise<void>;
  /** Opens a new chat and sends `text` from its composer; returns the chat. */
  sendInNewChat(text: string): Promise<FrameLocator>;
  /** "ACP: New Chat" with `agent` picked in the quick pick, and `text` sent when given; resolves once "Message" is there. */
  chatWith(agent: string, text?: string): Promise<{ chat: FrameLocator; message: Locator }>;
  /** After a test: its screenshot and logs when it failed, then every editor (and chat, and agent) closed. */
  cleanUp(test: { state?: string; fullTitle(): string } | undefined): Promise<void>;
  /**
   * Hides the secondary side bar and waits until it is hidden. A chat that has just loaded takes the focus, which
   * closes the palette under the typing; the command is then run again (three times at most).
   */
  hideSideBar(): Promise<void>;
  /** Picks the quick-pick row with this label; in a multi-select list (`check`), checks it. */
  pick(label: string, options?: { check?: boolean; timeout?: number }): Promise<void>;
  /**
   * Runs a command that opens a quick pick, and picks `label` in it. The palette gives the focus back to the chat as it
   * closes, and when that lands after the command's pick has opened, the pick closes (nothing is chosen, so nothing
   * happened): the command is then run again, three times at most.
   */
  runAndPick(title: string, label: string): Promise<void>;
  /** Saves the window as test-output/ui/screenshots/<name>.png (`npm run screenshots` copies some into docs/images). */
  screenshot(name: string): Promise<void>;
  /** Saves a screenshot, the browser console and the server logs for a failed test. */
  saveFailure(testTitle: string): Promise<string>;
  /**
   * The notification with `text`, as a toast or, when the workbench put it straight into the notification centre
   * (it does so now and then under load), there: the user is told either way, and its buttons work in both.
   */
  notification(text: string): Promise<Locator>;
  close(): Promise<void>;
}

async function toolchain(): Promise<Toolchain> {
  const fromHarness = process.env['ACP_TOOLCHAIN'];
  return fromHarness ? (JSON.parse(fromHarness) as Toolchain) : ensureToolchain({ browser: true });
}

/**
 * The `acp.agents` value for fixture agents keyed by display name: a scenario, or a scenario with more environment.
 * Each records what it receives.
 */
export function fixtureAgents(
  workDir: string,
  agents: Record<string, string | { scenario: string; env: Record<string, string> }>,
): { settings: Record<string, unknown>; agents: Record<string, FixtureAgentEntry> } {
  const entries: Record<string, FixtureAgentEntry> = {};
  const settings: Record<string, unknown> = {};
  for (const [name, agent] of Object.entries(agents)) {
    const { scenario, env } = typeof agent === 'string' ? { scenario: agent, env: {} } : agent;
    const recordFile = join(workDir, `record-${name.replace(/\W+/g, '-')}.jsonl`);
    entries[name] = { scenario, recordFile };
    settings[name] = {
      command: process.execPath,
      args: [FIXTURE_AGENT, '--scenario', scenario],
      env: { ACP_FIXTURE_RECORD: recordFile, ACP_FIXTURE_RELEASE: `${recordFile}.release`, ACP_FIXTURE_MAX_LIFETIME_MS: '300000', ...env },
    };
  }
  return { settings, agents: entries };
}

export async function openWorkbench(
  name: string,
  settings: { user?: Record<string, unknown>; machine?: Record<string, unknown>; workspaceTrust?: boolean },
  /** `vsix`: install these packages (the extension's among them) instead of linking the working tree; `secondFolder`: a multi-root workspace. */
  options: { vsix?: string | readonly string[]; secondFolder?: boolean } = {},
): Promise<Workbench> {
  const tools = await toolchain();
  const workDir = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), name);
  const outputDir = process.env['ACP_TEST_OUTPUT'] ?? join(repoRoot, 'test-output', 'ui');
  rmSync(workDir, { recursive: true, force: true }); // records and profiles of an earlier run must not leak in
  const workspace = makeWorkspace(join(workDir, 'workspace'));
  // A multi-root workspace: the sample folder first, then a second one.
  const secondFolder = options.secondFolder ? makeWorkspace(join(workDir, 'second'), { 'notes.md': '# Second folder\n' }) : undefined;
  const workspaceFile = join(workDir, 'acp.code-workspace');
  if (secondFolder) writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: workspace }, { path: secondFolder }] }));
  const extensionsDir = join(workDir, 'extensions');
  rmSync(extensionsDir, { recursive: true, force: true });
  mkdirSync(extensionsDir, { recursive: true });
  if (options.vsix) await installVsix(tools, { vsix: options.vsix, extensionsDir, dataDir: join(workDir, 'server') });
  // BENCH_EXTENSION: another checkout's build in place of this one's (a benchmark's baseline, measured side by side).
  else symlinkSync(process.env['BENCH_EXTENSION'] ?? repoRoot, join(extensionsDir, `${EXTENSION_ID}-${manifest.version}`), 'dir');

  const server = await startCodeServer({
    toolchain: tools,
    dataDir: join(workDir, 'server'),
    extensionsDir,
    settings: settings.user ?? {},
    machineSettings: settings.machine,
    workspaceTrust: settings.workspaceTrust,
    // The work folder is inside this project's checkout: git stops looking for a repository there, so the sample
    // folders are outside git until a test makes one a repository of its own.
    env: { GIT_CEILING_DIRECTORIES: workDir },
  });
  let browser: BrowserContext | undefined;
  try {
    browser = await launchBrowser(tools.chromium, join(workDir, 'browser'));
    const page = browser.pages()[0] ?? (await browser.newPage());
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(`${message.type()} ${message.text()}`));
    page.on('pageerror', (error) => consoleLines.push(`pageerror ${error.message}`));
    await page.goto(server.workbenchUrl(secondFolder ? workspaceFile : workspace));
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 });

    const opened = browser;
    const workbench: Workbench = {
      page,
      server,
      workspace,
      ...(secondFolder ? { secondFolder } : {}),
      workDir,
      chat(index) {
        const frames = page.frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`);
        return (index === undefined ? frames : frames.nth(index)).frameLocator('#active-frame');
      },
      async runCommand(title) {
        // Right after start the extension host may still be registering contributions, and the palette lists
        // only what exists when it opens: reopen it until the command is there, within a bound.
        const input = page.locator('.quick-input-widget .quick-input-box input');
        // The row of this command: the one whose label is exactly the title when there is one ("View: Close All
        // Editors" must not take "View: Close All Editors in Group", which leaves the chat's group open), else the
        // first that contains it (a title a test shortens, as "File: Save All" for "File: Save All Files").
        const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
        const rows = page.locator('.quick-input-widget .monaco-list-row');
        const anyRow = rows.filter({ hasText: title }).first();
        const exactRow = rows.filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
        const deadline = Date.now() + 60_000;
        for (;;) {
          // The palette can also close under us (a notification or an editor taking focus as it opens): retry.
          const found = await (async () => {
            await page.keyboard.press('F1');
            await input.fill(`>${title}`, { timeout: 5000 });
            await anyRow.waitFor({ timeout: 3000 });
          })().then(
            () => true,
            () => false,
          );
          if (found) break;
          await page.keyboard.press('Escape');
          if (Date.now() > deadline) throw new Error(`the command "${title}" did not appear in the palette within 60 s`);
        }
        // Enter runs the focused row, and right after F1 that is a recently used command until the filter applies:
        // wait until this command's row has the focus (the filter puts the best match first), moving down to it
        // only if another row keeps the focus.
        const row = (await exactRow.count()) > 0 ? exactRow : anyRow;
        const focused = row.and(page.locator('.monaco-list-row.focused'));
        for (
          let i = 0;
          !(await focused.waitFor({ timeout: 3000 }).then(
            () => true,
            () => false,
          ));
          i++
        ) {
          if (i >= 10) throw new Error(`the command "${title}" did not get the focus in the palette`);
          await input.press('ArrowDown');
        }
        // Enter only while the palette's input has the focus: otherwise it would go to what took the focus (a chat
        // would send its draft), and that is a bug of whoever took it.
        const stillOpen = await input.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false);
        if (!stillOpen) throw new Error(`the palette lost the focus before "${title}" could run`);
        await input.press('Enter');
      },
      async sendInNewChat(text) {
        await workbench.runCommand('ACP: New Chat');
        const chat = workbench.chat();
        const message = chat.getByRole('textbox', { name: 'Message' });
        await message.waitFor();
        await message.fill(text);
        await message.press('Enter');
        return chat;
      },
      async chatWith(agent, text) {
        await workbench.runAndPick('ACP: New Chat', agent);
        const chat = workbench.chat();
        const message = chat.getByRole('textbox', { name: 'Message' });
        await message.waitFor();
        if (text !== undefined) {
          await message.fill(text);
          await message.press('Enter');
        }
        return { chat, message };
      },
      async cleanUp(test) {
        if (test?.state === 'failed')
          process.stdout.write(`      saved the screenshot and logs to ${await workbench.saveFailure(test.fullTitle())}\n`);
        // Close the chat (and with it the agent) so the next test starts from an empty editor area.
        await workbench.runCommand('View: Close All Editors');
        await page.locator('iframe.webview.ready').first().waitFor({ state: 'detached' });
        // And without this test's toasts: an error toast stays 20 s, over the chat's buttons in the next test.
        const toasts = page.locator('.notifications-toasts .notification-toast');
        if ((await toasts.count()) > 0) {
          await workbench.runCommand('Notifications: Clear All Notifications');
          await toasts.first().waitFor({ state: 'detached', timeout: 10_000 });
        }
      },
      async hideSideBar() {
        const sideBar = page.locator('.part.auxiliarybar');
        if (await sideBar.isVisible()) await workbench.runCommand('View: Hide Secondary Side Bar');
        await sideBar.waitFor({ state: 'hidden', timeout: 10_000 });
      },
      async notification(text) {
        const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text });
        if (
          await toast.waitFor({ timeout: 15_000 }).then(
            () => true,
            () => false,
          )
        )
          return toast;
        const item = page.locator('.notifications-center .notification-list-item', { hasText: text });
        if (!(await page.locator('.notifications-center.visible').isVisible())) await page.locator('#status\\.notifications').click();
        await item.waitFor({ timeout: 15_000 });
        return item;
      },
      async pick(label, options) {
        const timeout = options?.timeout;
        const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
        await row.waitFor({ timeout });
        if (options?.check) {
          // A multi-select list: the click checks the row; Enter (the caller's) accepts.
          await row.click();
          return;
        }
        // Filter by typing, then take the row with the keyboard: a hover on another row can cover it for a click.
        await page.locator('.quick-input-widget .quick-input-box input').fill(label, { timeout });
        await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout });
        await page.keyboard.press('Enter');
      },
      async runAndPick(title, label) {
        await workbench.runCommand(title);
        await workbench.pick(label, { timeout: 15_000 });
      },
      async screenshot(name) {
        const dir = join(outputDir, 'screenshots');
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: join(dir, `${name}.png`) });
      },
      async saveFailure(testTitle) {
        const dir = join(outputDir, testTitle.replace(/[^\w.-]+/g, '-').slice(0, 120));
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: join(dir, 'screenshot.png'), fullPage: true }).catch(() => {});
        writeFileSync(join(dir, 'browser-console.log'), `${consoleLines.join('\n')}\n`);
        if (existsSync(server.logFile)) cpSync(server.logFile, join(dir, 'code-server.log'));
        const logs = join(server.userDataDir, 'logs');
        if (existsSync(logs)) cpSync(logs, join(dir, 'workbench-logs'), { recursive: true });
        return dir;
      },
      async close() {
        await opened.close().catch(() => {});
        await server.stop();
      },
    };
    return workbench;
  } catch (error) {
    await browser?.close().catch(() => {});
    await server.stop();
    throw error;
  }
}
