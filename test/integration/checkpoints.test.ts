// Checkpoints: whatever an agent changed in a turn (its own disk writes, the commands it ran, writes through the
// client) shows in the turn's changes card, and the user can undo, redo and restore it without losing their own
// work. The fixture agent plays the prompt as a script of changes (test/fixtures/lib/changeScenarios.ts).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChangesView } from '../../src/chat/protocol';
import type { ChatHandle } from '../../src/chats/handle';
import type { ChangeStep } from '../fixtures/lib/changeScenarios';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

/** The fixture's capabilities and fork at a message (`_meta.jetbrains.air.fork`), as claude-agent-acp does. */
const FORKS_AT_MESSAGE = {
  loadSession: true,
  promptCapabilities: { image: true, embeddedContext: true },
  sessionCapabilities: { list: {}, close: {}, resume: {}, fork: {} },
  _meta: { jetbrains: { air: { fork: { version: 1, inclusive: true } } } },
};

/** A fresh folder in the workspace with these files; returns its path relative to the workspace. */
function folderWith(name: string, files: Record<string, string>): string {
  const dir = join(workspaceFolder(), name);
  rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return name;
}

const text = (rel: string): string | undefined => {
  const path = join(workspaceFolder(), rel);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
};

/** The id of the chat's last user message: the turn a card belongs to. */
function lastTurn(chat: ChatHandle): number {
  const users = chat.entries.filter((e) => e.kind === 'message' && e.role === 'user');
  const last = users[users.length - 1];
  assert.ok(last, 'the chat has a user message');
  return last.id;
}

/** Plays `steps` as one turn, and returns the turn's card once it shows. */
async function turn(chat: ChatHandle, steps: ChangeStep[], ended: 'end' | 'settled' = 'end'): Promise<ChangesView> {
  const sent = within(chat.send(JSON.stringify(steps)), 20_000, 'the turn');
  if (ended === 'end') await sent;
  else await sent.catch(() => undefined);
  const id = lastTurn(chat);
  return waitFor(() => chat.checkpoints.cards.find((c) => c.turn === id), { timeoutMs: 15_000, what: `the changes card of turn ${id}` });
}

function card(chat: ChatHandle, turnId: number): ChangesView | undefined {
  return chat.checkpoints.cards.find((c) => c.turn === turnId);
}

/** What a card lists, as "M path +a −r", sorted. */
function listing(view: ChangesView): string[] {
  return view.files.map((f) => `${f.status} ${f.path}${f.oldPath ? ` <- ${f.oldPath}` : ''} +${f.added} -${f.removed}`).sort();
}

async function question(chat: ChatHandle, kind: 'conflicts' | 'restore') {
  return waitFor(() => (chat.checkpoints.question?.kind === kind ? chat.checkpoints.question : undefined), { what: `a ${kind} question` });
}

