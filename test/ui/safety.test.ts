// The chat is safe with hostile agents, and survives a window reload: a corpus of XSS payloads in every field an
// agent controls runs nowhere and shows as text; a reloaded window brings the chat back, replayed by the agent.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { XSS_PAYLOADS } from '../fixtures/lib/chatScenarios';
import { fixtureAgents, openWorkbench, repoRoot, type Workbench } from './lib/workbench';

describe('chat safety and restore UI', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  const work = join(process.env['ACP_TEST_WORK'] ?? join(repoRoot, 'test-output', 'work', 'ui'), 'safety');
  const { settings } = fixtureAgents(work, {
    'Fixture XSS': 'xss',
    'Fixture Remembers': { scenario: 'echo', env: { ACP_FIXTURE_STATE_DIR: join(work, 'agent-state') } },
    'Fixture Forgets': { scenario: 'echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) } },
  });

  before(async () => {
    workbench = await openWorkbench('safety', { machine: { 'acp.agents': settings }, user: { 'acp.followAgent': false } });
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
  });

  it('runs none of the hostile payloads an agent sends, and shows them as text', async () => {
    const { chat } = await workbench.chatWith('Fixture XSS', 'go');
    await chat.getByRole('log').getByText('XSS-END').waitFor();
    // Open everything that starts collapsed, so its content is rendered too.
    for (const details of await chat.locator('details').all()) await details.evaluate((d) => ((d as HTMLDetailsElement).open = true));

    // In the chat's own document: what ran, and what the agent's text became.
    const report = await chat.locator('body').evaluate((body) => {
      const doc = body.ownerDocument;
      const root = doc.getElementById('root');
      const all: { tagName: string; attributes: Iterable<{ name: string }>; getAttribute(name: string): string | null }[] = [
        ...(root?.querySelectorAll('*') ?? []),
      ];
      return {
        ran: Number((doc.defaultView as unknown as { __xss?: number } | null)?.__xss ?? 0),
        title: String(doc.title),
        // VS Code adds its own script to a webview's document; none may carry the agent's text.
        agentScripts: [...doc.querySelectorAll('script')].filter((el: { textContent: string | null }) => (el.textContent ?? '').includes('__xss'))
          .length,
        forbidden: all
          .filter(
            (el) =>
              /^(script|iframe|img|svg|style|object|embed|math|textarea|form|base|meta|link)$/i.test(el.tagName) &&
              el.getAttribute('aria-label') !== 'Message',
          )
          .map((el) => el.tagName),
        handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}.${a.name}`)),
        badLinks: all
          .flatMap((el) => (el.tagName === 'A' ? [el.getAttribute('href') ?? ''] : []))
          .filter((href) => !/^(https?:|mailto:|file:|[^:]*$)/i.test(href)),
      };
    });
    assert.equal(report.ran, 0, 'no payload ran in the chat');
    assert.notEqual(report.title, 'xss');
    assert.equal(report.agentScripts, 0, 'no script from agent text');
    assert.deepEqual(report.forbidden, [], 'no element from agent text');
    assert.deepEqual(report.handlers, [], 'no event handler attribute from agent text');
    assert.deepEqual(report.badLinks, [], 'no javascript:, data: or command: link');
    assert.equal(await workbench.page.evaluate<number>('window.__xss ?? 0'), 0, 'nothing ran in the workbench either');

    // Shown as text: in titles (tool cards are named by them), option buttons, the plan and the message.
    for (const payload of XSS_PAYLOADS.slice(0, 4)) {
      // On failure, the cards the page holds: which were missing says where to look.
      const names = () => chat.getByRole('article').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      await chat
        .getByRole('article', { name: payload, exact: false })
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async () => assert.fail(`a tool card is named by ${payload}: ${JSON.stringify(await names())}`));
    }
    await chat.getByRole('button', { name: XSS_PAYLOADS[1], exact: true }).waitFor();
    await chat.getByRole('list', { name: 'Plan' }).getByText(XSS_PAYLOADS[0]!).waitFor();
    await chat.getByRole('article', { name: 'Agent' }).getByText('[command link](command:workbench.action.terminal.new)', { exact: true }).waitFor();
    await workbench.page.locator('.tabs-container .tab', { hasText: '<img src=x' }).waitFor();
    // Answer the request (its button is named by a payload) so the turn ends.
    await chat.getByRole('button', { name: XSS_PAYLOADS[4], exact: true }).click();
    await chat.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('brings a chat back after a window reload, replayed by session/load, with the draft kept', async () => {
    const { chat, message } = await workbench.chatWith('Fixture Remembers', 'remember this');
    await chat.getByRole('log').getByText('You said: remember this').waitFor();
    await message.fill('a draft I did not send');
    // The view saves its state as it changes; a reload is what the serializer is for.
    await workbench.runCommand('Developer: Reload Window');
    await workbench.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    const restored = workbench.chat();
    await restored.getByRole('log').getByText('You said: remember this').waitFor({ timeout: 60_000 });
    await restored.getByRole('article', { name: 'You' }).getByText('remember this').waitFor();
    const box = restored.getByRole('textbox', { name: 'Message' });
    assert.equal(await box.inputValue(), 'a draft I did not send');
    await box.fill('and this');
    // Send with the button, which goes where the pointer is whatever holds the keyboard after a reload; the message
    // is taken (the box empties, the message shows) before its answer is waited for.
    await restored.getByRole('button', { name: 'Send', exact: true }).click();
    await restored.getByRole('article', { name: 'You' }).getByText('and this').waitFor({ timeout: 10_000 });
    assert.equal(await box.inputValue(), '');
    // The answer comes once the prompt's gates have run (the checkpoint's at most 5 s, the level's at most 15 s).
    await restored.getByRole('log').getByText('You said: and this').waitFor({ timeout: 30_000 });
  });

  it('says so when the agent cannot reopen the chat after a reload, and starts a new session', async () => {
    const { chat } = await workbench.chatWith('Fixture Forgets', 'hello');
    await chat.getByRole('log').getByText('You said: hello').waitFor();
    await workbench.runCommand('Developer: Reload Window');
    await workbench.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 60_000 });
    const restored = workbench.chat();
    await restored
      .getByText('Fixture Forgets could not reopen this conversation, so this is a new session', { exact: false })
      .waitFor({ timeout: 60_000 });
    const box = restored.getByRole('textbox', { name: 'Message' });
    await box.fill('again');
    await box.press('Enter');
    await restored.getByRole('log').getByText('You said: again').waitFor();
  });
});
