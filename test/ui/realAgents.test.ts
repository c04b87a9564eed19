// The maintained claude-agent-acp as a user meets it (pinned in test/agents/pins.ts, behind this project's fake
// Anthropic API): it starts its sessions in `auto`, which asks nothing; the chat is at Ask, so the edit and the
// command are asked in VS Code's notifications, a Yes lets them happen, and a No changes nothing on disk.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Toolchain } from '../harness/lib/setup';
import { claudeCodeEnv, FakeAnthropic } from '../agents/lib/anthropic';
import { AGENT_PINS } from '../agents/pins';
import { openWorkbench, type Workbench } from './lib/workbench';

const PACKAGE = '@agentclientprotocol/claude-agent-acp';

describe(`${PACKAGE} ${AGENT_PINS[PACKAGE]} in the workbench, at Ask`, function () {
  this.timeout(180_000);
  let workbench: Workbench;
  let model: FakeAnthropic;
  let notes: string;
  let ran: string;

  before(async () => {
    const dir = process.env['ACP_AGENTS_DIR'];
    assert.ok(dir, 'the harness installs the pinned adapters (ACP_AGENTS_DIR)');
    const home = mkdtempSync(join(tmpdir(), 'acp-claude-ui-home-'));
    // The paths are the workspace's, known once it is made: the script reads them when a request comes.
    const paths = { notes: '', ran: '' };
    model = new FakeAnthropic({
      get edit() {
        return [
          { name: 'Read', input: { file_path: paths.notes } },
          { name: 'Edit', input: { file_path: paths.notes, old_string: 'one', new_string: 'two' } },
        ];
      },
      get command() {
        return [{ name: 'Bash', input: { command: `echo ran > ${paths.ran}`, description: 'Write ran.txt' } }];
      },
    });
    const url = await model.start();
    const toolchain = process.env['ACP_TOOLCHAIN'] ? (JSON.parse(process.env['ACP_TOOLCHAIN']) as Toolchain) : undefined;
    const agent = {
      command: toolchain?.node ?? process.execPath,
      args: [join(dir, 'node_modules', PACKAGE, 'dist', 'index.js')],
      env: claudeCodeEnv(url, model.key, home),
    };
    workbench = await openWorkbench('real-agents', { machine: { 'acp.agents': { 'Claude Code': agent } } });
    paths.notes = notes = join(workbench.workspace, 'notes.txt');
    paths.ran = ran = join(workbench.workspace, 'ran.txt');
  });

  afterEach(async function () {
    await workbench.cleanUp(this.currentTest);
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('asks the edit and the command in notifications: Yes lets them happen, No changes nothing', async () => {
    writeFileSync(notes, 'one\n');
    const { chat, message } = await workbench.chatWith('Claude Code');
    // Sent at once: the message waits until the chat's level has moved the agent out of auto.
    await message.fill('scenario:edit');
    await message.press('Enter');
    const question = await workbench.notification('Claude Code asks permission');
    await question.getByRole('button', { name: 'No', exact: true }).click();
    await chat
      .getByRole('log')
      .getByText(/DONE edit: .*\[Edit\] error/)
      .waitFor({ timeout: 90_000 });
    assert.equal(readFileSync(notes, 'utf8'), 'one\n', 'a rejected edit changes nothing');

    await message.fill('scenario:edit');
    await message.press('Enter');
    await (await workbench.notification('Claude Code asks permission')).getByRole('button', { name: 'Yes', exact: true }).click();
    await chat
      .getByRole('log')
      .getByText(/DONE edit: .*\[Edit\] ok/)
      .waitFor({ timeout: 90_000 });
    assert.equal(readFileSync(notes, 'utf8'), 'two\n');

    await message.fill('scenario:command');
    await message.press('Enter');
    await (await workbench.notification('Claude Code asks permission')).getByRole('button', { name: 'Yes', exact: true }).click();
    await chat
      .getByRole('log')
      .getByText(/DONE command: \[Bash\] ok/)
      .waitFor({ timeout: 90_000 });
    assert.ok(existsSync(ran), 'the allowed command ran');
  });
});
