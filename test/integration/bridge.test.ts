// The editor bridge beyond plain file access: diffs and review before write, permission requests and the rules the
// client keeps, following the agent through the workspace, and command output in the chat. The client-calls fixture
// plays the steps each test lists.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ToolView } from '../../src/chat/protocol';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor } from '../lib/wait';
import { acpLog, closeAllChats, recorded, runSteps, startSteps, useFixtureAgent, workspaceFolder, type Step } from './lib/fixture';

const OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

const write = (path: string, content: string): Step => ({ method: 'fs/write_text_file', params: { path, content } });
const ask = (toolCall: Record<string, unknown>): Step => ({ method: 'session/request_permission', params: { toolCall, options: OPTIONS } });
const selected = (optionId: string) => ({ outcome: { outcome: 'selected', optionId } });

function diffTabs(scheme: string): (vscode.Tab & { input: vscode.TabInputTextDiff })[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter(
      (t): t is vscode.Tab & { input: vscode.TabInputTextDiff } => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === scheme,
    );
}

async function textOf(uri: vscode.Uri): Promise<string> {
  return (await vscode.workspace.openTextDocument(uri)).getText();
}

/**
 * Once the tab model shows the chat and the other `tabs` (it catches up with the editors asynchronously), the
 * chat's webview is the active tab: nothing took the focus from it.
 */
async function expectChatActive(chat: ChatHandle, ...tabs: string[]): Promise<void> {
  // A chat's tab carries the mark of what it asks of the user (chat/attention.ts) in front of its title.
  const labels = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label.replace(/^[●✓✕⋯◷] /, '')));
  await waitFor(() => [chat.title, ...tabs].every((label) => labels().includes(label)), { what: `tabs ${[chat.title, ...tabs].join(', ')}` });
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  const layout = vscode.window.tabGroups.all.map((g) => `${g.viewColumn}${g.isActive ? '*' : ''}[${g.tabs.map((t) => t.label).join(',')}]`).join(' ');
  assert.ok(active?.input instanceof vscode.TabInputWebview, `the active tab is ${active?.label ?? 'none'}, not the chat; groups: ${layout}`);
}

/** The tool call's card in the chat. */
function toolCard(chat: ChatHandle, toolCallId?: string): ToolView {
  const card = chat.entries.find((e): e is ToolView => e.kind === 'tool' && (toolCallId === undefined || e.toolCallId === toolCallId));
  assert.ok(card, `the chat shows the tool call${toolCallId ? ` ${toolCallId}` : ''}`);
  return card;
}

async function setting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('acp').update(key, value, vscode.ConfigurationTarget.Global);
}