describe('Checkpoints', function () {
  this.timeout(60_000);

  before(async () => {
    await useFixtureAgent('changes');
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await closeAllChats();
  });

  it('shows what the agent changed on disk, by a command and through the client, and undoes and redoes it in one step', async () => {
    const dir = folderWith('ck-basic', { 'a.txt': 'one\ntwo\n', 'b.txt': 'to be removed\n', 'c.txt': 'client\n', 'old.txt': 'moved\n' });
    const chat = await newChat();
    const view = await turn(chat, [
      { op: 'disk', path: `${dir}/a.txt`, text: 'one\nTWO\nthree\n' },
      { op: 'run', command: `rm ${dir}/b.txt && printf 'made by a command\\n' > ${dir}/new.txt` },
      { op: 'client', path: `${dir}/c.txt`, text: 'client\nwrote this\n' },
      { op: 'rename', from: `${dir}/old.txt`, to: `${dir}/renamed.txt` },
    ]);
    assert.deepEqual(listing(view), [
      `A ${dir}/new.txt +1 -0`,
      `D ${dir}/b.txt +0 -1`,
      `M ${dir}/a.txt +2 -1`,
      `M ${dir}/c.txt +1 -0`,
      `R ${dir}/renamed.txt <- ${dir}/old.txt +0 -0`,
    ]);
    assert.equal(view.state, 'open');
    assert.ok(chat.checkpoints.restorable.includes(view.turn), 'the message offers Restore Checkpoint');

    await chat.changes(view.turn, 'undo');
    assert.equal(text(`${dir}/a.txt`), 'one\ntwo\n');
    assert.equal(text(`${dir}/b.txt`), 'to be removed\n', 'the deleted file is back');
    assert.equal(text(`${dir}/new.txt`), undefined, 'the created file is gone');
    assert.equal(text(`${dir}/c.txt`), 'client\n');
    assert.equal(text(`${dir}/old.txt`), 'moved\n', 'the renamed file is back where it was');
    assert.equal(text(`${dir}/renamed.txt`), undefined);
    assert.equal(card(chat, view.turn)?.state, 'undone');

    await chat.changes(view.turn, 'redo');
    assert.equal(text(`${dir}/a.txt`), 'one\nTWO\nthree\n');
    assert.equal(text(`${dir}/b.txt`), undefined);
    assert.equal(text(`${dir}/new.txt`), 'made by a command\n');
    assert.equal(text(`${dir}/c.txt`), 'client\nwrote this\n');
    assert.equal(text(`${dir}/renamed.txt`), 'moved\n');
    assert.equal(card(chat, view.turn)?.state, 'open');

    await chat.changes(view.turn, 'keep');
    assert.equal(card(chat, view.turn)?.state, 'kept');
  });

  it('opens a file’s diff from the checkpoint before the turn, and every file in the multi-file diff editor', async () => {
    const dir = folderWith('ck-review', { 'r.txt': 'before\n' });
    const chat = await newChat();
    const view = await turn(chat, [
      { op: 'disk', path: `${dir}/r.txt`, text: 'after\n' },
      { op: 'disk', path: `${dir}/s.txt`, text: 'new\n' },
    ]);
    const index = view.files.findIndex((f) => f.path === `${dir}/r.txt`);
    await chat.openChange(view.turn, index);
    const diff = await waitFor(
      () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .map((tab) => tab.input)
          .find((input): input is vscode.TabInputTextDiff => input instanceof vscode.TabInputTextDiff && input.original.scheme === 'acp-checkpoint'),
      { what: 'the diff editor of r.txt' },
    );
    assert.equal(diff.modified.fsPath, join(workspaceFolder(), dir, 'r.txt'), 'the right side is the real file');
    assert.equal((await vscode.workspace.openTextDocument(diff.original)).getText(), 'before\n', 'the left side is the checkpoint');

    await chat.changes(view.turn, 'review');
    await waitFor(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((tab) => tab.label.startsWith('Changes by ')), {
      what: 'the multi-file diff editor',
    });
  });

  it('keeps the cards of a chat opened again (replayed by the agent), and they still undo', async () => {
    const dir = folderWith('ck-reopen', { 'kept.txt': 'before\n' });
    const state = mkdtempSync(join(tmpdir(), 'acp-ck-state-'));
    const { name } = await useFixtureAgent('changes', { name: 'Fixture (changes, kept)', env: { ACP_FIXTURE_STATE_DIR: state } });
    try {
      const chat = await newChat();
      await turn(chat, [{ op: 'disk', path: `${dir}/kept.txt`, text: 'after\n' }]);
      const sessionId = chat.sessionId;
      assert.ok(sessionId);
      chat.close();
      await closeAllChats();

      await api();
      const again = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.openPreviousSession', { agent: name, sessionId });
      assert.ok(again, 'the session opened again');
      const card = await waitFor(() => again.checkpoints.cards[0], { what: 'the card of the replayed turn' });
      assert.equal(card.turn, lastTurn(again), 'on the replayed message');
      assert.deepEqual(listing(card), [`M ${dir}/kept.txt +1 -1`]);
      await again.changes(card.turn, 'undo');
      assert.equal(text(`${dir}/kept.txt`), 'before\n');
    } finally {
      await useFixtureAgent('changes');
      rmSync(state, { recursive: true, force: true });
    }
  });

  it('restores every file to before a message, across later turns, after listing them, and redoes the restore', async () => {
    const dir = folderWith('ck-restore', { 'x.txt': 'x0\n', 'y.txt': 'y0\n' });
    const chat = await newChat();
    const first = await turn(chat, [{ op: 'disk', path: `${dir}/x.txt`, text: 'x1\n' }]);
    const second = await turn(chat, [
      { op: 'disk', path: `${dir}/x.txt`, text: 'x2\n' },
      { op: 'disk', path: `${dir}/y.txt`, text: 'y2\n' },
      { op: 'disk', path: `${dir}/z.txt`, text: 'z2\n' },
    ]);
    assert.deepEqual(listing(second), [`A ${dir}/z.txt +1 -0`, `M ${dir}/x.txt +1 -1`, `M ${dir}/y.txt +1 -1`]);

    const restoring = chat.restoreCheckpoint(first.turn);
    const asked = await question(chat, 'restore');
    assert.deepEqual([...asked.files].sort(), [`${dir}/x.txt`, `${dir}/y.txt`, `${dir}/z.txt`]);
    assert.equal(text(`${dir}/x.txt`), 'x2\n', 'nothing changes before the user agrees');
    await chat.answerCheckpoint(asked.id, 'restore');
    await restoring;
    assert.equal(text(`${dir}/x.txt`), 'x0\n');
    assert.equal(text(`${dir}/y.txt`), 'y0\n');
    assert.equal(text(`${dir}/z.txt`), undefined);
    assert.equal(card(chat, first.turn)?.state, 'undone');
    assert.equal(card(chat, second.turn)?.state, 'undone');
    assert.equal(chat.checkpoints.restored?.files, 3);

    await chat.redoRestore();
    assert.equal(text(`${dir}/x.txt`), 'x2\n');
    assert.equal(text(`${dir}/y.txt`), 'y2\n');
    assert.equal(text(`${dir}/z.txt`), 'z2\n');
  });

  it('edits and resends a message: the files back to before it, then the edited message in a new session with the conversation before it, the earlier branch kept', async () => {
    // An agent that keeps its sessions (as real agents do; the fixture does with a state folder).
    const state = mkdtempSync(join(tmpdir(), 'acp-resend-'));
    const { name, recordFile } = await useFixtureAgent('changes', { name: 'Fixture (changes, resend)', env: { ACP_FIXTURE_STATE_DIR: state } });
    const dir = folderWith('ck-resend', { 'r.txt': 'r0\n' });
    const chat = await newChat();
    const earlierSession = chat.sessionId;
    await turn(chat, [{ op: 'disk', path: `${dir}/r.txt`, text: 'r1\n' }]);
    const second = await turn(chat, [{ op: 'disk', path: `${dir}/r.txt`, text: 'r2\n' }]);

    // The agent reads the file before it writes: the resent turn starts on the files as they were before the message.
    const edited = JSON.stringify([
      { op: 'expect', path: `${dir}/r.txt`, text: 'r1\n' },
      { op: 'disk', path: `${dir}/r.txt`, text: 'r3\n' },
    ]);
    const resending = chat.editAndResend(second.turn, edited);
    const asked = await question(chat, 'restore');
    assert.deepEqual([...asked.files], [`${dir}/r.txt`]);
    assert.equal(text(`${dir}/r.txt`), 'r2\n', 'nothing changes before the user agrees');
    await chat.answerCheckpoint(asked.id, 'restore');
    assert.equal(await within(resending, 20_000, 'the resent turn'), 'end_turn');
    assert.equal(text(`${dir}/r.txt`), 'r3\n', 'the edited message ran on the files as they were before it');
    assert.notEqual(chat.sessionId, earlierSession, 'a new session');
    assert.match(
      chat.notice ?? '',
      /The files were restored to before the message\. Resent in a new session of .*, with the conversation before it embedded\. The earlier branch/,
    );
    // The agent got the edited message, with the conversation before it (the first message, not the second).
    const prompts = recorded(recordFile).filter((m) => m.method === 'session/prompt');
    const blocks = (prompts.at(-1)?.params?.['prompt'] ?? []) as { type: string; text?: string; resource?: { text: string } }[];
    assert.equal(prompts.at(-1)?.params?.['sessionId'], chat.sessionId);
    assert.equal(blocks[0]?.text, edited);
    const conversation = blocks.find((b) => b.type === 'resource')?.resource?.text ?? '';
    assert.match(conversation, /r1/);
    assert.doesNotMatch(conversation, /r2/);
    // The chat shows the conversation before it (kept above), then the resent message; the earlier branch is in the history.
    const mine = chat.entries.flatMap((e) => (e.kind === 'message' && e.role === 'user' ? [e.text] : []));
    assert.equal(mine.length, 2);
    assert.match(mine[0] ?? '', /r1/);
    assert.equal(mine[1], edited);
    const kept = await (await api()).previousSessions(name);
    assert.ok(
      kept.some((s) => s.sessionId === earlierSession),
      `the earlier branch ${earlierSession} is kept: ${JSON.stringify(kept)}`,
    );
    // Reachable from the message too: Open the Earlier Branch, below the conversation kept above, opens it in a chat.
    await chat.openEarlierBranch();
    await waitFor(async () => (await api()).chats.some((c) => c.sessionId === earlierSession), { what: 'the earlier branch in a chat' });
    await closeAllChats();
    await useFixtureAgent('changes');
    rmSync(state, { recursive: true, force: true });
  });

  it('edits and resends a message in the agent’s own fork at its reply before the message, where the agent forks at a message', async () => {
    const state = mkdtempSync(join(tmpdir(), 'acp-resend-fork-'));
    const { recordFile } = await useFixtureAgent('changes', {
      name: 'Fixture (changes, fork at a message)',
      env: { ACP_FIXTURE_STATE_DIR: state, ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(FORKS_AT_MESSAGE) },
    });
    const dir = folderWith('ck-resend-fork', { 'f.txt': 'f0\n' });
    const chat = await newChat();
    const earlierSession = chat.sessionId;
    await turn(chat, [{ op: 'disk', path: `${dir}/f.txt`, text: 'f1\n' }]);
    const second = await turn(chat, [{ op: 'disk', path: `${dir}/f.txt`, text: 'f2\n' }]);
    await turn(chat, [{ op: 'disk', path: `${dir}/f.txt`, text: 'f3\n' }]);
    const firstReply = chat.entries.flatMap((e) => (e.kind === 'message' && e.role === 'agent' ? [e.text] : []))[0] ?? '';
    assert.ok(firstReply !== '', 'the agent answered the first message');

    const edited = JSON.stringify([
      { op: 'expect', path: `${dir}/f.txt`, text: 'f1\n' },
      { op: 'disk', path: `${dir}/f.txt`, text: 'f9\n' },
    ]);
    const resending = chat.editAndResend(second.turn, edited);
    await chat.answerCheckpoint((await question(chat, 'restore')).id, 'restore');
    assert.equal(await within(resending, 20_000, 'the resent turn'), 'end_turn');
    assert.equal(text(`${dir}/f.txt`), 'f9\n', 'the edited message ran on the files as they were before it');
    assert.match(
      chat.notice ?? '',
      /The files were restored to before the message\. Resent in a fork of the session at the message: .* remembers the conversation before it, and nothing after\./,
    );

    // The agent was asked to fork the earlier session at its reply to the first message, named by id and text.
    const forks = recorded(recordFile).filter((m) => m.method === 'session/fork');
    assert.equal(forks.length, 1);
    assert.equal(forks[0]?.params?.['sessionId'], earlierSession);
    const point = (forks[0]?.params?.['_meta'] as { jetbrains?: { air?: { fork?: Record<string, unknown> } } } | undefined)?.jetbrains?.air?.fork;
    assert.deepEqual(
      { ...point, messageId: typeof point?.['messageId'] },
      {
        version: 1,
        messageId: 'string',
        messageFingerprint: `sha256:${createHash('sha256').update(firstReply).digest('hex')}`,
        messageOccurrence: 1,
      },
    );
    // The edited message went alone to the fork: no conversation attached, since the fork remembers it.
    const prompts = recorded(recordFile).filter((m) => m.method === 'session/prompt');
    assert.equal(prompts.at(-1)?.params?.['sessionId'], chat.sessionId);
    assert.notEqual(chat.sessionId, earlierSession);
    assert.deepEqual(prompts.at(-1)?.params?.['prompt'], [{ type: 'text', text: edited }]);
    // What the agent kept in the fork: the first message and its reply, then the edited one; not the later two.
    const kept = JSON.parse(readFileSync(join(state, `${chat.sessionId}.json`), 'utf8')) as {
      history: { sessionUpdate: string; content?: { text?: string } }[];
    };
    const said = kept.history.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content?.text ?? '');
    assert.equal(said.length, 2, JSON.stringify(said));
    assert.match(said[0] ?? '', /f1/);
    assert.equal(said[1], edited);
    // The chat shows the same, and the earlier branch is kept and reachable.
    const mine = chat.entries.flatMap((e) => (e.kind === 'message' && e.role === 'user' ? [e.text] : []));
    assert.deepEqual(mine.length, 2);
    assert.equal(mine[1], edited);
    assert.ok(
      (await (await api()).previousSessions(chat.agentName)).some((s) => s.sessionId === earlierSession),
      'the earlier branch is kept',
    );
    await chat.openEarlierBranch();
    await waitFor(async () => (await api()).chats.some((c) => c.sessionId === earlierSession), { what: 'the earlier branch in a chat' });
    await closeAllChats();
    await useFixtureAgent('changes');
    rmSync(state, { recursive: true, force: true });
  });

  it('resends in a new session with the conversation before it when the agent cannot find the message to fork at, and says so', async () => {
    const { recordFile } = await useFixtureAgent('changes', {
      name: 'Fixture (changes, fork misses)',
      env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify(FORKS_AT_MESSAGE), ACP_FIXTURE_FORK_MISS: '1' },
    });
    const dir = folderWith('ck-resend-miss', { 'm.txt': 'm0\n' });
    const chat = await newChat();
    const earlierSession = chat.sessionId;
    await turn(chat, [{ op: 'disk', path: `${dir}/m.txt`, text: 'm1\n' }]);
    const second = await turn(chat, [{ op: 'disk', path: `${dir}/m.txt`, text: 'm2\n' }]);
    const edited = JSON.stringify([
      { op: 'expect', path: `${dir}/m.txt`, text: 'm1\n' },
      { op: 'disk', path: `${dir}/m.txt`, text: 'm9\n' },
    ]);
    const resending = chat.editAndResend(second.turn, edited);
    await chat.answerCheckpoint((await question(chat, 'restore')).id, 'restore');
    assert.equal(await within(resending, 20_000, 'the resent turn'), 'end_turn');
    assert.equal(text(`${dir}/m.txt`), 'm9\n');
    assert.match(
      chat.notice ?? '',
      /could not find the message in its session to fork there\. Resent in a new session of .*, with the conversation before it embedded\./,
    );
    assert.equal(recorded(recordFile).filter((m) => m.method === 'session/fork').length, 1, 'the fork was asked once');
    const prompt = (recorded(recordFile)
      .filter((m) => m.method === 'session/prompt')
      .at(-1)?.params?.['prompt'] ?? []) as { type: string; resource?: { text: string } }[];
    assert.match(prompt.find((b) => b.type === 'resource')?.resource?.text ?? '', /m1/, 'the conversation before it went along');
    assert.notEqual(chat.sessionId, earlierSession);
    assert.doesNotMatch(chat.sessionId ?? '', /-fork$/, 'a new session, not a fork');
    await closeAllChats();
    await useFixtureAgent('changes');
  });

  it('resends only what the user attached: a link the agent put in a user chunk is the agent\u2019s own message, and its files go again only after a question, inside the chat\u2019s folders', async () => {
    const { recordFile } = await useFixtureAgent('changes', { name: 'Fixture (changes, planted links)' });
    const dir = folderWith('ck-planted', { 'in.txt': 'inside the workspace\n' });
    const outside = mkdtempSync(join(tmpdir(), 'acp-planted-'));
    writeFileSync(join(outside, 'secret.txt'), 'THE SECRET\n');
    const script = JSON.stringify([
      { op: 'plant', path: join(outside, 'secret.txt') },
      { op: 'plant', path: `${dir}/in.txt` },
    ]);
    /** A chat whose one turn planted the two links: the user's message, and the agent's record with the links. */
    const planted = async () => {
      const chat = await newChat();
      await within(chat.send(script), 20_000, 'the turn');
      const users = chat.entries.filter((e) => e.kind === 'message' && e.role === 'user');
      assert.equal(users.length, 2, JSON.stringify(users));
      const [mine, theirs] = users;
      assert.ok(mine?.kind === 'message' && theirs?.kind === 'message');
      assert.equal(mine.text, script, 'the user\u2019s message is as it was sent');
      assert.deepEqual(mine.chips, [], 'nothing joined it');
      assert.equal(mine.byAgent, undefined);
      assert.equal(theirs.byAgent, true, 'the links are shown as the agent\u2019s');
      assert.deepEqual(theirs.chips.map((c) => c.label).sort(), [`${dir}/in.txt`, join(outside, 'secret.txt')].sort());
      return { chat, mine, theirs };
    };
    const lastPrompt = () =>
      JSON.stringify(
        recorded(recordFile)
          .filter((m) => m.method === 'session/prompt')
          .at(-1)?.params?.['prompt'] ?? [],
      );
    const reply = JSON.stringify([{ op: 'expect', path: `${dir}/in.txt`, text: 'inside the workspace\n' }]);

    // The agent's record of a message: its file inside the workspace, after the user says so; never the one outside.
    const first = await planted();
    const resending = first.chat.editAndResend(first.theirs.id, reply);
    const asked = await waitFor(() => first.chat.elicitations.find((q) => /recorded it, not as it was sent/.test(q.message)), {
      what: 'the question',
    });
    assert.match(asked.message, new RegExp(`: ${dir}/in\\.txt\\. Attach these files`));
    assert.doesNotMatch(asked.message, /secret/);
    assert.equal(await first.chat.answerElicitation(asked.id, 'accept', {}), undefined);
    assert.equal(await within(resending, 20_000, 'the resend of the agent\u2019s record'), 'end_turn');
    assert.match(lastPrompt(), /"uri":"file:\/\/[^"]*ck-planted\/in\.txt","text":"inside the workspace/);
    assert.doesNotMatch(lastPrompt(), /THE SECRET|"uri":"file:\/\/[^"]*secret\.txt"/);

    // The user's own message goes again with what the user attached: nothing of the agent's, and no question.
    const second = await planted();
    assert.equal(await within(second.chat.editAndResend(second.mine.id, reply), 20_000, 'the resend of the user\u2019s message'), 'end_turn');
    assert.doesNotMatch(lastPrompt(), /THE SECRET|"uri":"file:\/\/[^"]*(secret|in)\.txt"/);
    assert.equal(second.chat.elicitations.length, 0);
    rmSync(outside, { recursive: true, force: true });
    await closeAllChats();
    await useFixtureAgent('changes');
  });

  it('asks before undoing over a file the user edited since, and keeps the edit when told to skip it', async () => {
    const dir = folderWith('ck-conflict', { 'mine.txt': 'base\n', 'other.txt': 'base\n' });
    const chat = await newChat();
    const view = await turn(chat, [
      { op: 'disk', path: `${dir}/mine.txt`, text: 'agent\n' },
      { op: 'disk', path: `${dir}/other.txt`, text: 'agent\n' },
    ]);
    writeFileSync(join(workspaceFolder(), dir, 'mine.txt'), 'agent\nand the user\n');

    const undoing = chat.changes(view.turn, 'undo');
    const asked = await question(chat, 'conflicts');
    assert.deepEqual(asked.files, [`${dir}/mine.txt`]);
    await chat.answerCheckpoint(asked.id, 'skip');
    await undoing;
    assert.equal(text(`${dir}/mine.txt`), 'agent\nand the user\n', "the user's edit is kept");
    assert.equal(text(`${dir}/other.txt`), 'base\n', 'the other file is undone');
  });

  it('never discards unsaved edits: a cancelled undo leaves them, an overwrite goes through the editor and its Undo brings them back', async () => {
    const dir = folderWith('ck-unsaved', { 'open.txt': 'base\n' });
    const uri = vscode.Uri.file(join(workspaceFolder(), dir, 'open.txt'));
    const chat = await newChat();
    const view = await turn(chat, [{ op: 'disk', path: `${dir}/open.txt`, text: 'agent\n' }]);
    const doc = await vscode.workspace.openTextDocument(uri);
    await waitFor(() => doc.getText() === 'agent\n', { what: 'the editor to show the agent’s version' });
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((edit) => edit.insert(new vscode.Position(1, 0), 'unsaved line\n'));
    assert.ok(doc.isDirty);

    let undoing = chat.changes(view.turn, 'undo');
    let asked = await question(chat, 'conflicts');
    await chat.answerCheckpoint(asked.id, 'cancel');
    await undoing;
    assert.equal(doc.getText(), 'agent\nunsaved line\n', 'the unsaved edit is still there');
    assert.equal(card(chat, view.turn)?.state, 'open');

    undoing = chat.changes(view.turn, 'undo');
    asked = await question(chat, 'conflicts');
    await chat.answerCheckpoint(asked.id, 'overwrite');
    await undoing;
    assert.equal(doc.getText(), 'base\n');
    assert.equal(text(`${dir}/open.txt`), 'base\n');
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === 'agent\nunsaved line\n', { what: "the editor's Undo to bring the unsaved edit back" });
    // Leave no unsaved buffer behind for the next test to save by accident.
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor(() => !doc.isDirty, { what: 'the buffer to be reverted' });
  });

  it('gives a turn that was stopped or failed its card too', async () => {
    const dir = folderWith('ck-stopped', { 'half.txt': 'before\n' });
    const chat = await newChat();
    const sent = chat.send(JSON.stringify([{ op: 'disk', path: `${dir}/half.txt`, text: 'half done\n' }, { op: 'waitForCancel' }]));
    await waitFor(() => chat.entries.some((e) => e.kind === 'message' && e.role === 'agent' && e.text.includes('working')), {
      what: 'the turn to run',
    });
    await chat.cancel();
    assert.equal(await within(sent, 10_000, 'the cancelled turn'), 'cancelled');
    const stopped = await waitFor(() => card(chat, lastTurn(chat)), { what: 'the card of the stopped turn' });
    assert.deepEqual(listing(stopped), [`M ${dir}/half.txt +1 -1`]);

    const failed = await turn(chat, [{ op: 'disk', path: `${dir}/failed.txt`, text: 'partial\n' }, { op: 'fail' }], 'settled');
    assert.deepEqual(listing(failed), [`A ${dir}/failed.txt +1 -0`]);
  });

  it('leaves out files over the size bound and binary files, and says so on the card', async () => {
    const dir = folderWith('ck-skipped', {});
    const chat = await newChat();
    const view = await turn(chat, [
      { op: 'big', path: `${dir}/huge.log`, size: 2 * 1024 * 1024 },
      { op: 'bytes', path: `${dir}/image.bin`, base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]).toString('base64') },
      { op: 'disk', path: `${dir}/small.txt`, text: 'tracked\n' },
    ]);
    assert.deepEqual(listing(view), [`A ${dir}/small.txt +1 -0`]);
    assert.match(view.note ?? '', /over 1 MB: ck-skipped\/huge\.log/);
    assert.match(view.note ?? '', /binary: ck-skipped\/image\.bin/);
  });

  it("never shows up in the user's git status, stash or .git", async () => {
    const dir = folderWith('ck-git', { 'tracked.txt': 'committed\n', 'dirty.txt': 'committed\n' });
    const repo = join(workspaceFolder(), dir);
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'start');
    writeFileSync(join(repo, 'dirty.txt'), 'the user was here\n');
    const dotGit = () =>
      readdirSync(join(repo, '.git'), { recursive: true, encoding: 'utf8' })
        .filter((f) => !/^index|\.lock$|FETCH_HEAD|ORIG_HEAD/.test(f))
        .sort();
    const before = { status: git('status', '--porcelain'), stash: git('stash', 'list'), refs: git('for-each-ref'), files: dotGit() };

    const chat = await newChat();
    const view = await turn(chat, [{ op: 'disk', path: `${dir}/tracked.txt`, text: 'changed by the agent\n' }]);
    assert.deepEqual(listing(view), [`M ${dir}/tracked.txt +1 -1`]);
    await chat.changes(view.turn, 'undo');

    assert.equal(git('status', '--porcelain'), before.status);
    assert.equal(git('stash', 'list'), before.stash);
    assert.equal(git('for-each-ref'), before.refs);
    assert.deepEqual(dotGit(), before.files);
  });

  it('undoes a turn that changed symbolic links: links come back as links, and nothing is written through one', async () => {
    const dir = folderWith('ck-links', { 'mine.txt': 'the user\u2019s file\n', 'other.txt': 'other\n' });
    const root = join(workspaceFolder(), dir);
    symlinkSync('mine.txt', join(root, 'replaced'));
    symlinkSync('mine.txt', join(root, 'retargeted'));
    const chat = await newChat();
    // The agent replaces one link with a regular file and points the other elsewhere.
    const view = await turn(chat, [
      { op: 'run', command: `cd ${root} && rm replaced && printf 'a regular file\\n' > replaced && ln -sfn other.txt retargeted` },
    ]);
    assert.deepEqual(view.files.map((f) => f.path).sort(), [`${dir}/replaced`, `${dir}/retargeted`]);
    await chat.changes(view.turn, 'undo');
    assert.equal(readlinkSync(join(root, 'replaced')), 'mine.txt', 'the link is a link again');
    assert.equal(readlinkSync(join(root, 'retargeted')), 'mine.txt');
    assert.equal(text(`${dir}/mine.txt`), 'the user\u2019s file\n', 'nothing was written through a link');
    await chat.changes(view.turn, 'redo');
    assert.equal(lstatSync(join(root, 'replaced')).isSymbolicLink(), false, 'redo puts the regular file back, not through the link');
    assert.equal(text(`${dir}/replaced`), 'a regular file\n');
    assert.equal(readlinkSync(join(root, 'retargeted')), 'other.txt');
    assert.equal(text(`${dir}/mine.txt`), 'the user\u2019s file\n');
  });

  it('writes nothing through a folder that became a link since: the undo is refused, and the files the link leads to are left alone', async () => {
    const dir = folderWith('ck-parent-link', { 'keep.txt': 'keep\n' });
    const root = join(workspaceFolder(), dir);
    const elsewhere = mkdtempSync(join(tmpdir(), 'acp-elsewhere-'));
    const chat = await newChat();
    const first = await turn(chat, [{ op: 'disk', path: `${dir}/sub/a.txt`, text: 'made in the first turn\n' }]);
    // The agent moves the folder out of the workspace and links it back.
    await turn(chat, [{ op: 'run', command: `mv ${root}/sub ${elsewhere}/sub && ln -s ${elsewhere}/sub ${root}/sub` }]);
    await chat.changes(first.turn, 'undo').catch(() => undefined);
    assert.equal(readFileSync(join(elsewhere, 'sub', 'a.txt'), 'utf8'), 'made in the first turn\n', 'nothing deleted through the link');
    assert.match(chat.notice ?? '', /a link that leads elsewhere, so nothing was changed/);
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('without git, tracks what went through the client and the diffs the agent showed, undoes only the client\u2019s own writes, and says why once', async () => {
    const dir = folderWith('ck-nogit', { 'via-client.txt': 'before\n', 'via-diff.txt': 'before\n' });
    const path = process.env['PATH'];
    const git = vscode.workspace.getConfiguration('git');
    const enabled = git.inspect<boolean>('enabled')?.globalValue;
    await git.update('enabled', false, vscode.ConfigurationTarget.Global);
    process.env['PATH'] = '/nonexistent';
    try {
      const chat = await newChat();
      const view = await turn(chat, [
        { op: 'client', path: `${dir}/via-client.txt`, text: 'after\n' },
        { op: 'diff', path: `${dir}/via-diff.txt`, text: 'after\n' },
        { op: 'disk', path: `${dir}/unseen.txt`, text: 'not seen\n' },
      ]);
      assert.deepEqual(listing(view), [`M ${dir}/via-client.txt +1 -1`, `M ${dir}/via-diff.txt +1 -1`]);
      assert.match(view.note ?? '', /git was not found/i);
      await chat.changes(view.turn, 'undo');
      assert.equal(text(`${dir}/via-client.txt`), 'before\n');
      assert.equal(text(`${dir}/via-diff.txt`), 'after\n', 'a diff the agent only reported is shown, never applied');
      assert.equal(text(`${dir}/unseen.txt`), 'not seen\n', 'what the client never saw is left alone');
    } finally {
      process.env['PATH'] = path;
      await git.update('enabled', enabled, vscode.ConfigurationTarget.Global);
    }
  });
});
