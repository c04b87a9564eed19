// Agents as a user meets them: choosing one (presets included) and the status bar, testing a connection, signing
// in (an agent method and a terminal method) and out, stopping an agent with two chats and restarting it, and
// Restricted Mode.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const workRoot = process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui');

/** The status bar item, by the state its accessible name says. */
const agentStatus = (page: Page, state: string | RegExp) =>
  page.getByRole('button', { name: typeof state === 'string' ? `ACP agent: ${state}` : state });

/** The methods the agent was sent, in order. */
function methods(recordFile: string): string[] {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { method?: string }).method)
    .filter((m): m is string => m !== undefined);
}

/** What the active text editor shows, with the editor's non-breaking spaces made plain. */
async function editorText(page: Page): Promise<string> {
  const text = await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText();
  return text.replace(/\u00a0/g, ' ');
}

describe('agents UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const workDir = join(workRoot, 'agents');
  const credentials = join(workDir, 'fixture-credentials');
  const { settings, agents } = fixtureAgents(workDir, {
    'Fixture Slow': 'slow',
    'Fixture Auth': { scenario: 'auth-terminal', env: { ACP_FIXTURE_CREDENTIALS: credentials } },
    'Fixture Kept': { scenario: 'basic', env: { ACP_FIXTURE_STATE_DIR: join(workDir, 'agent-state') } },
  });
  settings['Fixture Missing'] = { command: 'acp-no-such-agent-xyz' };

  before(async () => {
    workbench = await openWorkbench('agents', { machine: { 'acp.agents': settings } });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('Test Agent Connection shows what the agent is, and why a missing command fails', async () => {
    const page = workbench.page;
    await workbench.runAndPick('ACP: Test Agent Connection…', 'Fixture Slow');
    await page.locator('.tab.active', { hasText: 'Fixture-Slow-connection.md' }).waitFor();
    const report = await waitFor(async () => {
      const text = await editorText(page);
      return text.includes('Protocol version') ? text : undefined;
    });
    assert.match(report, /Result: connected in \d+ ms/);
    assert.match(report, /Agent: ACP Fixture Agent \(acp-fixture-agent\) 1\.0\.0/);
    assert.match(report, /Protocol version: 1/);
    assert.equal(methods(agents['Fixture Slow']!.recordFile).filter((m) => m === 'initialize').length >= 1, true);

    await workbench.runAndPick('ACP: Test Agent Connection…', 'Fixture Missing');
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Fixture Missing did not connect; the report says why.' }).waitFor();
    const failed = await waitFor(async () => {
      const text = await editorText(page);
      return text.includes('Fixture Missing') && text.includes('failed') ? text : undefined;
    });
    assert.match(failed, /command 'acp-no-such-agent-xyz' was not found; install it or set the path/);
  });

  it('signs in through the agent’s methods: a terminal sign-in runs the agent with its args, Sign Out calls logout, and a refused message brings the sign-in back', async () => {
    const page = workbench.page;
    const record = agents['Fixture Auth']!.recordFile;
    await workbench.runAndPick('ACP: New Chat', 'Fixture Auth');
    const quickInput = page.locator('.quick-input-widget');
    await quickInput.getByPlaceholder('Fixture Auth needs you to sign in. Choose how.').waitFor();
    await quickInput.locator('.monaco-list-row', { hasText: 'The agent signs you in' }).waitFor();
    await quickInput.locator('.monaco-list-row', { hasText: 'Sign in in a terminal' }).getByText('in a terminal', { exact: true }).waitFor();
    await workbench.pick('Sign in in a terminal');

    // The terminal runs `<agent command> --login`; exit 0 counts, and a new process sees the sign-in.
    const chat = workbench.chat();
    const message = chat.getByRole('textbox', { name: 'Message' });
    await message.waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(credentials, 'utf8').trim(), 'signed in by terminal', 'the method’s env reached the command');
    assert.deepEqual(
      methods(record).filter((m) => ['initialize', 'authenticate', 'session/new'].includes(m)),
      ['initialize', 'session/new', 'initialize', 'session/new'],
      'a terminal method is never passed to authenticate; the new process opens the session',
    );
    await message.fill('hello');
    await message.press('Enter');
    await chat.getByRole('log').getByText('Hello', { exact: true }).waitFor();
    // The turn has ended and the composer has the focus again: a quick pick opened now stays open.
    await chat.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
    await waitFor(() => message.evaluate((box) => box.ownerDocument.hasFocus() && box === box.ownerDocument.activeElement), {
      what: 'the composer to have the focus after the turn',
    });

    // Sign Out: logout with the running agent.
    await workbench.runAndPick('ACP: Sign Out…', 'Fixture Auth');
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Signed out of Fixture Auth.' }).waitFor();
    assert.equal(existsSync(credentials), false);

    // The next message is refused until the user signs in: the draft comes back and the sign-in pick opens.
    await chat.getByRole('textbox', { name: 'Message' }).click();
    await message.fill('still there?');
    await message.press('Enter');
    await quickInput.getByPlaceholder('Fixture Auth needs you to sign in. Choose how.').waitFor();
    await workbench.pick('Log in to the fixture');
    await chat.getByText('Signed in to Fixture Auth. Send your message again.').waitFor();
    assert.equal(await message.inputValue(), 'still there?', 'the refused message is back in the composer');
    await message.press('Enter');
    await chat.getByRole('log').getByText('Hello', { exact: true }).nth(1).waitFor();
    assert.ok(methods(record).includes('logout'));
    const sent = readFileSync(record, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"authenticate"'))
      .map((line) => JSON.parse(line) as { params?: unknown });
    assert.deepEqual(
      sent.map((m) => m.params),
      [{ methodId: 'fixture-login' }],
    );
  });

  it('Stop Agent ends the process under two chats; Restart Agent in one brings both back with their conversations', async () => {
    const page = workbench.page;
    await workbench.chatWith('Fixture Kept', 'the first chat');
    await workbench.chat().getByRole('log').getByText('Hello', { exact: true }).waitFor();
    // The second chat opens beside the first: both are on screen.
    await workbench.runAndPick('ACP: New Chat', 'Fixture Kept');
    const [first, second] = [workbench.chat(0), workbench.chat(1)];
    await second.getByRole('textbox', { name: 'Message' }).fill('the second chat');
    await second.getByRole('textbox', { name: 'Message' }).press('Enter');
    await second.getByRole('log').getByText('Hello', { exact: true }).waitFor();
    await agentStatus(page, 'Fixture Kept is ready (2 open chats).').waitFor();

    await workbench.runCommand('ACP: Stop Agent…');
    for (const chat of [first, second]) await chat.getByRole('alert', { name: 'Agent stopped' }).getByText('You stopped Fixture Kept.').waitFor();
    await agentStatus(page, 'Fixture Kept is not running; it starts with a chat.').waitFor();

    await second.getByRole('alert', { name: 'Agent stopped' }).getByRole('button', { name: 'Restart Agent' }).click();
    for (const [chat, text] of [
      [first, 'the first chat'],
      [second, 'the second chat'],
    ] as const) {
      await chat.getByText('Fixture Kept restarted and reopened this conversation.').waitFor();
      await chat.getByRole('log').getByText(text).waitFor();
      await chat.getByRole('alert').waitFor({ state: 'detached' });
    }
    await agentStatus(page, 'Fixture Kept is ready (2 open chats).').waitFor();
    const initializes = methods(agents['Fixture Kept']!.recordFile).filter((m) => m === 'initialize' || m === 'session/load');
    assert.deepEqual(initializes, ['initialize', 'initialize', 'session/load', 'session/load']);
  });

  // Last: once it has set the agent New Chat uses, New Chat no longer asks.
  it('Select Agent offers the configured agents and the presets, copies a preset into the settings, and the status bar shows the agent and its state', async () => {
    const page = workbench.page;
    await agentStatus(page, 'No agent chosen yet.').click();
    for (const label of ['Fixture Slow', 'Fixture Missing', 'Gemini CLI', 'Claude Code', 'Codex', 'GitHub Copilot CLI']) {
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first().waitFor();
    }
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'npx -y @google/gemini-cli --acp' }).waitFor();
    await workbench.screenshot('select-agent');

    // A preset: chosen, then copied into the user's settings for editing.
    await workbench.pick('Codex');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'New chats use Codex, a built-in preset' });
    await toast.getByRole('button', { name: 'Copy to Settings' }).click();
    const settingsFiles = ['Machine', 'User'].map((layer) => join(workbench.server.userDataDir, layer, 'settings.json'));
    await waitFor(() => settingsFiles.some((file) => existsSync(file) && readFileSync(file, 'utf8').includes('@agentclientprotocol/codex-acp')), {
      what: 'the Codex preset to be written into the settings',
    });
    await page.locator('.settings-editor').waitFor();
    await agentStatus(page, 'Codex is not running; it starts with a chat.').waitFor();

    // A configured agent: New Chat uses it without asking, and the status bar follows its state.
    await workbench.runAndPick('ACP: Select Agent…', 'Fixture Slow');
    await agentStatus(page, 'Fixture Slow is not running; it starts with a chat.').waitFor();
    await workbench.runCommand('ACP: New Chat');
    const chat = workbench.chat();
    const message = chat.getByRole('textbox', { name: 'Message' });
    await message.waitFor();
    await agentStatus(page, 'Fixture Slow is ready (1 open chat).').waitFor();
    await message.fill('take your time');
    await message.press('Enter');
    await agentStatus(page, 'Fixture Slow is busy (1 open chat).').waitFor();
    await chat.getByRole('button', { name: 'Stop' }).click();
    await agentStatus(page, 'Fixture Slow is ready (1 open chat).').waitFor();

    // Its last chat closed: the process stops.
    await workbench.runCommand('View: Close All Editors');
    await agentStatus(page, 'Fixture Slow is not running; it starts with a chat.').waitFor();
  });
});

