// The parts of the protocol a client opts into, in a real extension host with the fixture agent: context compaction
// (advertised; shown where it happened, patched in place, replayed on session/load, found by Search Chats, exported),
// updates that come before the answer naming their session, the tokens each turn used, and the user's instructions.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import type { CompactionView, EntryView } from '../../src/chat/protocol';
import { waitFor, within } from '../lib/wait';
import { acpLog, answeringQuickInput, api, closeAllChats, ENTER, newChat, recorded, useFixtureAgents, workspaceFolder } from './lib/fixture';

/** What the chat shows, one line per entry. */
function shown(entries: readonly EntryView[]): string[] {
  return entries.map((e) => (e.kind === 'message' ? `${e.role}:${e.text}` : e.kind === 'tool' ? `tool:${e.title}` : `compaction:${e.status}`));
}

function compactions(chat: ChatHandle): CompactionView[] {
  return chat.entries.flatMap((e) => (e.kind === 'compaction' ? [e] : []));
}

describe('the protocol, opted into', function () {
  this.timeout(60_000);
  afterEach(async () => {
    await closeAllChats();
  });

  it('advertises compaction, shows each compaction where it happened with its summary, tokens and error, and keeps it through replay, search and export', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-compaction-state-'));
    const agents = await useFixtureAgents({ Compactor: { scenario: 'compaction', env: { ACP_FIXTURE_STATE_DIR: state } } });
    const chat = await newChat('Compactor');
    const initialize = recorded(agents['Compactor']!.recordFile).find((m) => m.method === 'initialize');
    assert.deepEqual((initialize?.params?.['clientCapabilities'] as { session?: { compaction?: unknown } }).session?.compaction, {});

    await within(chat.send('please compact'), 10_000, 'the compacting turn');
    assert.deepEqual(shown(chat.entries), [
      'user:please compact',
      'agent:Working on the parser. ',
      'compaction:completed',
      'agent:Compacted, and carrying on. COMPACT-END',
    ]);
    const [done] = compactions(chat);
    assert.equal(done?.summary, 'The user asked to fix the **ostrich** parser. We changed `parse()`.', 'the chunks, in order');
    assert.equal(done?.error, undefined, 'the error was patched away with null');
    assert.deepEqual([done?.tokensBefore, done?.tokensAfter], [150_000, 30_000]);

    await within(chat.send('now fail'), 10_000, 'the failing turn');
    const failed = compactions(chat)[1];
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.error, 'The context is too small to compact.');

    // Reopened: the agent replays the session, compactions included, and the chat shows them once.
    const sessionId = chat.sessionId!;
    const before = shown(chat.entries);
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: 'Compactor', sessionId });
    assert.ok(again, 'the session reopened');
    await waitFor(() => shown(again.entries).length === before.length, { what: 'the replay to finish' });
    assert.deepEqual(shown(again.entries), before);
    assert.deepEqual(compactions(again)[0], { ...done, id: compactions(again)[0]?.id });

    // Search Chats finds the summary's words and opens the chat at the compaction.
    const opened = await answeringQuickInput(
      () => vscode.commands.executeCommand<ChatHandle | undefined>('acp.searchChats', 'ostrich'),
      ENTER,
      'a result for "ostrich" to open',
    );
    assert.equal(opened, again);
    await waitFor(() => again.revealed !== undefined, { what: 'the match to be brought into view' });
    assert.equal(again.revealed?.kind, 'compaction');

    const file = vscode.Uri.file(join(workspaceFolder(), `compacted-chat-${Date.now()}.md`));
    try {
      await answeringQuickInput(
        () => vscode.commands.executeCommand<vscode.Uri | undefined>('acp.exportChat', undefined, file),
        ENTER,
        'the save dialog to take the suggested file',
      );
      const markdown = readFileSync(file.fsPath, 'utf8');
      assert.match(markdown, /### Context compacted\n\n_Tokens: 150,000 → 30,000_/);
      assert.match(markdown, /> The user asked to fix the \*\*ostrich\*\* parser/);
      assert.match(markdown, /### Context compaction failed\n\n_Tokens before: 30,000_\n\n_Error: The context is too small to compact\._/);
    } finally {
      if (existsSync(file.fsPath)) rmSync(file.fsPath);
    }
  });

  it('keeps the updates an agent sends for a new session before its session/new answer, and applies them once the answer names it', async () => {
    await useFixtureAgents({ Early: { scenario: 'early-commands' } });
    const chat = await newChat('Early');
    assert.deepEqual(
      chat.session.commands.map((c) => c.name),
      ['explain'],
      'the commands sent before the answer',
    );
    // What no answer claimed is dropped, and said once in the log.
    await waitFor(() => acpLog().includes('not open here: "sess-never-opened"'), { what: 'the unclaimed session in the log' });
    const second = await newChat('Early');
    assert.deepEqual(
      second.session.commands.map((c) => c.name),
      ['explain'],
    );
    assert.equal(acpLog().split('sess-never-opened').length - 1, 1, 'said once');
  });

  it('advertises plan, and keeps plans by id (entries, Markdown, a file it opens) that the agent replaces and removes, skipping a malformed one', async () => {
    const agents = await useFixtureAgents({ Planner: { scenario: 'plans' } });
    const chat = await newChat('Planner');
    const initialize = recorded(agents['Planner']!.recordFile).find((m) => m.method === 'initialize');
    assert.deepEqual((initialize?.params?.['clientCapabilities'] as { plan?: unknown }).plan, {});
    const ids = () => (chat.session.plans ?? []).map((p) => `${p.kind}:${p.id}`);
    const steps = () => {
      const plan = (chat.session.plans ?? []).find((p) => p.id === 'steps');
      return plan?.kind === 'items' ? plan.entries.map((e) => `${e.status}:${e.content}`) : [];
    };

    await within(chat.send('plans'), 10_000, 'the turn that makes plans');
    assert.deepEqual(ids(), ['items:steps', 'markdown:design', 'file:file-plan']);
    assert.deepEqual(steps(), ['in_progress:Read the parser', 'pending:Fix the off-by-one']);
    const design = chat.session.plans?.[1];
    assert.equal(design?.kind === 'markdown' && design.markdown, '## Design\n\n- keep the **parser** small');
    assert.equal(chat.session.plans?.[2]?.kind === 'file' && chat.session.plans[2].name, 'PLAN-by-id.md');
    assert.deepEqual(chat.session.plan, [], 'ACP v1’s one plan is apart from these');

    await chat.openPlan('file-plan');
    const editor = await waitFor(
      () => (vscode.window.activeTextEditor?.document.fileName.endsWith('PLAN-by-id.md') ? vscode.window.activeTextEditor : undefined),
      {
        what: 'the plan file to open in an editor',
      },
    );
    assert.match(editor.document.getText(), /# The plan in a file/);

    await within(chat.send('progress'), 10_000, 'the turn that moves the plan on');
    assert.deepEqual(steps(), ['completed:Read the parser', 'pending:Fix the off-by-one'], 'replaced whole, in place');
    assert.deepEqual(ids(), ['items:steps', 'markdown:design', 'file:file-plan']);
    await within(chat.send('remove'), 10_000, 'the turn that removes a plan');
    assert.deepEqual(ids(), ['items:steps', 'file:file-plan']);

    await within(chat.send('bad'), 10_000, 'the turn with malformed plans');
    const partly = (chat.session.plans ?? []).find((p) => p.id === 'partly');
    assert.deepEqual(
      partly?.kind === 'items' && partly.entries,
      [{ content: 'Kept', priority: 'low', status: 'pending' }],
      'the invalid entry alone is skipped',
    );
    assert.match(acpLog(), /skipped a malformed plan_update/);
  });

  it('asks session/status before reopening a chat, and loads a saved session or opens a new one for a session the agent does not know', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-status-state-'));
    const caps = { loadSession: true, sessionCapabilities: { list: {}, close: {}, resume: {}, status: {} } };
    const agents = await useFixtureAgents({
      Statused: { scenario: 'echo', env: { ACP_FIXTURE_STATE_DIR: state, ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(caps) } },
    });
    const record = agents['Statused']!.recordFile;
    const chat = await newChat('Statused');
    await within(chat.send('remember me'), 10_000, 'the first turn');
    const sessionId = chat.sessionId!;
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });

    const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: 'Statused', sessionId });
    assert.equal(again?.sessionId, sessionId);
    const reopening = recorded(record)
      .map((m) => m.method)
      .filter((m) => m === 'session/status' || m === 'session/load' || m === 'session/resume');
    assert.deepEqual(reopening, ['session/status', 'session/load'], 'a saved session is loaded, and nothing else is tried');
    again?.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the reopened chat to close' });

    const fresh = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', {
      agent: 'Statused',
      sessionId: 'sess-forgotten',
    });
    assert.ok(fresh?.sessionId && fresh.sessionId !== 'sess-forgotten', 'a new session in its place');
    assert.deepEqual(
      recorded(record)
        .filter((m) => m.method === 'session/load' || m.method === 'session/resume')
        .map((m) => m.params?.['sessionId']),
      [sessionId],
      'no load or resume for a session the agent said it does not know',
    );
    assert.match(acpLog(), /no longer knows session sess-forgotten \(session\/status\)/);
  });

  it('shows the tokens each turn used under it, and leaves out a usage the schema does not describe', async () => {
    await useFixtureAgents({ Counter: { scenario: 'usage' } });
    const chat = await newChat('Counter');
    await within(chat.send('count this'), 10_000, 'the counted turn');
    const agentEntry = chat.entries.at(-1)!;
    assert.deepEqual(chat.turn.usage, [{ after: agentEntry.id, total: 1500, input: 1200, output: 250, thought: 50, cachedRead: 800 }]);
    await within(chat.send('bad usage'), 10_000, 'the turn with a bad usage');
    assert.equal(chat.turn.usage?.length, 1, 'the bad usage is left out');
  });

  it('sends acp.instructions (text, or a workspace file) as systemPrompt to an agent that takes it, and says once that another does not', async () => {
    const config = vscode.workspace.getConfiguration('acp');
    const file = join(workspaceFolder(), `agent-instructions-${Date.now()}.md`);
    try {
      const taking = JSON.stringify({ loadSession: true, promptCapabilities: {}, sessionCapabilities: { close: {}, systemPrompt: {} } });
      const agents = await useFixtureAgents({
        Instructed: { scenario: 'echo', env: { ACP_FIXTURE_AGENT_CAPABILITIES: taking } },
        Plain: { scenario: 'echo' },
      });
      const sentTo = (name: string) =>
        recorded(agents[name]!.recordFile)
          .filter((m) => m.method === 'session/new')
          .map((m) => m.params?.['systemPrompt']);

      await config.update('instructions', 'Answer in one sentence.', vscode.ConfigurationTarget.Workspace);
      await newChat('Instructed');
      writeFileSync(file, '# Rules\n\nNever touch the lockfile.\n');
      await config.update('instructions', file.slice(workspaceFolder().length + 1), vscode.ConfigurationTarget.Workspace);
      await newChat('Instructed');
      assert.deepEqual(sentTo('Instructed'), [
        { mode: 'append', content: [{ type: 'text', text: 'Answer in one sentence.' }] },
        { mode: 'append', content: [{ type: 'text', text: '# Rules\n\nNever touch the lockfile.\n' }] },
      ]);

      const plain = await newChat('Plain');
      assert.match(plain.notice ?? '', /Your instructions \(acp\.instructions\) were not sent: this agent does not take instructions\./);
      const again = await newChat('Plain');
      assert.doesNotMatch(again.notice ?? '', /instructions/, 'said once');
      assert.deepEqual(sentTo('Plain'), [undefined, undefined]);
    } finally {
      await config.update('instructions', undefined, vscode.ConfigurationTarget.Workspace);
      if (existsSync(file)) rmSync(file);
    }
  });
});
