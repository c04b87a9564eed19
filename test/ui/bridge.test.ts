// What the user sees of the editor bridge: the review diff with Accept/Reject, permission notifications with their
// attention signals and the rules they leave, following the agent, and command output with Show in Terminal.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

const OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

describe('editor bridge UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const { settings } = fixtureAgents(join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'bridge'), {
    'Fixture Calls': 'client-calls',
  });

  before(async () => {
    workbench = await openWorkbench('bridge', {
      machine: { 'acp.agents': settings },
      user: {
        'acp.defaultAgent': 'Fixture Calls',
        'acp.edits.review': 'ask',
        // The DOM renderer puts the terminal's text in the page, where the test can read it.
        'terminal.integrated.gpuAcceleration': 'off',
      },
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      const dir = await workbench.saveFailure(this.currentTest.fullTitle());
      process.stdout.write(`      saved the screenshot and logs to ${dir}\n`);
    }
    try {
      await workbench.runCommand('View: Close All Editors');
    } catch (error) {
      process.stdout.write(
        `      saved the screenshot and logs to ${await workbench.saveFailure(`after ${this.currentTest?.fullTitle() ?? 'a test'}`)}\n`,
      );
      throw error;
    }
  });

  after(async () => {
    await workbench?.close();
  });

  const send = (steps: unknown[]) => workbench.sendInNewChat(JSON.stringify(steps));

  const toast = (text: string) => workbench.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  const tab = (label: string) => workbench.page.locator('.tabs-container .tab', { hasText: label });

  it('holds a write for review: Accept in the diff title writes it, Reject in the notification refuses the next', async () => {
    const file = join(workbench.workspace, 'review.txt');
    writeFileSync(file, 'before\n');
    const write = { method: 'fs/write_text_file', params: { path: file, content: 'after\n' } };
    const chat = await send([write, write]);
    await tab('review.txt (agent edit)').waitFor();
    assert.equal(readFileSync(file, 'utf8'), 'before\n');
    // The diff opened without taking focus; VS Code shows title actions for the group the user is in.
    await workbench.page
      .locator('.monaco-diff-editor .editor.modified .view-line', { hasText: /^after$/ })
      .first()
      .click();
    await workbench.page.locator('.editor-actions').getByRole('button', { name: 'Accept Edit' }).click();
    await chat.getByRole('log').getByText('fs/write_text_file:{}').waitFor();
    assert.equal(readFileSync(file, 'utf8'), 'after\n');

    await toast('Fixture Calls wants to edit review.txt').getByRole('button', { name: 'Reject' }).click();
    await chat.getByRole('log').getByText('the user rejected the edit to').waitFor();
    await tab('review.txt (agent edit)').waitFor({ state: 'detached' });
  });

  it('asks permission in a notification naming the agent, kind and title, with Show Diff; the tab and status bar count it', async () => {
    const chat = await send([
      {
        method: 'session/request_permission',
        params: {
          toolCall: {
            toolCallId: 'e1',
            title: 'Edit config.json',
            kind: 'edit',
            content: [{ type: 'diff', path: join(workbench.workspace, 'config.json'), oldText: '{}\n', newText: '{ "a": 1 }\n' }],
          },
          options: OPTIONS,
        },
      },
    ]);
    const question = toast('Fixture Calls asks permission \u2014 Edit: Edit config.json');
    await question.waitFor();
    for (const name of ['Allow', 'Always Allow', 'Reject', 'Show Diff']) await question.getByRole('button', { name, exact: true }).waitFor();
    await tab('config.json (agent edit)').waitFor(); // opened beside, on its own
    await tab('(1) Fixture Calls').waitFor();
    await workbench.page.getByRole('button', { name: '1 permission request waiting' }).waitFor();

    // Answered in the chat: the badge goes, and the stale notification's buttons do nothing.
    await chat.getByRole('group', { name: 'Permission: Edit config.json' }).getByRole('button', { name: 'Allow', exact: true }).click();
    await chat.getByRole('log').getByText('session/request_permission:{"outcome":{"outcome":"selected","optionId":"allow"}}').waitFor();
    await tab('(1) Fixture Calls').waitFor({ state: 'detached' });
    await question.getByRole('button', { name: 'Reject', exact: true }).click();
    await chat.getByRole('article', { name: /^Edit config\.json/ }).waitFor();
  });

  it('tells the user about a request that arrived while the browser window was in the background', async () => {
    await workbench.runCommand('ACP: New Chat');
    const message = workbench.chat().getByRole('textbox', { name: 'Message' });
    await message.fill(
      JSON.stringify([
        {
          method: 'session/request_permission',
          params: { toolCall: { toolCallId: 'bg', title: 'npm run deploy', kind: 'execute' }, options: OPTIONS },
        },
      ]),
    );
    // Headless Chromium keeps every page focused, so the window's blur and focus are played in the page itself.
    const setFocus = (focused: boolean) =>
      workbench.page.evaluate(
        `document.hasFocus = () => ${focused}; window.dispatchEvent(new FocusEvent('${focused ? 'focus' : 'blur'}')); document.dispatchEvent(new Event('visibilitychange'))`,
      );
    await setFocus(true);
    await setFocus(false);
    await message.press('Enter');
    await toast('Fixture Calls asks permission \u2014 Run command: npm run deploy').waitFor();
    await setFocus(true);
    const back = await workbench.notification('While VS Code was in the background, Fixture Calls is waiting for your permission.');
    await back.getByRole('button', { name: 'Show Chat' }).waitFor();
    await workbench.page.keyboard.press('Escape'); // the notification centre, if it was opened
    await workbench.chat().getByRole('group', { name: 'Permission: npm run deploy' }).getByRole('button', { name: 'Reject', exact: true }).click();
    await workbench.chat().getByRole('log').getByText('session/request_permission:{"outcome":{"outcome":"selected","optionId":"reject"}}').waitFor();
  });

  it('remembers an "always" answer as a rule that answers the next request, and revokes it from Manage Permission Rules', async () => {
    const ask = {
      method: 'session/request_permission',
      params: { toolCall: { toolCallId: 'c', title: 'npm test', kind: 'execute' }, options: OPTIONS },
    };
    const chat = await send([ask, { ...ask, params: { ...ask.params, toolCall: { toolCallId: 'c2', title: 'npm test', kind: 'execute' } } }]);
    await toast('Fixture Calls asks permission \u2014 Run command: npm test').getByRole('button', { name: 'Always Allow' }).click();
    await chat.getByText(/Always Allow, answered by your rule .*Always allow Fixture Calls: running .npm test.. \(this workspace\)/).waitFor();

    await workbench.runCommand('ACP: Manage Permission Rules…');
    await workbench.pick('Always allow Fixture Calls: running \u201cnpm test\u201d', { check: true });
    await workbench.page.keyboard.press('Enter');
    await toast('Revoked: Always allow Fixture Calls: running \u201cnpm test\u201d.').waitFor();
    // The quick pick that closed gives the keyboard back to the chat, through the webview's frames, a few turns later:
    // a palette opened before that lands loses the keyboard to the chat.
    const message = chat.getByRole('textbox', { name: 'Message' });
    await waitFor(() => message.evaluate((box) => box.ownerDocument.hasFocus()), { what: 'the keyboard back in the chat' });
    await workbench.runCommand('ACP: Manage Permission Rules…');
    await toast('There are no permission rules.').waitFor();
  });

  it('follows the agent to a line without taking focus, and tells the chat instead while the user types', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n');
    writeFileSync(join(workbench.workspace, 'follow.txt'), lines);
    writeFileSync(join(workbench.workspace, 'elsewhere.txt'), lines);
    const at = (toolCallId: string, name: string, line: number) => ({
      update: {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: `Read ${name}`,
        kind: 'read',
        status: 'in_progress',
        locations: [{ path: join(workbench.workspace, name), line }],
      },
    });
    const chat = await send([at('f1', 'follow.txt', 40)]);
    await workbench.page.locator('.tabs-container .tab .monaco-icon-label.italic', { hasText: 'follow.txt' }).waitFor(); // a preview tab
    await workbench.page.locator('.editor-instance .view-line', { hasText: /^line\u00a040$/ }).waitFor();
    await workbench.page.getByRole('button', { name: 'Following the agent' }).waitFor();
    assert.equal(await chat.locator('textarea:focus').count(), 1, 'the composer kept the focus');

    // Typing in an editor: the agent's next location shows in the chat, and the editor stays.
    await workbench.runCommand('View: Close All Editors');
    await workbench.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'follow.txt' }).dblclick();
    const chat2 = await send([
      { method: 'session/request_permission', params: { toolCall: { toolCallId: 'gate', title: 'Go on', kind: 'other' }, options: OPTIONS } },
      at('f2', 'elsewhere.txt', 3),
    ]);
    const gate = toast('Fixture Calls asks permission \u2014 Tool: Go on');
    await gate.waitFor();
    await workbench.page.locator('.editor-instance .monaco-editor').first().click();
    await workbench.page.keyboard.type('typing');
    await gate.getByRole('button', { name: 'Allow', exact: true }).click();
    await chat2.getByText('The agent is at elsewhere.txt:3; the editor stayed where you are typing.').waitFor();
    assert.equal(await tab('elsewhere.txt').count(), 0);
  });

  it('streams a command\u2019s output into its card without escapes, and mirrors it in a terminal', async () => {
    const chat = await send([
      { method: 'terminal/create', params: { command: "printf '\\033[31mred\\033[0m done\\n'" } },
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 't1',
          title: 'printf colours',
          kind: 'execute',
          status: 'in_progress',
          content: [{ type: 'terminal', terminalId: '$terminalId' }],
        },
      },
      { method: 'terminal/wait_for_exit', params: { terminalId: '$terminalId' } },
    ]);
    const card = chat.getByRole('article', { name: /^printf colours/ });
    const output = card.getByLabel('Output of printf colours');
    await output.getByText('red done').waitFor();
    assert.ok(!(await output.innerText()).includes('\u001b') && !(await output.innerText()).includes('[31m'), 'no escape sequences');
    await card.getByText('exit code 0').waitFor();
    await card.getByRole('button', { name: 'Show in Terminal' }).click();
    await workbench.page.locator('.terminal-wrapper .xterm-rows', { hasText: 'red done' }).waitFor();
  });
});
