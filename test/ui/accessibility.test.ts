// The chat as a screen reader and a keyboard user meet it: axe-core scans a chat with everything on screen (a rich
// turn, the composer, a changes card, a compaction marker, a queued message, a question form, a subagent card with
// its permission request) in the light, dark and high-contrast themes, in an editor tab and in the side bar, and fails on any
// violation; then the same chat is operated from the keyboard alone, every stop showing its focus.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { report, scan } from './lib/axe';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const THEMES = [
  { id: 'Light Modern', body: 'vscode-light' },
  { id: 'Dark Modern', body: 'vscode-dark' },
  { id: 'Dark High Contrast', body: 'vscode-high-contrast' },
] as const;

/** The methods the client sent a fixture agent, in order (its record file). */
function sent(recordFile: string): string[] {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const method = (JSON.parse(line) as { method?: unknown }).method;
      return typeof method === 'string' ? [method] : [];
    });
}

describe('accessibility', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  const workDir = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'accessibility');
  const { settings, agents } = fixtureAgents(workDir, {
    'Fixture Everything': 'everything',
    'Fixture Background': 'background',
    'Fixture V2': { scenario: 'v2-cancel-tool', env: { ACP_FIXTURE_V2: '1' } },
    'Fixture Planner': 'planReview',
  });
  settings['Fixture V2'] = { ...(settings['Fixture V2'] as object), protocol: 'v2' };

  before(async () => {
    workbench = await openWorkbench('accessibility', {
      machine: { 'acp.agents': settings },
      user: { 'files.autoSave': 'off', 'acp.followAgent': false, 'acp.chat.whileBusy': 'queue' },
    });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  /** Picks a color theme as the user does (Preferences: Color Theme), and waits until the chat has it. */
  async function theme(chat: FrameLocator, label: string, bodyClass: string): Promise<void> {
    const page = workbench.page;
    const themed = chat.locator(`body.${bodyClass}`);
    await workbench.runCommand('Preferences: Color Theme');
    // Typed into the filter: the list is virtual, so a theme far down it has no row until it is filtered to.
    await page.locator('.quick-input-widget .quick-input-box input').fill(label, { timeout: 10_000 });
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await themed.waitFor({ timeout: 10_000 });
  }

  /**
   * A chat with everything on screen: the showcase turn and its changes card, then a turn that waits on a subagent's
   * permission request and a question form, with a message queued behind it. Typed from the keyboard.
   */
  async function everything(): Promise<{ chat: FrameLocator; message: Locator }> {
    const { chat, message } = await workbench.chatWith('Fixture Everything', 'first');
    await chat.getByRole('heading', { name: 'Done' }).waitFor();
    await chat.getByRole('region', { name: 'Changes of this turn' }).waitFor();
    await chat.getByLabel(/^Tokens this turn: 41,000 in/).waitFor();
    await message.focus();
    await workbench.page.keyboard.type('second');
    await workbench.page.keyboard.press('Enter');
    await chat.getByRole('region', { name: 'Context compacted, 48,200 → 9,000 tokens' }).waitFor();
    await chat.getByRole('group', { name: /asks: How should the project be set up\?/ }).waitFor();
    await chat.locator('details.subagent', { hasText: 'Researcher' }).waitFor();
    await message.focus();
    await workbench.page.keyboard.type('then update the docs');
    await workbench.page.keyboard.press('Enter');
    await chat.getByRole('region', { name: 'Queued messages' }).getByText('then update the docs').waitFor();
    return { chat, message };
  }

  /** Presses Tab (or Shift+Tab) until `target` has the focus; every stop on the way must show its focus. */
  async function tabTo(chat: FrameLocator, target: Locator, backwards = false): Promise<void> {
    const page = workbench.page;
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
      const stop = await chat.locator('body').evaluate((body) => {
        const el = body.ownerDocument.activeElement as HTMLElement | null;
        if (!el || el === body) return undefined;
        const style = getComputedStyle(el);
        const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
        const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
        const border = el.matches('textarea, input, select');
        return {
          what: `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 60)}"`,
          shows: ring || shadow || border,
        };
      });
      if (stop) assert.ok(stop.shows, `the focus shows on ${stop.what}`);
      if (await target.evaluate((el) => el.ownerDocument.activeElement === el)) return;
    }
    assert.fail(`Tab did not reach ${String(target)}`);
  }

  it('finds no violations in a chat with everything on screen, in light, dark and high contrast, in a tab and in the side bar', async () => {
    const { chat } = await everything();
    // Open what is folded, so its content is scanned too: the thought, and the subagent card.
    await chat.locator('body').evaluate((body) => body.querySelectorAll('details').forEach((d) => (d.open = true)));
    // The find bar too, with its matches painted and its count.
    await chat.getByRole('textbox', { name: 'Message' }).focus();
    await workbench.page.keyboard.press('Control+f');
    await chat.getByRole('textbox', { name: 'Find in Chat' }).fill('date');
    await waitFor(async () => /of/.test((await chat.locator('.find-status').textContent()) ?? ''), { what: 'the find bar to count' });
    const found: string[] = [];
    for (const { id, body } of THEMES) {
      await theme(chat, id, body);
      const violations = await scan(chat);
      if (violations.length > 0) found.push(report(`editor tab, ${id}`, violations));
    }
    await workbench.runCommand('ACP: Move Chat to Side Bar');
    const side = workbench.chat();
    await side.getByRole('region', { name: 'Queued messages' }).waitFor();
    // The move gives the chat the keyboard, as the command's user expects (VS Code focuses the view once its page has
    // loaded); the palette is opened only after that, so the chat's focus cannot land in the palette.
    const moved = side.getByRole('textbox', { name: 'Message' });
    await waitFor(() => moved.evaluate((box) => box.ownerDocument.hasFocus() && box === box.ownerDocument.activeElement), {
      timeoutMs: 15_000,
      what: 'the moved chat to have the keyboard',
    });
    for (const { id, body } of THEMES) {
      await theme(side, id, body);
      const violations = await scan(side);
      if (violations.length > 0) found.push(report(`side bar, ${id}`, violations));
    }
    // Back to a tab, with the side bar put away, so that the next test starts from an empty workbench.
    const page = workbench.page;
    await workbench.runCommand('ACP: Move Chat to Editor');
    await page.locator('.tabs-container .tab', { hasText: 'Fixing the date test' }).waitFor();
    await workbench.hideSideBar();
    assert.deepEqual(found, [], found.join('\n\n'));
  });

  it('is operable from the keyboard alone, and shows where the focus is at every stop', async () => {
    const { chat, message } = await everything();
    const page = workbench.page;
    // The compaction's summary, unfolded from the keyboard.
    const compaction = chat.getByRole('region', { name: /^Context compacted/ });
    await message.focus();
    await tabTo(chat, compaction.locator('summary'), true);
    await page.keyboard.press('Enter');
    await compaction.getByText('test; next, the docs.').waitFor();

    // The queued message goes first: once the turn ends it would be sent.
    await message.focus();
    await tabTo(chat, chat.getByRole('button', { name: 'Remove queued message' }), true);
    await page.keyboard.press('Enter');
    await chat.getByRole('region', { name: 'Queued messages' }).waitFor({ state: 'detached' });

    // The subagent's permission request, in its card.
    await message.focus();
    const card = chat.locator('details.subagent', { hasText: 'Researcher' });
    await tabTo(chat, card.locator('summary'), true);
    if (!(await card.evaluate((d) => (d as HTMLDetailsElement).open))) await page.keyboard.press('Enter');
    await tabTo(chat, card.getByRole('button', { name: 'Allow' }));
    await page.keyboard.press('Enter');
    await card.getByRole('group', { name: /^Permission/ }).waitFor({ state: 'detached' });

    // The question: a name typed, a choice made with the arrows, then Submit.
    const form = chat.getByRole('group', { name: /asks: How should the project be set up\?/ });
    await message.focus();
    await tabTo(chat, form.getByRole('textbox', { name: /Name/ }), true);
    await page.keyboard.type('Ada');
    await tabTo(chat, form.getByRole('button', { name: 'Submit' }));
    await page.keyboard.press('Enter');
    await chat.getByRole('log', { name: 'Conversation' }).getByText('All set.').waitFor();

    // The changes card: Keep, from the keyboard.
    const changes = chat.getByRole('region', { name: 'Changes of this turn' }).first();
    await message.focus();
    await tabTo(chat, changes.getByRole('button', { name: 'Keep' }), true);
    await page.keyboard.press('Enter');
    await changes.getByRole('button', { name: /· kept/ }).waitFor();
  });

  it('shows the work that outlives a turn without violations, asks before Stop Agent or a closed tab ends it, and stops it from the keyboard alone', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Background', 'serve');
    const page = workbench.page;
    const strip = chat.getByRole('region', { name: 'Running in background (2)' });
    await strip.getByText('serving on http://localhost:5173').waitFor();
    await page.locator('.tabs-container .tab', { hasText: /^◷ / }).first().waitFor();
    const violations = await scan(chat);
    assert.deepEqual(violations, [], report('background work', violations));
    // The Sessions view says so on the chat's row, and counts the chat on its agent's.
    const container = page.locator('.activitybar').getByRole('tab', { name: /ACP/ });
    if (!(await page.getByRole('tree', { name: 'Sessions' }).isVisible())) await container.click();
    const rows = page.getByRole('tree', { name: 'Sessions' }).getByRole('treeitem');
    await rows.filter({ hasText: 'working in background' }).waitFor();
    await rows.filter({ hasText: '1 in background' }).waitFor();
    await workbench.hideSideBar();

    // Stop Agent asks first, naming what would end with it; Escape keeps it all running.
    await workbench.runCommand('ACP: Stop Agent…');
    const dialog = page.locator('.monaco-dialog-box');
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Fixture Background' });
    await dialog.or(row).first().waitFor();
    if (await row.isVisible()) await row.click(); // another agent still runs: the list comes first
    await dialog.getByText('2 things still run in the background: "npm run dev", "Watch the tests". Stop Agent will stop them.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await strip.getByRole('button', { name: 'Stop npm run dev' }).waitFor();

    // The server, stopped: its item goes, the strip counts one, and the focus is on the item now in its place.
    await message.focus();
    await tabTo(chat, strip.getByRole('button', { name: 'Stop npm run dev' }), true);
    await page.keyboard.press('Enter');
    const rest = chat.getByRole('region', { name: 'Running in background (1)' });
    await rest.getByText('Only the agent can stop it').waitFor();
    const focused = (target: Locator) => target.evaluate((el) => el.ownerDocument.activeElement === el);
    const dismiss = rest.getByRole('button', { name: 'Dismiss Watch the tests' });
    await waitFor(() => focused(dismiss), { what: 'the focus on the item in the stopped one’s place' });
    await chat.getByRole('status').filter({ hasText: 'npm run dev no longer runs in the background' }).waitFor();
    // What only the agent can stop, dismissed: the strip goes, and the focus with it to the composer.
    await page.keyboard.press('Enter');
    await rest.waitFor({ state: 'detached' });
    await waitFor(() => focused(message), { what: 'the focus in the composer' });
    await chat.getByRole('status').filter({ hasText: 'Nothing runs in the background any more' }).waitFor();

    // VS Code cannot ask before a tab closes: the server runs on, its session open, until the user answers; Stop ends both.
    await message.focus();
    await page.keyboard.type('serve');
    await page.keyboard.press('Enter');
    await chat.getByRole('region', { name: 'Running in background (2)' }).getByText('serving on http://localhost:5173').waitFor();
    const closes = () => sent(agents['Fixture Background']!.recordFile).filter((method) => method === 'session/close').length;
    await workbench.runCommand('View: Close Editor');
    const toast = page.locator('.notification-toast', {
      hasText: 'You closed "Fixture Background", and "npm run dev" still runs in the background.',
    });
    await toast.waitFor();
    assert.equal(closes(), 0, 'the session stays open while its server runs');
    await toast.getByRole('button', { name: 'Stop' }).click();
    await waitFor(() => closes() === 1, { what: 'the session to close once the user said Stop' });
  });

  it('over ACP v2, stops one tool call from its card with the keyboard alone, without violations, and the turn goes on', async () => {
    const { chat, message } = await workbench.chatWith('Fixture V2', 'search');
    const card = chat.getByRole('article', { name: /Search the whole disk/ });
    const stop = card.getByRole('button', { name: 'Stop Search the whole disk' });
    await stop.waitFor();
    const violations = await scan(chat);
    assert.deepEqual(violations, [], report('a tool card with Stop', violations));
    await message.focus();
    await tabTo(chat, stop, true);
    await workbench.page.keyboard.press('Enter');
    await chat.getByRole('article', { name: 'Search the whole disk (cancelled)' }).waitFor();
    await stop.waitFor({ state: 'detached' });
    // The turn went on: the agent's answer after the stopped call, shown (and read out by the live region).
    await chat.getByRole('article', { name: 'Agent' }).getByText('The search was stopped, so I looked in the project instead.').waitFor();
  });

  it('reviews a plan in an editor with the keyboard alone: each answer says what it does, and a comment goes back as feedback', async () => {
    const page = workbench.page;
    const { chat, message } = await workbench.chatWith('Fixture Planner', 'plan the fix');
    const card = chat.getByRole('group', { name: 'Permission: Approve Plan' });
    const open = card.getByRole('button', { name: 'Open Plan in Editor' });
    await open.waitFor();
    // Each answer with what it does, read with its button: "clear context" says the conversation is forgotten.
    const clear = card.getByRole('button', { name: 'Yes, clear context (12% used) and auto-accept edits' });
    assert.match((await clear.getAttribute('aria-describedby')) ?? '', /^plan-option-/);
    await card.getByText(/Approve the plan and clear the context: the conversation so far is forgotten/).waitFor();
    await card.getByText(/Keep planning: nothing changes/).waitFor();
    const violations = await scan(chat);
    assert.deepEqual(violations, [], report('a plan approval', violations));
    await message.focus();
    await tabTo(chat, open, true);
    await page.keyboard.press('Enter');
    // The plan, read-only Markdown beside the chat.
    const editor = page.locator('.editor-instance .monaco-editor', { hasText: 'Add a failing test' }).first();
    await editor.waitFor();
    await page.locator('.tab', { hasText: 'Plan.md' }).first().waitFor();
    await page.keyboard.type('x');
    await page.getByText('Cannot edit in read-only editor').first().waitFor();
    await workbench.runCommand('Go to Line/Column...');
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    await workbench.runCommand('Comments: Add Comment on Current Selection');
    const widget = page.locator('.review-widget').first();
    await widget.waitFor();
    await page.keyboard.type('Test the parser, not the lexer.');
    await page.keyboard.press('Control+Enter');
    await widget.getByText('Test the parser, not the lexer.').waitFor();
    await workbench.runCommand('ACP: Send Feedback on Plan');
    // The approval is answered "keep planning", and the comment goes as the next message, with the line it is about.
    await chat.getByRole('article', { name: 'Agent' }).getByText('outcome:reject').waitFor();
    await chat.getByRole('article', { name: 'You' }).filter({ hasText: 'Feedback on your plan:' }).waitFor();
    await chat
      .getByRole('article', { name: 'Agent' })
      .getByText(/revising:Feedback on your plan: \| - Line 4 \(“2\. Add a failing test”\): Test the parser, not the lexer\./)
      .waitFor();
    await widget.waitFor({ state: 'detached' });
  });
});