describe('the editor bridge', function () {
  this.timeout(30_000);
  let dir: string;

  beforeEach(async () => {
    dir = join(workspaceFolder(), `bridge-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    await useFixtureAgent('client-calls');
  });

  afterEach(async () => {
    await closeAllChats();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const key of ['edits.review', 'edits.showDiffOnPermission', 'permissions', 'followAgent']) await setting(key, undefined);
  });

  describe('review before write', () => {
    beforeEach(() => setting('edits.review', 'ask'));

    it('holds the write, shows the current text against the proposed one, and writes only after Accept', async () => {
      const file = join(dir, 'review.txt');
      writeFileSync(file, 'before\n');
      const { done } = await startSteps(write(file, 'after\n'));
      const tab = await waitFor(() => diffTabs('acp-review')[0], { what: 'the review diff' });
      assert.equal(tab.label, 'review.txt (agent edit)');
      assert.equal(tab.input.modified.query, '', 'the content is not carried in the URI');
      assert.equal(await textOf(tab.input.original), 'before\n');
      assert.equal(await textOf(tab.input.modified), 'after\n');
      assert.equal(readFileSync(file, 'utf8'), 'before\n', 'nothing is written before the user decides');
      await vscode.commands.executeCommand('acp.acceptEdit', tab.input.modified);
      assert.deepEqual(await done, [{}]);
      assert.equal(readFileSync(file, 'utf8'), 'after\n');
      await waitFor(() => diffTabs('acp-review').length === 0, { what: 'the review diff to close' });
    });

    it('holds a write for review when the workspace\u2019s settings say off (a repository or an agent can write them)', async () => {
      const config = vscode.workspace.getConfiguration('acp');
      await config.update('edits.review', 'off', vscode.ConfigurationTarget.Workspace);
      try {
        assert.equal(vscode.workspace.getConfiguration('acp').get('edits.review'), 'off', 'the workspace says off');
        const file = join(dir, 'guarded.txt');
        writeFileSync(file, 'before\n');
        const { done } = await startSteps(write(file, 'after\n'));
        await waitFor(() => diffTabs('acp-review').length === 1, { what: 'the review diff' });
        assert.equal(readFileSync(file, 'utf8'), 'before\n', 'held');
        await vscode.commands.executeCommand('acp.rejectEdit');
        await done;
        assert.equal(readFileSync(file, 'utf8'), 'before\n');
      } finally {
        await config.update('edits.review', undefined, vscode.ConfigurationTarget.Workspace);
      }
    });

    it('answers Reject with an error that says the user rejected the edit, and leaves the file alone', async () => {
      const file = join(dir, 'keep.txt');
      writeFileSync(file, 'mine\n');
      const { done } = await startSteps(write(file, 'theirs\n'));
      await waitFor(() => diffTabs('acp-review').length === 1, { what: 'the review diff' });
      await vscode.commands.executeCommand('acp.rejectEdit');
      const [result] = await done;
      assert.equal(result?.error?.code, -32600);
      assert.equal(result?.error?.message, `the user rejected the edit to ${file}; the file was not changed`);
      assert.equal(readFileSync(file, 'utf8'), 'mine\n');
    });

    it('treats closing the diff without a decision as a refusal; a new file is shown against nothing', async () => {
      const file = join(dir, 'created.txt');
      const { done } = await startSteps(write(file, 'new\n'));
      const tab = await waitFor(() => diffTabs('acp-review')[0], { what: 'the review diff' });
      assert.equal(tab.label, 'created.txt (agent edit, new file)');
      assert.equal(await textOf(tab.input.original), '');
      await vscode.window.tabGroups.close(tab);
      const [result] = await done;
      assert.match(result?.error?.message ?? '', /the user closed the diff of .*created\.txt without accepting the edit/);
      assert.throws(() => readFileSync(file), /ENOENT/);
    });
  });

  describe('permissions', () => {
    it('opens the diff of a permission request beside the chat without taking focus, and counts the request on the tab', async () => {
      const file = join(dir, 'config.json');
      const { chat, done } = await startSteps(
        ask({
          toolCallId: 'e1',
          title: 'Edit config.json',
          kind: 'edit',
          content: [{ type: 'diff', path: file, oldText: '{}\n', newText: '{"a": 1}\n' }],
        }),
      );
      const tab = await waitFor(() => diffTabs('acp-diff')[0], { what: 'the diff of the request' });
      assert.equal(tab.label, 'config.json (agent edit)');
      assert.equal(await textOf(tab.input.modified), '{"a": 1}\n');
      assert.equal(chat.title, `(1) ${chat.agentName}`);
      await expectChatActive(chat, 'config.json (agent edit)');
      const [request] = chat.permissions;
      assert.ok(request && (await chat.answerPermission(request.id, 'allow')));
      assert.deepEqual(await done, [selected('allow')]);
      assert.equal(chat.title, chat.agentName);
    });

    it('does not open the diff when acp.edits.showDiffOnPermission is off', async () => {
      await setting('edits.showDiffOnPermission', false);
      const { chat, done } = await startSteps(
        ask({ toolCallId: 'e2', title: 'Edit a', kind: 'edit', content: [{ type: 'diff', path: join(dir, 'a'), newText: 'x' }] }),
      );
      const request = await waitFor(() => chat.permissions[0], { what: 'the request' });
      await chat.answerPermission(request.id, 'reject');
      assert.deepEqual(await done, [selected('reject')]);
      assert.equal(diffTabs('acp-diff').length, 0);
    });

    it('turns an "always" answer into a rule: the same command is then answered by itself, visibly; another command is asked', async () => {
      await setting('permissions', { remember: 'session' });
      const { chat, done } = await startSteps(
        ask({ toolCallId: 'c1', title: 'npm test', kind: 'execute' }),
        ask({ toolCallId: 'c2', title: 'npm test', kind: 'execute' }),
        ask({ toolCallId: 'c3', title: 'rm -rf build', kind: 'execute' }),
      );
      const first = await waitFor(() => chat.permissions.find((p) => p.toolCallId === 'c1'), { what: 'the first request' });
      await chat.answerPermission(first.id, 'always');
      const third = await waitFor(() => chat.permissions.find((p) => p.toolCallId === 'c3'), { what: 'the request for another command' });
      await chat.answerPermission(third.id, 'reject');
      assert.deepEqual(await done, [selected('always'), selected('always'), selected('reject')]);
      const auto = toolCard(chat, 'c2');
      assert.equal(auto.autoAnswer?.option, 'Always Allow');
      assert.match(auto.autoAnswer?.reason ?? '', /^your rule \u201cAlways allow .*: running \u201cnpm test\u201d\u201d \(this chat\)$/);
      const line = await waitFor(() => /^.*\[permissions\] .*answered "Always Allow" to .* request "npm test" by your rule.*$/m.exec(acpLog())?.[0], {
        what: 'the log line',
      });
      assert.equal(line.split('[permissions]').length, 2, `tagged once: ${line}`);

      // The rule was for that chat only: a new chat asks again.
      const next = await startSteps(ask({ toolCallId: 'c4', title: 'npm test', kind: 'execute' }));
      const again = await waitFor(() => next.chat.permissions[0], { what: 'the request in the new chat' });
      await next.chat.answerPermission(again.id, 'reject');
      assert.deepEqual(await next.done, [selected('reject')]);
    });

    it('pre-approves reads inside the workspace with acp.permissions, and still asks for a read outside it', async () => {
      await setting('permissions', { read: 'allowInWorkspace' });
      const outside = mkdtempSync(join(tmpdir(), 'acp-read-'));
      try {
        const { chat, done } = await startSteps(
          ask({ toolCallId: 'r1', title: 'Read a.ts', kind: 'read', locations: [{ path: join(dir, 'a.ts') }] }),
          ask({ toolCallId: 'r2', title: 'Read secret', kind: 'read', locations: [{ path: join(outside, 'secret') }] }),
          ask({ toolCallId: 'r3', title: 'Read something', kind: 'read' }),
        );
        for (const id of ['r2', 'r3']) {
          const request = await waitFor(() => chat.permissions.find((p) => p.toolCallId === id), { what: `the request ${id}` });
          await chat.answerPermission(request.id, 'reject');
        }
        assert.deepEqual(await done, [selected('allow'), selected('reject'), selected('reject')]);
        assert.deepEqual(toolCard(chat, 'r1').autoAnswer, {
          option: 'Allow',
          reason: 'the acp.permissions setting, which allows reads inside the workspace',
        });
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('answers a waiting request "cancelled" when its chat closes', async () => {
      const fixture = await useFixtureAgent('client-calls', { name: 'Closing' });
      // Another chat keeps the agent running, so it is there to hear the answer.
      const other = await startSteps();
      await other.done;
      const { chat } = await startSteps(ask({ toolCallId: 'x', title: 'npm publish', kind: 'execute' }));
      await waitFor(() => chat.permissions.length === 1, { what: 'the request' });
      chat.close();
      await waitFor(
        () => recorded(fixture.recordFile).some((m) => JSON.stringify(m.result) === JSON.stringify({ outcome: { outcome: 'cancelled' } })),
        { what: 'the agent to get "cancelled"' },
      );
    });
  });

  describe('following the agent', () => {
    function numbered(name: string): string {
      const file = join(dir, name);
      writeFileSync(file, Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n'));
      return file;
    }
    const at = (toolCallId: string, path: string, line: number): Step => ({
      update: { sessionUpdate: 'tool_call', toolCallId, title: `Read ${path}`, kind: 'read', status: 'in_progress', locations: [{ path, line }] },
    });

    it('opens the file at the reported line (1-based) in a preview editor, and the chat keeps the focus', async () => {
      const file = numbered('follow.txt');
      const { chat, done } = await startSteps(at('f1', file, 12));
      await done;
      const editor = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === file), {
        what: 'the followed file to show',
      });
      assert.equal(editor.selection.active.line, 11);
      const tab = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file);
      assert.equal(tab?.isPreview, true);
      await expectChatActive(chat, 'follow.txt');
    });

    it('leaves the editor alone while the user types, and does nothing with acp.followAgent off', async () => {
      const mine = numbered('mine.txt');
      const elsewhere = numbered('elsewhere.txt');
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(mine));
      await vscode.commands.executeCommand('type', { text: 'typing ' });
      await runSteps(at('f2', elsewhere, 3));
      // The user's editor stays where it is (the new chat may have the focus: it opens with it).
      assert.ok(
        vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === mine),
        'the editor the user types in is still shown',
      );
      assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === elsewhere), 'the agent did not switch editors');

      await setting('followAgent', false);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await closeAllChats();
      await runSteps(at('f3', elsewhere, 3));
      assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === elsewhere), 'nothing followed');
    });
  });

  describe('command output in the chat', () => {
    it('shows a client terminal\u2019s output in its tool card without escapes, with its exit, after release too', async () => {
      const { chat, done } = await startSteps(
        { method: 'terminal/create', params: { command: "printf '\\033[31mred\\033[0m done\\n'" } },
        {
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 't1',
            title: 'printf',
            kind: 'execute',
            status: 'in_progress',
            content: [{ type: 'terminal', terminalId: '$terminalId' }],
          },
        },
        { method: 'terminal/wait_for_exit', params: { terminalId: '$terminalId' } },
        { method: 'terminal/release', params: { terminalId: '$terminalId' } },
      );
      const [created, waited, released] = await done;
      assert.equal(typeof created?.['terminalId'], 'string');
      assert.deepEqual([waited, released], [{ exitCode: 0, signal: null }, {}]);
      assert.deepEqual(toolCard(chat).terminals, [{ id: created!['terminalId'], output: 'red done\n', truncated: false, exit: { code: 0 } }]);
    });

    it('shows the output of commands the agent runs itself (_meta.terminal_output / terminal_exit)', async () => {
      const steps: Step[] = [
        {
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 'call_9',
            title: 'ls',
            kind: 'execute',
            status: 'in_progress',
            content: [{ type: 'terminal', terminalId: 'call_9' }],
            _meta: { terminal_info: { terminal_id: 'call_9' } },
          },
        },
        {
          update: {
            sessionUpdate: 'tool_call_update',
            toolCallId: 'call_9',
            _meta: { terminal_output: { terminal_id: 'call_9', data: 'a.txt\r\n' } },
          },
        },
        {
          update: {
            sessionUpdate: 'tool_call_update',
            toolCallId: 'call_9',
            _meta: { terminal_output: { terminal_id: 'call_9', data: '\u001b[1mb.txt\u001b[0m\r\n' } },
          },
        },
        {
          update: {
            sessionUpdate: 'tool_call_update',
            toolCallId: 'call_9',
            status: 'completed',
            _meta: { terminal_exit: { terminal_id: 'call_9', exit_code: 1, signal: null } },
          },
        },
      ];
      const { chat, done } = await startSteps(...steps);
      await done;
      assert.deepEqual(toolCard(chat).terminals, [{ id: 'call_9', output: 'a.txt\nb.txt\n', truncated: false, exit: { code: 1 } }]);
    });
  });
});
