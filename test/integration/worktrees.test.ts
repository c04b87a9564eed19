// Worktree chats in a real extension host, with real git and the fixture agent: New Chat in Worktree makes a worktree
// on a branch of its own with Enter, Enter, Enter; the agent works there, held to it, while the main checkout stays
// as it was, and paths outside it are outside its workspace; two run at once; Review, Apply (as changes over the user's own edits, which are stashed only when the
// user agrees; as a merge, whose conflict opens in the merge editor), Commit, Discard and Clean Up do what they say.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { acpLog, answeringQuickInput, api, closeAllChats, ENTER, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The worktrees of the repository in `main`, but for the main checkout itself. */
function worktrees(main: string): string[] {
  return git(main, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .slice(1);
}

/** ACP: New Chat in Worktree…, with Enter for each question: the chat, and the worktree it made. */
async function worktreeChat(main: string): Promise<{ chat: ChatHandle; folder: string }> {
  const before = new Set(worktrees(main));
  const chat = await answeringQuickInput(
    () => vscode.commands.executeCommand<ChatHandle | undefined>('acp.newChatInWorktree'),
    ENTER,
    'the agent, the base and the branch, each taken with Enter',
    60_000,
  );
  assert.ok(chat, 'a chat opened in the worktree');
  await waitFor(() => chat.sessionId !== undefined, { what: 'the worktree chat to have its session' });
  const made = worktrees(main).filter((w) => !before.has(w));
  assert.equal(made.length, 1, 'one worktree made');
  return { chat, folder: made[0]! };
}

/** The folders the agent was asked to open sessions in, in order. */
function sessionFolders(recordFile: string): string[] {
  return recorded(recordFile).flatMap((m) => (m.method === 'session/new' && typeof m.params?.['cwd'] === 'string' ? [m.params['cwd']] : []));
}

function abortMerge(main: string): void {
  try {
    git(main, 'merge', '--abort');
  } catch {
    // no merge in progress
  }
}

async function settings(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('acp');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Global);
}

