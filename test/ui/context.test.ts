// Context and history as a user works with them, in the real workbench: @problems and @symbol picked from the
// keyboard (the problems of a broken JSON file, from VS Code's JSON support; a symbol from TypeScript's workspace
// symbols), a file dropped on the composer from the Explorer (the drop carries what VS Code's Explorer puts on a
// drag), a prompt file picked under / with its input asked in the chat, Search Chats opening a chat at its match,
// and a chat in the secondary side bar moved to an editor tab with its conversation and draft.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Locator } from 'playwright-core';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const workRoot = process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui');

/** Opens a workspace file with Quick Open, as a user does, and waits for its tab. */
async function openFile(workbench: Workbench, name: string): Promise<void> {
  const page = workbench.page;
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget .quick-input-box input').fill(name);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tab', { hasText: name }).waitFor();
}

/** Waits, within the bound, until the text box holds `expected` (in its own frame, as the page changes). */
async function valueIs(box: Locator, expected: string): Promise<void> {
  const element = await box.elementHandle();
  const frame = await element?.ownerFrame();
  if (!element || !frame) throw new Error('the text box is not there');
  try {
    await frame.waitForFunction(([el, text]) => (el as HTMLTextAreaElement).value === text, [element, expected] as const, { timeout: 15_000 });
  } catch {
    throw new Error(`the text box holds ${JSON.stringify(await box.inputValue())}, not ${JSON.stringify(expected)}`);
  }
}

