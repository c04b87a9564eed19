// The real claude-agent-acp (pinned in test/agents/pins.ts, with the Claude Code it bundles) behind a fake Anthropic
// API, through the extension in code-server. The adapter starts every session in its mode `auto`, where it asks
// nothing: a chat at Ask must move it to its asking mode, so the edit and the command are asked, a rejected edit
// changes nothing on disk, a cancelled command leaves nothing running, and an editor tool's answer reaches the model.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { agentText, closeAllChats, newChat, workspaceFolder } from '../integration/lib/fixture';
import { FakeAnthropic } from './lib/anthropic';
import { AGENT_PINS } from './pins';

const AGENT = 'Claude Code';
const PACKAGE = '@agentclientprotocol/claude-agent-acp';

/** Waits for the agent's question, answers it with the option of `kind`, and returns its title. */
async function answer(chat: ChatHandle, kind: 'allow_once' | 'reject_once', what: string): Promise<string> {
  const request = await waitFor(() => chat.permissions[0], { what: `the question about ${what}`, timeoutMs: 60_000 });
  const option = request.options.find((o) => o.kind === kind);
  assert.ok(option, `the question offers ${kind}: ${JSON.stringify(request.options)}`);
  await chat.answerPermission(request.id, option.optionId);
  return request.title;
}

describe(`${PACKAGE} ${AGENT_PINS[PACKAGE]}, offline`, function () {
  this.timeout(180_000);
  const folder = join(workspaceFolder(), 'claude');
  const notes = join(folder, 'notes.txt');
  const model = new FakeAnthropic({
    edit: [
      { name: 'Read', input: { file_path: notes } },
      { name: 'Edit', input: { file_path: notes, old_string: 'one', new_string: 'two' } },
    ],
    write: [{ name: 'Write', input: { file_path: join(folder, 'new.txt'), content: 'written by the agent\n' } }],
    command: [{ name: 'Bash', input: { command: `echo ran > ${join(folder, 'ran.txt')}`, description: 'Write ran.txt' } }],
    slow: [{ name: 'Bash', input: { command: `sleep 120 && echo late > ${join(folder, 'late.txt')}`, description: 'Wait, then write late.txt' } }],
    tools: [
      { name: 'ToolSearch', input: { query: 'select:mcp__vscode__get_diagnostics', max_results: 5 } },
      { name: 'mcp__vscode__get_diagnostics', input: { path: join(folder, 'broken.ts') } },
    ],
  });

  before(async () => {
    const dir = process.env['ACP_AGENTS_DIR'];
    assert.ok(dir, 'the harness installs the pinned adapters (ACP_AGENTS_DIR)');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'broken.ts'), 'export const n: number = "not a number";\n');
    const url = await model.start();
    const home = mkdtempSync(join(tmpdir(), 'acp-claude-home-'));
    await vscode.workspace.getConfiguration('acp').update(
      'agents',
      {
        [AGENT]: {
          command: process.execPath,
          args: [join(dir, 'node_modules', PACKAGE, 'dist', 'index.js')],
          env: {
            ELECTRON_RUN_AS_NODE: '1',
            ANTHROPIC_BASE_URL: url,
            ANTHROPIC_API_KEY: model.key,
            HOME: home,
            CLAUDE_CONFIG_DIR: join(home, '.claude'),
            // Without it Claude Code calls its own services beside the base URL.
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false',
          },
        },
      },
      vscode.ConfigurationTarget.Global,
    );
  });
  beforeEach(() => writeFileSync(notes, 'one\n'));
  afterEach(() => closeAllChats());
  after(() => model.close());

  it('starts in auto, is moved to its Manual mode at Ask, and asks the edit and the command; allowed, they happen', async () => {
    const chat = await newChat(AGENT);
    const modeOf = () => chat.pickers.find((p) => p.id === 'mode')?.current;
    await waitFor(() => modeOf() === 'default', { what: 'the agent moved out of auto', timeoutMs: 60_000 });
    assert.equal(chat.permissionLevel.level, 'ask');
    assert.ok(chat.permissionLevel.offered.includes('agentDecides'), 'Agent decides is offered: the adapter has auto');

    const edited = chat.send('scenario:edit');
    assert.match(await answer(chat, 'allow_once', 'the edit'), /notes\.txt/);
    await within(edited, 90_000, 'the edit turn');
    assert.equal(readFileSync(notes, 'utf8'), 'two\n');
    assert.match(agentText(chat), /DONE edit: \[Read\] ok .*\| \[Edit\] ok/);

    const ran = chat.send('scenario:command');
    await answer(chat, 'allow_once', 'the command');
    await within(ran, 90_000, 'the command turn');
    assert.equal(readFileSync(join(folder, 'ran.txt'), 'utf8'), 'ran\n');
  });

  it('changes nothing on disk when the edit and the new file are rejected', async () => {
    const chat = await newChat(AGENT);
    await waitFor(() => chat.pickers.find((p) => p.id === 'mode')?.current === 'default', { what: 'the agent in Manual', timeoutMs: 60_000 });
    const edited = chat.send('scenario:edit');
    await answer(chat, 'reject_once', 'the edit');
    await within(edited, 90_000, 'the rejected edit turn');
    assert.equal(readFileSync(notes, 'utf8'), 'one\n', 'the file is as it was');
    assert.match(agentText(chat), /DONE edit: \[Read\] ok .*\| \[Edit\] error/);

    const written = chat.send('scenario:write');
    await answer(chat, 'reject_once', 'the new file');
    await within(written, 90_000, 'the rejected write turn');
    assert.equal(existsSync(join(folder, 'new.txt')), false, 'no file was created');
  });

  it('leaves nothing running when a turn is cancelled during an allowed command', async () => {
    const chat = await newChat(AGENT);
    await waitFor(() => chat.pickers.find((p) => p.id === 'mode')?.current === 'default', { what: 'the agent in Manual', timeoutMs: 60_000 });
    const slow = chat.send('scenario:slow');
    await answer(chat, 'allow_once', 'the slow command');
    const running = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes('sleep 120');
    await waitFor(running, { what: 'the command to run', timeoutMs: 30_000 });
    await chat.cancel();
    await within(slow, 30_000, 'the cancelled turn');
    await waitFor(() => !running(), { what: 'the command to end with the turn', timeoutMs: 15_000 });
    assert.equal(existsSync(join(folder, 'late.txt')), false);
  });

  it('loads the editor tools through ToolSearch and gives the model the answer of get_diagnostics', async () => {
    const chat = await newChat(AGENT);
    await waitFor(() => chat.pickers.find((p) => p.id === 'mode')?.current === 'default', { what: 'the agent in Manual', timeoutMs: 60_000 });
    const asked = chat.send('scenario:tools');
    // Claude Code asks before it calls an MCP tool in its Manual mode.
    await answer(chat, 'allow_once', 'the editor tool');
    await within(asked, 90_000, 'the tools turn');
    assert.match(agentText(chat), /DONE tools: \[ToolSearch\] ok .*\| \[mcp__vscode__get_diagnostics\] ok .*broken\.ts.*not assignable/);
  });
});