describe('Restricted Mode UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const workDir = join(workRoot, 'restricted');
  const { settings, agents } = fixtureAgents(workDir, { 'Fixture Basic': 'basic' });

  before(async () => {
    workbench = await openWorkbench('restricted', {
      machine: { 'acp.agents': settings },
      user: { 'acp.defaultAgent': 'Fixture Basic', 'security.workspace.trust.startupPrompt': 'never' },
      workspaceTrust: true,
    });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('does not offer New Chat in Worktree in Restricted Mode', async () => {
    const page = workbench.page;
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    const newChat = rows.filter({ hasText: 'ACP: New Chat' }).first();
    // Right after start the palette may not list the extension's commands yet: it is opened again until it does.
    await waitFor(
      async () => {
        await page.keyboard.press('F1');
        await page.locator('.quick-input-widget .quick-input-box input').fill('>ACP: New Chat');
        const listed = await newChat.waitFor({ timeout: 3000 }).then(
          () => true,
          () => false,
        );
        if (!listed) await page.keyboard.press('Escape');
        return listed;
      },
      { timeoutMs: 60_000, what: 'the palette to list ACP: New Chat' },
    );
    // The palette has filtered to the chat commands: New Chat is there, New Chat in Worktree… is not.
    assert.equal(await rows.filter({ hasText: 'New Chat in Worktree' }).count(), 0, 'no worktree chats in Restricted Mode');
    await page.keyboard.press('Escape');
  });

  it('starts no agent in an untrusted workspace, says why, and connects once the user trusts it', async () => {
    await workbench.runCommand('ACP: New Chat');
    const chat = workbench.chat();
    const error = chat.getByRole('alert', { name: 'Agent stopped' });
    await error.getByText('Fixture Basic was not started: this workspace is in Restricted Mode', { exact: false }).waitFor();
    assert.equal(existsSync(agents['Fixture Basic']!.recordFile), false, 'the agent was never spawned');

    await error.getByRole('button', { name: 'Manage Workspace Trust' }).click();
    await workbench.page.getByRole('button', { name: 'Trust', exact: true }).click();
    await workbench.page.keyboard.press('Escape'); // the trust editor is modal; the chat is behind it
    const message = chat.getByRole('textbox', { name: 'Message' });
    await chat.getByText('Fixture Basic started a new session.').waitFor();
    await error.waitFor({ state: 'detached' });
    await message.fill('now?');
    await message.press('Enter');
    await chat.getByRole('log').getByText('Hello', { exact: true }).waitFor();
  });
});
