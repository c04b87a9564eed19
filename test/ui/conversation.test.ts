// The chat view as a user reads and drives it: markdown with code actions and links, thoughts, the plan, tool
// cards, status and usage; the composer's commands, mentions, pickers and history; the editor's "Add to Chat"
// commands; and screenshots in light and dark themes, kept as test artifacts.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLOOD_END } from '../fixtures/lib/benchScenarios';
import { waitFor } from '../lib/wait';
import { WINDOW } from '../../webview/state';
import { EXTENSION_ID, fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const SCREENSHOTS = join(process.env['ACP_TEST_OUTPUT'] ?? join(repoRoot, 'test-output', 'ui'), 'screenshots');

describe('conversation UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const { settings, agents } = fixtureAgents(join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'conversation'), {
    'Fixture Showcase': 'showcase',
    'Fixture Images': 'images',
    'Fixture Echo': 'prompt-echo',
    'Fixture Plain': { scenario: 'prompt-echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) } },
    'Fixture Refusal': 'refusal',
    'Fixture Flood': 'flood',
    'Fixture Levels': 'levels',
    'Fixture Forks': {
      scenario: 'prompt-echo',
      env: {
        ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({
          loadSession: true,
          promptCapabilities: { embeddedContext: true },
          sessionCapabilities: { fork: {} },
        }),
      },
    },
  });

  before(async () => {
    workbench = await openWorkbench('conversation', {
      machine: { 'acp.agents': settings },
      user: { 'files.autoSave': 'off', 'acp.followAgent': false },
    });
    await workbench.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  async function screenshot(name: string) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await workbench.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  }

  it('shows a whole turn: title, thought, plan, tool cards, usage, notice and markdown with highlighted code', async () => {
    const { chat } = await workbench.chatWith('Fixture Showcase', 'fix the date test');
    await chat.getByRole('heading', { name: 'Done' }).waitFor();

    // The session title names the panel and heads the chat.
    await workbench.page.locator('.tabs-container .tab', { hasText: 'Fixing the date test' }).waitFor();
    await chat.getByRole('heading', { name: 'Fixing the date test', level: 1 }).waitFor();

    // The thought is collapsed, with a hint of its length.
    const thought = chat.locator('details.thought');
    assert.match((await thought.locator('summary').textContent()) ?? '', /Thought \(\d+ words\)/);
    assert.equal(await chat.getByText('I should read the file first').isVisible(), false, 'the thought starts collapsed');
    await thought.locator('summary').click();
    await chat.getByText('I should read the file first', { exact: false }).waitFor();

    // The plan: a checklist with status and priority.
    const plan = chat.getByRole('list', { name: 'Plan' });
    // Each step with its status and priority, in order, however the card lays them out.
    const steps = await plan.getByRole('listitem').allInnerTexts();
    const expected = [
      ['Read src/date.ts', 'done', 'high priority'],
      ['Fix the time zone', 'in progress', 'high priority'],
      ['Run the tests', 'to do', 'medium priority'],
    ];
    assert.equal(steps.length, expected.length, steps.join(' | '));
    expected.forEach((parts, i) => {
      for (const part of parts) assert.ok(steps[i]?.includes(part), `step ${i + 1} says "${part}": ${steps[i]}`);
    });

    // Tool cards: articles named by their title, with status, locations, text, diff summary and raw JSON.
    const read = chat.getByRole('article', { name: /^Read README\.md/ });
    // A location opens its file (the card's buttons act through the conversation's one click handler).
    await read.getByRole('button', { name: 'README.md:1' }).click();
    await workbench.page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor();
    await read.getByText('3 lines').waitFor();
    assert.equal(await read.locator('strong', { hasText: '3 lines' }).count(), 1, 'text content is markdown');
    await read.getByText('Input').click();
    assert.match((await read.getByLabel('Input').textContent()) ?? '', /"path": ".*README\.md"/);
    const edit = chat.getByRole('article', { name: 'Edit date.ts (done)' });
    await edit.getByText('+2').waitFor();
    await edit.getByText('−1').waitFor();
    await edit.getByRole('button', { name: 'Open Diff of date.ts' }).waitFor();
    await edit.getByText('Output').click();
    assert.match((await edit.getByLabel('Output').textContent()) ?? '', /"linesChanged": 2/);

    // Usage and the agent's notice.
    const meter = chat.getByRole('meter', { name: 'Context used' });
    assert.equal(await meter.getAttribute('aria-valuetext'), '48.2k of 200k tokens, $0.42');
    await chat.getByText('Rate limit').waitFor();

    // Markdown: a list, emphasis, and code highlighted by language.
    await chat.getByRole('listitem').filter({ hasText: 'the test now passes' }).waitFor();
    await chat.locator('em', { hasText: 'fix the date test' }).waitFor();
    const code = chat.locator('.code-block code.language-ts');
    assert.ok((await code.locator('.hljs-keyword').count()) > 0, 'the code block is highlighted');
    // Both themes, kept as artifacts (and looked at: the colours come from the theme's variables).
    const dark = async () => (await workbench.page.locator('.monaco-workbench.vs-dark').count()) > 0;
    const first = (await dark()) ? 'dark' : 'light';
    await screenshot(`conversation-${first}`);
    await workbench.runCommand('Preferences: Toggle between Light/Dark Themes');
    await waitFor(async () => ((await dark()) ? 'dark' : 'light') !== first, { what: 'the other theme' });
    await screenshot(`conversation-${first === 'dark' ? 'light' : 'dark'}`);
    await workbench.runCommand('Preferences: Toggle between Light/Dark Themes');
    await waitFor(async () => ((await dark()) ? 'dark' : 'light') === first, { what: 'the first theme again' });
  });

  it('copies code, inserts it at the cursor, and opens workspace links at their line', async () => {
    // The cursor at the end of README.md, where Insert at Cursor puts the code.
    await workbench.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).dblclick();
    const editor = workbench.page.locator('.editor-instance .view-lines').first();
    await editor.click();
    await workbench.page.keyboard.press('Control+End');
    await workbench.page.keyboard.type('before: ');
    const { chat } = await workbench.chatWith('Fixture Showcase', 'code please');
    const block = chat.locator('.code-block').first();
    await block.waitFor();

    await block.getByRole('button', { name: 'Copy ts' }).click();
    const copied = await waitFor(
      () => workbench.page.evaluate<string>('navigator.clipboard.readText()').then((t) => (t.includes('formatDate') ? t : '')),
      { what: 'the code on the clipboard' },
    );
    assert.equal(copied, 'export function formatDate(d: Date): string {\n  return d.toISOString().slice(0, 10); // UTC\n}\n');

    await block.getByRole('button', { name: 'Insert ts at Cursor' }).click();
    await waitFor(async () => ((await editor.textContent()) ?? '').replace(/\u00a0/g, ' ').includes('before: export function formatDate'), {
      what: 'the code inserted at the cursor in README.md',
    });

    // A relative link with a line opens the workspace file there.
    await chat.getByRole('link', { name: 'README line 3' }).click();
    await workbench.page.locator('.statusbar-item', { hasText: /Ln 3, Col 1/ }).waitFor();
    await workbench.runCommand('File: Revert File');
    await waitFor(async () => !((await editor.textContent()) ?? '').includes('formatDate'), { what: 'README.md reverted' });
  });

  it('completes slash commands with their hint, and recalls earlier prompts with Up', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Showcase');
    await message.press('/');
    const commands = chat.getByRole('listbox', { name: 'Commands' });
    await commands.waitFor();
    assert.deepEqual(
      await commands
        .getByRole('option')
        .allInnerTexts()
        .then((t) => t.map((s) => s.replace(/\s+/g, ' '))),
      ['/review Review the current changes — what to focus on', '/init Write an AGENTS.md'],
    );
    await message.press('Enter');
    assert.equal(await message.inputValue(), '/review ');
    await chat.getByText('what to focus on', { exact: true }).waitFor();
    await message.pressSequentially('the tests');
    await message.press('Enter');
    await chat.getByRole('heading', { name: 'Done' }).waitFor();
    await chat.getByRole('article', { name: 'You' }).getByText('/review the tests', { exact: true }).waitFor();
    assert.equal(await message.inputValue(), '');
    await message.press('ArrowUp');
    assert.equal(await message.inputValue(), '/review the tests', 'Up recalls the last prompt');
    await message.press('ArrowDown');
    assert.equal(await message.inputValue(), '', 'Down goes back to the draft');
  });

  it('mentions a workspace file with @ and sends it as an embedded resource', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    await message.pressSequentially('look at @hel');
    const files = chat.getByRole('listbox', { name: 'Context' });
    await files.getByRole('option', { name: /hello\.ts/ }).waitFor();
    await message.press('Enter');
    assert.equal(await message.inputValue(), 'look at @src/hello.ts ');
    await chat.getByRole('list', { name: 'Attached to your message' }).getByText('src/hello.ts').waitFor();
    await message.press('Enter');
    const reply = chat.locator('.code-block code.language-json');
    await reply.waitFor();
    const prompt = JSON.parse((await reply.textContent()) ?? '[]') as { type: string; text?: string; resource?: { uri: string; text: string } }[];
    assert.equal(prompt[0]?.text, 'look at @src/hello.ts ');
    assert.equal(prompt[1]?.type, 'resource');
    assert.match(prompt[1]?.resource?.uri ?? '', /^file:\/\/.*\/src\/hello\.ts$/);
    assert.equal(prompt[1]?.resource?.text, readFileSync(join(workbench.workspace, 'src', 'hello.ts'), 'utf8'));
    // The sent message shows the attachment as a chip, and the composer has none left.
    await chat.getByRole('article', { name: 'You' }).getByRole('list', { name: 'Attachments' }).getByText('src/hello.ts').waitFor();
    assert.equal(await chat.getByRole('list', { name: 'Attached to your message' }).count(), 0);
  });

  /** Pastes a small PNG into the composer, as the clipboard would; `thenEnter`: Enter in the same moment, before its chip is back. */
  async function pasteImage(chat: ReturnType<Workbench['chat']>, thenEnter = false) {
    await chat.getByRole('textbox', { name: 'Message' }).evaluate((box, enter) => {
      // A 1×1 PNG.
      const bytes = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) =>
        c.charCodeAt(0),
      );
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'shot.png', { type: 'image/png' }));
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      if (enter) box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    }, thenEnter);
  }

  it('attaches a pasted image when the agent accepts images, and says why not when it does not', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Echo');
    await pasteImage(chat);
    await chat.getByRole('list', { name: 'Attached to your message' }).getByText('shot.png').waitFor();
    await message.fill('what is this?');
    await message.press('Enter');
    const reply = chat.locator('.code-block code.language-json');
    await reply.waitFor();
    const prompt = JSON.parse((await reply.textContent()) ?? '[]') as { type: string; mimeType?: string; data?: string }[];
    assert.deepEqual(
      prompt.map((b) => b.type),
      ['text', 'image'],
    );
    assert.equal(prompt[1]?.mimeType, 'image/png');
    assert.ok((prompt[1]?.data ?? '').startsWith('iVBORw0KGgo'));
    await chat.getByRole('article', { name: 'You' }).getByRole('list', { name: 'Attachments' }).getByText('image (image/png)').waitFor();
    // Enter right after a paste, before its chip is back: the image goes with the message.
    await message.fill('and right away?');
    await pasteImage(chat, true);
    const second = chat.locator('.code-block code.language-json').nth(1);
    await second.waitFor();
    assert.deepEqual(
      (JSON.parse((await second.textContent()) ?? '[]') as { type: string }[]).map((b) => b.type),
      ['text', 'image'],
    );

    await workbench.runCommand('View: Close All Editors');
    const plain = await workbench.chatWith('Fixture Plain');
    await pasteImage(plain.chat);
    // An agent that does not take images gets a link to a saved copy, and the chat says so.
    await plain.chat.getByText(/Fixture Plain does not take images: the image was saved and is attached as a link to/).waitFor();
    await plain.chat.getByRole('list', { name: 'Attached to your message' }).getByText('shot.png').waitFor();
    await plain.message.fill('and this?');
    await plain.message.press('Enter');
    const linked = plain.chat.locator('.code-block code.language-json');
    await linked.waitFor();
    const sent = JSON.parse((await linked.textContent()) ?? '[]') as { type: string; uri?: string }[];
    assert.deepEqual(
      sent.map((b) => b.type),
      ['text', 'resource_link'],
    );
    assert.match(sent[1]?.uri ?? '', /^file:\/\/.*\/images\/[0-9a-f]{24}\.png$/);
    // Enter right after a paste: the message waits for the image to be saved, and links it.
    await plain.message.fill('and this one, quickly?');
    await pasteImage(plain.chat, true);
    const quick = plain.chat.locator('.code-block code.language-json').nth(1);
    await quick.waitFor();
    assert.deepEqual(
      (JSON.parse((await quick.textContent()) ?? '[]') as { type: string }[]).map((b) => b.type),
      ['text', 'resource_link'],
    );
  });

  it('shows the agent\u2019s images and linked image files inline, bounded, refuses others with the reason, and opens them full size from the keyboard', async () => {
    const { chat } = await workbench.chatWith('Fixture Images', 'a chart please');
    const image = chat.getByRole('button', { name: 'Open Image 1 (1×1) Full Size' });
    await image.waitFor();
    await waitFor(async () => /^data:image\/png;base64,iVBOR/.test((await image.locator('img').getAttribute('src')) ?? ''), {
      what: 'the image loaded into the page',
    });
    const chips = chat.getByRole('list', { name: 'Attachments' });
    await chips.getByText(/image \(image\/png\), not shown: 20000×20000 pixels is more than the chat shows/).waitFor();
    await chips.getByText(/image \(image\/svg\+xml\), not shown: image\/svg\+xml is not PNG, JPEG, GIF or WebP/).waitFor();
    await chips.getByText(/not shown: its data is not base64/).waitFor();
    // Image files the agent linked to (numbered after its four image blocks): the one in the workspace is shown;
    // outside it, or not a PNG, says why.
    const linked = chat.getByRole('button', { name: 'Open Image 5: linked-chart.png Full Size' });
    await waitFor(
      async () =>
        /^data:image\/png;base64,iVBOR/.test(
          (await linked
            .locator('img')
            .getAttribute('src')
            .catch(() => null)) ?? '',
        ),
      {
        what: 'the linked image loaded into the page',
      },
    );
    await chat.getByText("Image 6: outside.png, not shown: the file is outside this chat's folders").waitFor();
    await chat.getByText('Image 7: fake-chart.png, not shown: not a PNG image').waitFor();
    assert.equal(await chat.locator('img').count(), 2, 'only the two images are in the page');
    await linked.focus();
    await workbench.page.keyboard.press('Enter');
    await workbench.page.locator('.tabs-container .tab', { hasText: 'linked-chart.png' }).waitFor();
    // VS Code's image preview takes the focus when it has loaded (it then shows the size in the status bar): the user
    // goes back to the chat after that, and presses Enter once the button has the keyboard.
    await workbench.page.locator('.statusbar-item', { hasText: /^1x1$/ }).waitFor();
    await image.focus();
    await waitFor(() => image.evaluate((button) => button.ownerDocument.hasFocus() && button === button.ownerDocument.activeElement), {
      what: 'the image button to have the keyboard',
    });
    await workbench.page.keyboard.press('Enter');
    await workbench.page.locator('.tabs-container .tab', { hasText: /[0-9a-f]{24}\.png/ }).waitFor();
  });

  it('sets the chat\u2019s permission level from its header, and the status bar shows it', async () => {
    const { chat } = await workbench.chatWith('Fixture Showcase');
    const level = chat.getByRole('combobox', { name: 'Permission level: Ask' });
    await level.selectOption({ label: 'Auto-approve edits' });
    await chat.getByRole('combobox', { name: 'Permission level: Auto-approve edits' }).waitFor();
    await workbench.page.locator('.statusbar-item', { hasText: 'Auto-approve edits' }).first().waitFor();
  });

  it('shows the plan a request to leave plan mode asks to approve, above the agent\u2019s options', async () => {
    const { chat } = await workbench.chatWith('Fixture Levels', 'plan');
    const card = chat.getByRole('group', { name: 'Permission: Ready to code?' });
    const plan = card.getByRole('region', { name: 'The plan to approve' });
    await plan.getByText('Read the code').waitFor();
    await plan.getByText('Fix it').waitFor();
    await card.getByRole('button', { name: 'Reject' }).click();
    await chat.getByRole('article', { name: 'Agent' }).getByText('outcome:reject').waitFor();
  });

  it('changes the mode and the model from the pickers, which show what the agent confirmed, and says why a change was refused', async () => {
    const { chat } = await workbench.chatWith('Fixture Showcase');
    // Named with their value, as a screen reader reads them.
    const mode = chat.getByRole('combobox', { name: /^Mode: / });
    const model = chat.getByRole('combobox', { name: /^Model: / });
    assert.equal(await mode.inputValue(), 'default');
    await mode.selectOption({ label: 'Plan' });
    await waitFor(async () => (await mode.inputValue()) === 'plan', { what: 'the mode the agent confirmed' });
    await model.selectOption({ label: 'Smart' });
    await waitFor(async () => (await model.inputValue()) === 'smart', { what: 'the model the agent confirmed' });
    // A mode the agent lists but refuses: the chat says why, and the picker goes back to what the agent has.
    await mode.selectOption({ label: 'Locked' });
    await chat
      .getByRole('status')
      .getByText(/Fixture Showcase did not change the mode: .*the Locked mode is not on this plan/)
      .waitFor();
    await waitFor(async () => (await mode.inputValue()) === 'plan', { what: 'the picker back on the mode the agent has' });
    const sent = readFileSync(agents['Fixture Showcase']!.recordFile, 'utf8');
    assert.match(sent, /"method":"session\/set_mode","params":\{"sessionId":"[^"]+","modeId":"plan"\}/);
    assert.match(sent, /"method":"session\/set_mode","params":\{"sessionId":"[^"]+","modeId":"locked"\}/);
    assert.match(sent, /"method":"session\/set_config_option","params":\{"sessionId":"[^"]+","configId":"model","value":"smart"\}/);
  });

  it('adds the editor selection to the chat with the keybinding, and focuses the composer', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Showcase');
    await workbench.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).dblclick();
    const editor = workbench.page.locator('.editor-instance .view-lines').first();
    await editor.click();
    await workbench.page.keyboard.press('Control+A');
    await workbench.page.keyboard.press('Control+Alt+A');
    await chat.getByRole('list', { name: 'Attached to your message' }).getByText('README.md:1-3').waitFor();
    await waitFor(() => message.evaluate((box) => box.ownerDocument.activeElement === box), { what: 'the composer focused' });
    // Removing the chip takes it off the message.
    await chat.getByRole('button', { name: 'Remove README.md:1-3' }).click();
    await chat.getByRole('list', { name: 'Attached to your message' }).waitFor({ state: 'detached' });
  });

  it('works from the keyboard alone, with visible focus: Tab reaches a card button and Enter opens the diff', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Showcase', 'fix it');
    await chat.getByRole('heading', { name: 'Done' }).waitFor();
    await message.focus();
    const target = chat.getByRole('button', { name: 'Open Diff of date.ts' });
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await workbench.page.keyboard.press('Shift+Tab');
      reached = await target.evaluate((button) => button.ownerDocument.activeElement === button);
    }
    assert.ok(reached, 'Shift+Tab from the composer reaches the card’s Open Diff');
    const outline = await target.evaluate((button) => getComputedStyle(button).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused button shows its focus');
    await workbench.page.keyboard.press('Enter');
    await workbench.page.locator('.tabs-container .tab', { hasText: 'date.ts' }).waitFor();
    // The diff takes the focus once it has opened (after its tab shows): only then does the test take it back.
    await workbench.page.locator('.monaco-diff-editor .monaco-editor.focused').first().waitFor();

    // Copy on the agent's message, reached the same way: its Markdown source lands on the clipboard.
    await message.focus();
    const copy = chat.getByRole('button', { name: "Copy the Agent's Message" }).last();
    reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await workbench.page.keyboard.press('Shift+Tab');
      reached = await copy.evaluate((button) => button.ownerDocument.activeElement === button);
    }
    assert.ok(reached, 'Shift+Tab from the composer reaches Copy on the last message');
    assert.notEqual(await copy.evaluate((button) => getComputedStyle(button.parentElement!).opacity), '0', 'a focused Copy is shown');
    await workbench.page.keyboard.press('Enter');
    const copied = await waitFor(
      () => workbench.page.evaluate<string>('navigator.clipboard.readText()').then((t) => (t.includes('## Done') ? t : '')),
      { what: "the agent's message on the clipboard" },
    );
    assert.match(copied, /## Done\n\nYou asked: \*fix it\*\. I changed the zone to UTC in `date\.ts` — see \[README line 3\]\(README\.md#L3\)/);
  });

  it('opens a new chat from a link, through VS Code\u2019s URI handler, with the prompt in its composer, never sent, and another chat\u2019s draft kept', async () => {
    const page = workbench.page;
    /** The composer of the `index`th chat opened (each link opens a chat beside the last). */
    const composer = (index: number) => workbench.chat(index).getByRole('textbox', { name: 'Message' });
    const holds = (index: number, text: string, what: string) =>
      waitFor(
        async () =>
          (await composer(index)
            .inputValue()
            .catch(() => '')) === text,
        { timeoutMs: 30_000, what },
      );
    const { message: mine } = await workbench.chatWith('Fixture Echo');
    await mine.fill('my own words');
    const open = async (query: string) => {
      await workbench.runCommand('Developer: Open URL');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.fill(`code-oss://acp-client.acp-client/chat?${query}`);
      await input.press('Enter');
      // VS Code asks before an extension takes a link (once; "do not ask again" is the user's to tick).
      const dialog = page.locator('.monaco-dialog-box');
      if (
        await dialog.waitFor({ timeout: 5000 }).then(
          () => true,
          () => false,
        )
      )
        await dialog.getByRole('button', { name: 'Open' }).click();
    };
    await open(`agent=${encodeURIComponent('Fixture Echo')}&prompt=${encodeURIComponent('Review **this** & that')}`);
    await holds(1, 'Review **this** & that', 'the linked chat with the prompt in its composer');
    await workbench.chat(1).getByText('A link put this prompt of 22 characters in the message box: read it before you send it.').waitFor();
    assert.equal(await workbench.chat(1).locator('.message.user').count(), 0, 'nothing was sent');
    await holds(0, 'my own words', 'the first chat with its own draft');

    // An agent the settings do not name: the picker, for the user to choose.
    await open('agent=Nobody&prompt=hi');
    await workbench.pick('Fixture Echo');
    // A third chat: it opens as a tab over the first link's chat, whose page VS Code drops while it is hidden, so the
    // new chat is found by what it holds, not by its place among the pages.
    await waitFor(async () => (await page.locator('.tabs-container .tab', { hasText: 'Fixture Echo' }).count()) === 3, {
      what: 'a third chat tab',
    });
    const pages = page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`);
    await waitFor(
      async () => {
        for (let i = 0; i < (await pages.count()); i++)
          if (
            (await composer(i)
              .inputValue({ timeout: 1000 })
              .catch(() => '')) === 'hi'
          )
            return true;
        return false;
      },
      { timeoutMs: 30_000, what: 'a chat with the agent picked, with the prompt in its composer' },
    );
    // By now the first link's chat has long settled (its session and the second chat's are open): no prompt ever went out.
    const prompts = readFileSync(agents['Fixture Echo']!.recordFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"session/prompt"') && (line.includes('Review **this** & that') || line.includes('"text":"hi"')));
    assert.deepEqual(prompts, [], 'no link sent its prompt');
  });

  it('finds in the chat from the keyboard, folded thoughts included, and jumps between my messages with Alt+Up and Alt+Down', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Showcase', 'first question');
    await chat.getByRole('heading', { name: 'Done' }).waitFor();
    await message.fill('second question');
    await message.press('Enter');
    await waitFor(async () => (await chat.getByRole('heading', { name: 'Done' }).count()) === 2, { timeoutMs: 30_000, what: 'the second turn' });
    const thoughts = chat.locator('details.thought');
    assert.equal(await chat.locator('details.thought[open]').count(), 0, 'the thoughts start folded');

    await message.focus();
    await page.keyboard.press('Control+f');
    const find = chat.getByRole('textbox', { name: 'Find in Chat' });
    await waitFor(() => find.evaluate((el) => el.ownerDocument.activeElement === el), { what: 'Ctrl+F to focus the find bar' });
    await page.keyboard.type('read the file first');
    const status = chat.locator('.find-status');
    // The newest match first: the second turn's thought, unfolded to show it.
    await waitFor(async () => (await status.textContent()) === '2 of 2', { what: 'both folded thoughts counted' });
    await waitFor(async () => (await thoughts.nth(1).getAttribute('open')) !== null, { what: 'the second thought unfolded' });
    await page.keyboard.press('Enter');
    await waitFor(async () => (await status.textContent()) === '1 of 2', { what: 'Enter to go to the other match' });
    await waitFor(async () => (await thoughts.nth(0).getAttribute('open')) !== null, { what: 'the first thought unfolded' });
    await page.keyboard.press('Shift+Enter');
    await waitFor(async () => (await status.textContent()) === '2 of 2', { what: 'Shift+Enter to go back' });
    await chat.getByRole('button', { name: 'Match Case' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('End'); // tabbing into the box selects its text
    await page.keyboard.type('R');
    await waitFor(async () => (await status.textContent()) === 'No results', { what: 'Match Case to find nothing for "read the file firstR"' });
    await find.press('Escape');
    await chat.locator('.find-bar').waitFor({ state: 'detached' });
    await waitFor(() => message.evaluate((el) => el.ownerDocument.activeElement === el), { what: 'Escape to give the focus back' });

    // Alt+Up from the message box: my last message, then the one before; Alt+Down comes back.
    const focusedMessage = () =>
      chat
        .locator('.message.user:focus')
        .textContent()
        .catch(() => '');
    await page.keyboard.press('Alt+ArrowUp');
    await waitFor(async () => /second question/.test((await focusedMessage()) ?? ''), { what: 'Alt+Up to my last message' });
    await page.keyboard.press('Alt+ArrowUp');
    await waitFor(async () => /first question/.test((await focusedMessage()) ?? ''), { what: 'Alt+Up to the one before' });
    await page.keyboard.press('Alt+ArrowDown');
    await waitFor(async () => /second question/.test((await focusedMessage()) ?? ''), { what: 'Alt+Down back' });
    // The outline lists them, and jumps too; its options are there once it is used (a long chat's thousands are
    // not kept in the page).
    const outline = chat.getByRole('combobox', { name: 'Jump to Your Message' });
    assert.equal(await outline.locator('option').count(), 1, 'only the list’s own line until it is used');
    await outline.focus();
    await outline.selectOption({ label: 'first question' });
    await waitFor(async () => /first question/.test((await focusedMessage()) ?? ''), { what: 'the outline to jump' });
  });

  it('edits a message in place and resends it from the keyboard, in a new session with the conversation before it', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Echo', 'the first question');
    await chat.locator('.code-block code.language-json').first().waitFor();
    await message.fill('the second question');
    await message.press('Enter');
    await waitFor(async () => (await chat.locator('.code-block code.language-json').count()) === 2, { timeoutMs: 30_000, what: 'the second answer' });

    // Shift+Tab from the message box to Edit on the last message of mine.
    await message.focus();
    const edit = chat.getByRole('button', { name: 'Edit Message' }).last();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Shift+Tab');
      reached = await edit.evaluate((button) => button.ownerDocument.activeElement === button);
    }
    assert.ok(reached, 'Shift+Tab reaches Edit Message');
    await page.keyboard.press('Enter');
    const box = chat.getByRole('textbox', { name: 'Edit your message' });
    await waitFor(() => box.evaluate((el) => el.ownerDocument.activeElement === el), { what: 'the message open for editing, focused' });
    assert.equal(await box.inputValue(), 'the second question');
    // Escape cancels, and gives the focus back to Edit.
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });
    await waitFor(() => edit.evaluate((button) => button.ownerDocument.activeElement === button), { what: 'Escape to give the focus back to Edit' });
    await page.keyboard.press('Enter');
    await waitFor(() => box.evaluate((el) => el.ownerDocument.activeElement === el).catch(() => false), { what: 'the message open again, focused' });
    await page.keyboard.press('End');
    await page.keyboard.type(', edited');
    await page.keyboard.press('Enter');
    await chat.getByText(/Resent in a new session of Fixture Echo, with the conversation before it embedded/).waitFor({ timeout: 30_000 });
    await waitFor(async () => (await chat.getByText('the second question, edited').count()) > 0, { what: 'the resent message' });
    // The agent got the edited text and the conversation before it (the first question only).
    const last = chat.locator('.code-block code.language-json').last();
    await waitFor(async () => /the second question, edited/.test((await last.textContent()) ?? ''), {
      timeoutMs: 30_000,
      what: 'the answer to the resent message',
    });
    const sent = JSON.parse((await last.textContent()) ?? '[]') as { type: string; text?: string; resource?: { text: string } }[];
    assert.equal(sent[0]?.text, 'the second question, edited');
    const before = sent.find((b) => b.type === 'resource')?.resource?.text ?? '';
    assert.match(before, /the first question/);
    assert.doesNotMatch(before, /the second question\n/);
  });

  it('forks a chat from one of my messages with Fork from Here: a new chat with that message in its composer', async () => {
    const { chat } = await workbench.chatWith('Fixture Forks', 'the first question');
    await chat.locator('.code-block code.language-json').first().waitFor();
    const mine = chat.getByRole('article', { name: 'You' }).first();
    await mine.hover();
    await mine.getByRole('button', { name: 'Fork from Here' }).click();
    const fork = workbench.chat(1).getByRole('textbox', { name: 'Message' });
    await waitFor(async () => (await fork.inputValue().catch(() => '')) === 'the first question', {
      timeoutMs: 30_000,
      what: 'the fork to open with the message in its composer',
    });
  });

  it('says that a refused prompt was left out of the agent’s context', async () => {
    const { chat } = await workbench.chatWith('Fixture Refusal', 'do something bad');
    await chat
      .getByRole('status')
      .getByText('The agent refused. Your message and everything after it were left out of the agent’s context.')
      .waitFor();
  });

  it('keeps a long conversation bounded in the page, anchored at the bottom, with earlier entries on demand', async () => {
    const { chat } = await workbench.chatWith('Fixture Flood', 'flood');
    const log = chat.getByRole('log', { name: 'Conversation' });
    await log.getByText(FLOOD_END, { exact: false }).waitFor({ timeout: 60_000 });
    const entries = () => log.locator('.entry').count();
    assert.equal(await entries(), WINDOW, 'the page holds only the latest entries of the 10,000 chunks and 200 tool calls');
    const atBottom = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 32);
    // The view goes back to the bottom in the frame after a render.
    await waitFor(atBottom, { what: 'the view to follow the stream to the end' });
    const earlier = chat.getByRole('button', { name: /^Show earlier messages \(\d+\)$/ });
    await earlier.click();
    await waitFor(async () => (await entries()) === 2 * WINDOW, { what: 'the earlier entries back in the page' });
    assert.equal(await atBottom(), false, 'what the user scrolled up to read stays in place');
  });
});
