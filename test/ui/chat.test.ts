// The walking skeleton as a user drives it: the palette, the chat webview and an editor notification.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../lib/wait';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

describe('chat UI', function () {
  this.timeout(120_000);
  let workbench: Workbench;
  const { settings, agents } = fixtureAgents(join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'chat'), {
    'Fixture Slow': 'slow',
    'Fixture Permission': 'permission',
    'Fixture Crash': 'crash',
  });

  before(async () => {
    workbench = await openWorkbench('chat', { machine: { 'acp.agents': settings } });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('opens a chat from the palette, streams the agent text as it arrives, and stops the turn', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Slow');
    await message.fill('first line');
    await message.press('Shift+Enter');
    await message.pressSequentially('second line');
    assert.equal(await message.inputValue(), 'first line\nsecond line', 'Shift+Enter adds a newline instead of sending');
    await message.press('Enter');

    // "thinking" is streamed while the turn is still running: the Stop button proves the turn has not ended.
    await chat.getByRole('log').getByText('thinking').waitFor();
    const stop = chat.getByRole('button', { name: 'Stop' });
    await stop.waitFor();
    assert.equal(await message.inputValue(), '', 'the sent message left the composer');
    await chat.getByText('first line\nsecond line').waitFor();

    await stop.click();
    await chat.getByText('Stopped.').waitFor();
    await chat.getByRole('button', { name: 'Send' }).waitFor();
    const record = agents['Fixture Slow']!.recordFile;
    await waitFor(() => existsSync(record) && readFileSync(record, 'utf8').includes('"session/cancel"'), {
      what: 'session/cancel to reach the agent',
    });
  });

  it('answers a permission request with the option clicked in the notification', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Permission');
    await message.fill('please write the notes');
    await message.press('Enter');

    const toast = workbench.page.locator('.notifications-toasts .notification-toast', {
      hasText: 'Fixture Permission asks permission \u2014 Edit: Write notes.txt',
    });
    await toast.waitFor();
    await toast.getByRole('button', { name: 'Always Allow' }).click();

    await chat.getByRole('log').getByText('outcome:always').waitFor();
    await chat.getByRole('button', { name: 'Send' }).waitFor();
    const sent = readFileSync(agents['Fixture Permission']!.recordFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"outcome"'))
      .map((line) => JSON.parse(line) as { result?: unknown });
    assert.deepEqual(
      sent.map((m) => m.result),
      [{ outcome: { outcome: 'selected', optionId: 'always' } }],
    );
    await toast.waitFor({ state: 'detached' });
  });

  it('shows an agent that crashed in the chat, with its exit code and stderr, and keeps an unsent draft', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Crash');
    await message.fill('go');
    await message.press('Enter');
    const error = chat.getByRole('alert', { name: 'Agent stopped' });
    await error.getByText('The agent exited with code 3: giving up').waitFor();
    await error.getByText('fatal: lost the connection to the model').waitFor();
    await error.getByRole('button', { name: 'Show Log' }).waitFor();

    await message.fill('are you there?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText('Not sent: the agent is not running').waitFor();
    assert.equal(await message.inputValue(), 'are you there?', 'the draft is given back');

    // Restart Agent: a new process; this agent cannot reopen the session it lost, so the chat says so and keeps
    // the earlier messages above a divider.
    await error.getByRole('button', { name: 'Restart Agent' }).click();
    await chat.getByText('Fixture Crash could not reopen this conversation, so this is a new session', { exact: false }).waitFor();
    await error.waitFor({ state: 'detached' });
    await chat.getByRole('separator').getByText('The agent was restarted here').waitFor();
    await chat.getByRole('article', { name: 'You' }).getByText('go', { exact: true }).waitFor();
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByRole('log').getByText('working').nth(1).waitFor();
  });
});