describe('context and history UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  // The side bar's chat has an agent of its own that keeps its sessions on disk, as real agents do: after a reload
  // the new process replays the conversation (session/load).
  const { settings, agents } = fixtureAgents(join(workRoot, 'context'), {
    'Fixture Echo': 'echo',
    'Fixture Side': { scenario: 'echo', env: { ACP_FIXTURE_STATE_DIR: join(workRoot, 'context', 'side-state') } },
  });

  before(async () => {
    workbench = await openWorkbench('context', { machine: { 'acp.agents': settings } });
    const workspace = workbench.workspace;
    writeFileSync(join(workspace, 'broken.json'), '{ "name": "x",, }\n');
    mkdirSync(join(workspace, '.github', 'prompts'), { recursive: true });
    writeFileSync(
      join(workspace, '.github', 'prompts', 'review.prompt.md'),
      '---\ndescription: Review one area of the code\n---\nReview ${input:area:the part to review} for bugs.\n',
    );
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('attaches @problems from the keyboard, with the chip\u2019s size, and sends it', async () => {
    const page = workbench.page;
    // Open the broken file: VS Code's JSON support reports its problems.
    await openFile(workbench, 'broken.json');
    await page.locator('#status\\.problems', { hasText: /[1-9]/ }).waitFor({ timeout: 60_000 });
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    await message.fill('what is wrong? @prob');
    const list = chat.getByRole('listbox', { name: 'Context' });
    await list
      .getByRole('option', { name: /problems/ })
      .first()
      .waitFor();
    await message.press('Enter'); // takes the first: the active file's problems
    const chip = chat.getByRole('list', { name: 'Attached to your message' }).getByRole('listitem');
    await chip.filter({ hasText: /Problems in broken\.json/ }).waitFor();
    await chip.filter({ hasText: / B$| KB$/ }).waitFor();
    await workbench.screenshot('problems-chip');
    await message.press('Enter');
    await chat
      .getByRole('log')
      .getByText(/You said: what is wrong\? @problems/)
      .waitFor();
    // What the agent received: the problems of broken.json, with where they are, beside the message.
    const prompt = readFileSync(agents['Fixture Echo']!.recordFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"session/prompt"'))
      .at(-1);
    assert.ok(prompt, 'the agent got a prompt');
    assert.match(prompt, /what is wrong\? @problems/);
    assert.match(prompt, /broken\.json:1:\d+ error: /, 'the problems, each with its file, line and severity');
  });

  it('attaches a symbol picked with @ and the arrow keys', async () => {
    // TypeScript's workspace symbols: the language service starts with the first TypeScript file opened.
    await openFile(workbench, 'hello.ts');
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    const option = chat.getByRole('listbox', { name: 'Context' }).getByRole('option', { name: /^hello.*src\/hello\.ts:1/ });
    // Typed once: the language service may still be starting, and its symbols join the list when it answers.
    await message.fill('@hello');
    await option.waitFor({ timeout: 90_000 });
    // Down until the symbol is the highlighted option, then Enter.
    for (let i = 0; i < 60 && (await option.getAttribute('aria-selected')) !== 'true'; i++) await message.press('ArrowDown');
    await message.press('Enter');
    await chat
      .getByRole('list', { name: 'Attached to your message' })
      .getByRole('listitem')
      .filter({ hasText: /hello \(src\/hello\.ts:1\)/ })
      .waitFor();
  });

  it('attaches a file dropped on the composer from the Explorer', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    const uri = pathToFileURL(join(workbench.workspace, 'src', 'hello.ts')).href;
    // What VS Code's Explorer puts on a drag, dropped where the user lets go (holding Shift, as webviews ask).
    await message.evaluate((box, dropped) => {
      const data = new DataTransfer();
      data.setData('application/vnd.code.uri-list', dropped);
      data.setData('text/uri-list', dropped);
      box.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true, shiftKey: true }));
    }, uri);
    await chat.getByRole('list', { name: 'Attached to your message' }).getByRole('listitem').filter({ hasText: 'src/hello.ts' }).waitFor();
  });

  it('offers a prompt file under /, asks its input in the chat, and puts its text in the composer', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    await message.fill('/rev');
    const option = chat.getByRole('listbox', { name: 'Commands' }).getByRole('option', { name: /\/review/ });
    await option.getByText(/Review one area of the code — prompt file \(workspace\)/).waitFor();
    await message.press('Enter');
    const form = chat.getByRole('group', { name: /needs these values/ });
    await form.getByRole('textbox', { name: 'area' }).fill('the parser');
    await page.keyboard.press('Enter');
    await form.waitFor({ state: 'detached' });
    await valueIs(chat.getByRole('textbox', { name: 'Message' }), 'Review the parser for bugs.\n');
  });

  it('finds a past chat with Search Chats and opens it at the match', async () => {
    const page = workbench.page;
    await workbench.chatWith('Fixture Echo', 'the narwhal inventory');
    await workbench.chat().getByRole('log').getByText('You said: the narwhal inventory').waitFor();
    await workbench.runCommand('View: Close All Editors');
    await page.locator('iframe.webview.ready').first().waitFor({ state: 'detached' });
    await workbench.runCommand('ACP: Search Chats…');
    await page.locator('.quick-input-widget .quick-input-box input').fill('narwh');
    await page
      .locator('.quick-input-widget .monaco-list-row', { hasText: /narwhal inventory/ })
      .first()
      .waitFor();
    await workbench.screenshot('search-chats');
    await page.keyboard.press('Enter');
    await workbench.chat().locator('.entry.revealed', { hasText: 'narwhal inventory' }).first().waitFor();
  });

  it('runs a chat in the secondary side bar (back after a reload), and moves it to an editor tab with its conversation and draft', async () => {
    const page = workbench.page;
    await workbench.runAndPick('ACP: New Chat in Side Bar', 'Fixture Side');
    // The chat is in the secondary side bar's ACP Chat view; no editor tab holds it.
    await page.locator('.part.auxiliarybar').getByText('ACP Chat').first().waitFor();
    assert.equal(await page.locator('.tab', { hasText: 'Fixture Side' }).count(), 0);
    const chat = workbench.chat();
    const message = chat.getByRole('textbox', { name: 'Message' });
    await message.fill('hello from the side bar');
    await message.press('Enter');
    await chat.getByRole('log').getByText('You said: hello from the side bar').waitFor();
    // A reload brings the chat back in the side bar, with its conversation.
    await workbench.runCommand('Developer: Reload Window');
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    await page.locator('.part.auxiliarybar').getByText('ACP Chat').first().waitFor({ timeout: 60_000 });
    await chat.getByRole('log').getByText('You said: hello from the side bar').waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.tab', { hasText: 'Fixture Side' }).count(), 0, 'not in a tab as well');
    await message.fill('a draft to keep');
    await workbench.screenshot('chat-in-side-bar');
    await workbench.runCommand('ACP: Move Chat to Editor');
    await page.locator('.tab', { hasText: 'Fixture Side' }).waitFor();
    // The side bar, now empty, is put away, so the only chat page is the tab's.
    await workbench.hideSideBar();
    const moved = workbench.chat();
    await moved.getByRole('log').getByText('You said: hello from the side bar').waitFor();
    await valueIs(moved.getByRole('textbox', { name: 'Message' }), 'a draft to keep');
  });

  it('leaves the focus where the user is when a chat loads: a quick pick open at the time stays open, with the keyboard', async () => {
    const page = workbench.page;
    await workbench.runCommand('View: Close All Editors');
    await workbench.runAndPick('ACP: New Chat in Side Bar', 'Fixture Side');
    const chat = workbench.chat();
    await chat.getByRole('textbox', { name: 'Message' }).waitFor();
    // A narrow side bar: the header wraps, and its last control (the permission level) is whole, inside the page.
    const header = await chat.locator('.chat-header').boundingBox();
    const level = await chat.locator('.level-picker').boundingBox();
    assert.ok(header && level && level.x >= header.x && level.x + level.width <= header.x + header.width, JSON.stringify({ header, level }));
    // The side bar put away: its chat's page is gone, and it loads again when the side bar shows.
    await workbench.hideSideBar();
    await chat.getByRole('textbox', { name: 'Message' }).waitFor({ state: 'detached' });
    // The user opens Go to File, and while it is open the side bar comes back (its key works from a quick pick).
    await page.keyboard.press('Control+p');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill('README');
    await page.keyboard.press('Control+Alt+b');
    await chat.getByRole('textbox', { name: 'Message' }).waitFor();
    await chat.locator('body').evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    // The chat has loaded; Go to File is still open, with the keyboard, and what was typed.
    assert.equal(await input.isVisible(), true, 'the quick pick is still open');
    assert.equal(await input.evaluate((el) => el === el.ownerDocument.activeElement && el.ownerDocument.hasFocus()), true, 'it has the keyboard');
    assert.equal(await input.inputValue(), 'README');
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
    await workbench.hideSideBar();
  });
});