describe('worktree chats', function () {
  this.timeout(120_000);
  let main: string;
  let recordFile: string;

  before(async () => {
    main = workspaceFolder();
    // Outside git first (the harness tells git to stop looking above the work folder): the refusal, then a repository.
    const before = (await api()).chats.length;
    assert.equal(await vscode.commands.executeCommand('acp.newChatInWorktree'), undefined, 'no worktree chat outside git');
    await waitFor(() => /is not in a git repository: no worktree/.test(acpLog()), { what: 'the refusal in the log' });
    assert.equal((await api()).chats.length, before, 'and no chat either, until the user takes the plain chat offered');
    assert.ok(!existsSync(`${main}.worktrees`));
    // The workspace becomes a repository of its own.
    git(main, 'init', '--quiet', '--initial-branch=main');
    git(main, 'config', 'user.email', 'ada@example.com');
    git(main, 'config', 'user.name', 'Ada');
    git(main, 'add', '--all');
    git(main, 'commit', '--quiet', '-m', 'the start');
  });

  beforeEach(async () => {
    const fixture = await useFixtureAgent('changes', { name: 'Worker' });
    recordFile = fixture.recordFile;
  });

  afterEach(async () => {
    await closeAllChats();
    await settings({ 'files.outsideWorkspace': undefined, 'worktrees.applyAs': undefined });
    abortMerge(main);
  });

  after(async () => {
    for (const folder of worktrees(main)) rmSync(folder, { recursive: true, force: true });
    rmSync(join(main, '.git'), { recursive: true, force: true });
    rmSync(`${main}.worktrees`, { recursive: true, force: true });
  });

  it('makes a worktree with Enter, Enter, Enter; the agent works there while the main checkout stays as it was', async () => {
    const { chat, folder } = await worktreeChat(main);
    assert.equal(folder, `${main}.worktrees/acp-worker-1`, 'beside the repository, named for its branch');
    assert.ok(existsSync(join(folder, 'src', 'hello.ts')), 'the worktree is checked out beside the repository');
    assert.equal(git(main, 'branch', '--list', '--format=%(refname:short)', 'acp/worker-1'), 'acp/worker-1', 'on a branch of its own');
    assert.deepEqual(sessionFolders(recordFile), [folder], 'the session works in the worktree');
    assert.deepEqual(chat.session.worktree, { branch: 'acp/worker-1', path: folder }, 'the chat\u2019s header shows its branch and folder');
    assert.match(acpLog(), /git worktree add -b acp\/worker-1 .*acp-worker-1 main/, 'the log says what git ran');

    const script = [
      { op: 'disk', path: 'src/hello.ts', text: 'export const hello = "worktree";\n' },
      { op: 'client', path: 'notes.md', text: 'written through the client\n' },
    ];
    assert.equal(await within(chat.send(JSON.stringify(script)), 20_000, 'the turn'), 'end_turn');
    assert.equal(readFileSync(join(folder, 'src', 'hello.ts'), 'utf8'), 'export const hello = "worktree";\n');
    assert.equal(readFileSync(join(folder, 'notes.md'), 'utf8'), 'written through the client\n', 'inside the worktree: written without asking');
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "world";\n', 'the main checkout is untouched');
    assert.ok(!existsSync(join(main, 'notes.md')));
    await waitFor(() => chat.checkpoints.cards.some((c) => c.files.length === 2), { what: "the turn's changes card, from the worktree" });

    // The main checkout is outside this chat's workspace now.
    await settings({ 'files.outsideWorkspace': 'deny' });
    // The fixture's turn fails with the client's refusal.
    await assert.rejects(
      within(chat.send(JSON.stringify([{ op: 'client', path: join(main, 'src', 'hello.ts'), text: 'escaped\n' }])), 20_000, 'the turn'),
      /outside this chat's worktree/,
    );
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "world";\n', 'refused');
    assert.match(acpLog(), /hello\.ts is outside this chat's worktree, and the acp.files.outsideWorkspace setting refuses that/);

    // @ lists the workspace's files, and attaches the worktree's copy.
    assert.ok((await chat.completeMention('hello')).some((m) => m.path === 'src/hello.ts'));
    await chat.mention('file', 'src/hello.ts');
    await waitFor(() => chat.attachments.some((a) => a.detail === join(folder, 'src', 'hello.ts')), { what: 'the worktree\u2019s copy attached' });
  });

  it('attaches an @ symbol from the worktree’s copy, refuses one the agent changed there, and says whose problems @problems are', async () => {
    const hello = vscode.Uri.file(join(main, 'src', 'hello.ts'));
    // A real symbol provider and real diagnostics, on the main checkout's files (what a language extension sees).
    const provider = vscode.languages.registerWorkspaceSymbolProvider({
      provideWorkspaceSymbols: (query) =>
        'hello'.includes(query.toLowerCase())
          ? [new vscode.SymbolInformation('hello', vscode.SymbolKind.Constant, '', new vscode.Location(hello, new vscode.Range(0, 13, 0, 18)))]
          : [],
    });
    const problems = vscode.languages.createDiagnosticCollection('worktree-test');
    problems.set(hello, [new vscode.Diagnostic(new vscode.Range(0, 13, 0, 18), 'hello is never read', vscode.DiagnosticSeverity.Warning)]);
    try {
      const { chat, folder } = await worktreeChat(main);
      const attachSymbol = async () => {
        // A provider's first answer can miss the list's bound (it then comes late): ask as a user types on.
        let symbol: Awaited<ReturnType<ChatHandle['completeMention']>>[number] | undefined;
        await waitFor(async () => (symbol = (await chat.completeMention('hello')).find((m) => m.kind === 'symbol')) !== undefined, {
          timeoutMs: 30_000,
          what: '@hello to offer the symbol',
        });
        await chat.mention(symbol!.kind, symbol!.path);
      };
      await attachSymbol();
      await waitFor(() => chat.attachments.some((a) => a.kind === 'symbol' && a.detail === join(folder, 'src', 'hello.ts')), {
        what: 'the symbol, from the worktree’s copy',
      });
      assert.equal(chat.attachments.find((a) => a.kind === 'symbol')?.label, 'hello (src/hello.ts:1)');

      // The agent moves it down a line: it is found where it went.
      await within(
        chat.send(JSON.stringify([{ op: 'disk', path: 'src/hello.ts', text: '// moved\nexport const hello = "world";\n' }])),
        20_000,
        'a turn',
      );
      await attachSymbol();
      await waitFor(() => chat.attachments.some((a) => a.kind === 'symbol' && a.label === 'hello (src/hello.ts:2)'), {
        what: 'the moved symbol, at its line in the worktree',
      });

      // The agent changes it: it is not attached from the main checkout.
      await within(
        chat.send(JSON.stringify([{ op: 'disk', path: 'src/hello.ts', text: '// moved\nexport const hello = "agent";\n' }])),
        20_000,
        'a turn',
      );
      await attachSymbol();
      await waitFor(() => /This symbol is not the same in this chat's worktree/.test(chat.notice ?? ''), {
        what: 'the chat to say the worktree’s symbol differs',
      });

      await chat.mention('problems', 'all');
      await waitFor(() => chat.attachments.some((a) => a.kind === 'problems' && /\(main checkout\)/.test(a.label)), {
        what: 'the problems, said to be the main checkout’s',
      });
    } finally {
      provider.dispose();
      problems.dispose();
    }
  });

  it('runs two worktree chats at once, each in its own worktree', async () => {
    const first = await worktreeChat(main);
    const second = await worktreeChat(main);
    assert.notEqual(first.folder, second.folder);
    assert.deepEqual(sessionFolders(recordFile), [first.folder, second.folder], 'one agent, a session in each');
    const [a, b] = await Promise.all([
      within(first.chat.send(JSON.stringify([{ op: 'disk', path: 'who.txt', text: 'first\n' }])), 20_000, 'the first turn'),
      within(second.chat.send(JSON.stringify([{ op: 'disk', path: 'who.txt', text: 'second\n' }])), 20_000, 'the second turn'),
    ]);
    assert.deepEqual([a, b], ['end_turn', 'end_turn']);
    assert.equal(readFileSync(join(first.folder, 'who.txt'), 'utf8'), 'first\n');
    assert.equal(readFileSync(join(second.folder, 'who.txt'), 'utf8'), 'second\n');
    assert.ok(!existsSync(join(main, 'who.txt')));
  });

  it('reviews, applies as changes over the user\u2019s own edits (stashed once they agree), commits and discards', async () => {
    const { chat, folder } = await worktreeChat(main);
    const branch = git(folder, 'branch', '--show-current');
    await within(chat.send(JSON.stringify([{ op: 'disk', path: 'src/hello.ts', text: 'export const hello = "agent";\n' }])), 20_000, 'a turn');

    await vscode.commands.executeCommand('acp.reviewWorktree');
    await waitFor(() => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.startsWith(`Worktree ${branch}`))), {
      what: 'the multi-file diff of the worktree against its base',
    });

    writeFileSync(join(main, 'src', 'hello.ts'), 'export const hello = "mine";\n'); // the user's own, uncommitted
    await answeringQuickInput(() => vscode.commands.executeCommand('acp.applyWorktree'), ENTER, 'Stash My Changes and Apply');
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "agent";\n', 'applied as an uncommitted change');
    assert.match(git(main, 'stash', 'list'), new RegExp(`acp: before applying ${branch}`), 'the user\u2019s edit is in the stash');
    assert.equal(git(main, 'rev-list', '--count', 'HEAD'), '1', 'nothing committed in the main checkout');
    git(main, 'checkout', '--', 'src/hello.ts');
    git(main, 'stash', 'pop');
    assert.equal(readFileSync(join(main, 'src', 'hello.ts'), 'utf8'), 'export const hello = "mine";\n', 'and it comes back');
    git(main, 'checkout', '--', 'src/hello.ts');

    await answeringQuickInput(() => vscode.commands.executeCommand('acp.commitWorktree'), ENTER, 'the suggested commit message');
    assert.equal(git(main, 'rev-list', '--count', `main..${branch}`), '1', 'committed on the worktree\u2019s branch');
    await within(chat.send(JSON.stringify([{ op: 'disk', path: 'later.txt', text: 'not committed\n' }])), 20_000, 'a turn');

    await answeringQuickInput(() => vscode.commands.executeCommand('acp.discardWorktree'), ENTER, 'Discard Worktree, with what is lost listed');
    assert.ok(!existsSync(folder), 'the worktree is gone');
    assert.equal(git(main, 'branch', '--list', '--format=%(refname:short)', branch), '', 'and its branch');
    await waitFor(async () => !(await api()).chats.some((c) => c.sessionId === chat.sessionId), { what: 'the chat to end' });
    assert.match(acpLog(), new RegExp(`discarded .* and its branch ${branch.replace('/', '\\/')}`));
  });

  it('applies as a merge, and a conflict opens in the merge editor', async () => {
    await settings({ 'worktrees.applyAs': 'merge' });
    const { chat, folder } = await worktreeChat(main);
    await within(chat.send(JSON.stringify([{ op: 'disk', path: 'README.md', text: 'the agent\u2019s readme\n' }])), 20_000, 'a turn');
    // The worktree's change is not committed: a merge would leave it out, so the user commits it first (Enter twice).
    writeFileSync(join(main, 'README.md'), 'the user\u2019s readme\n');
    git(main, 'commit', '--quiet', '-am', 'the user changed the readme');
    await answeringQuickInput(() => vscode.commands.executeCommand('acp.applyWorktree'), ENTER, 'Commit in Worktree First, then the message');
    assert.equal(git(folder, 'status', '--porcelain'), '', 'committed in the worktree first');
    await waitFor(() => /UU README\.md/.test(git(main, 'status', '--porcelain')), { what: 'the merge to stop at the conflict' });
    await waitFor(() => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => /README\.md/.test(t.label))), {
      what: 'the conflicted file to open',
    });
  });

  it('cleans up a worktree whose chat is gone, with its branch when it has nothing of its own', async () => {
    const { chat, folder } = await worktreeChat(main);
    const branch = git(folder, 'branch', '--show-current');
    chat.close();
    await waitFor(async () => (await api()).chats.length === 0, { what: 'the chat to close' });
    assert.ok(existsSync(folder), 'closing a chat keeps its worktree');
    // The command ends once every worktree it removes is gone.
    await answeringQuickInput(() => vscode.commands.executeCommand('acp.cleanUpWorktrees'), ENTER, 'Remove All');
    assert.ok(!existsSync(folder), 'the worktree was removed');
    assert.equal(git(main, 'branch', '--list', '--format=%(refname:short)', branch), '', 'a branch with nothing of its own goes too');
  });
});
