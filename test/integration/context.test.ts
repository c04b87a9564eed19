// Context from VS Code in the composer, in a real extension host with the fixture agent: `@` offers the problems,
// the terminal's last command, the uncommitted changes, folders and symbols beside files; each becomes a chip with
// its size, a large one waits for Attach Anyway, and what is sent follows the agent's promptCapabilities. The
// symbols and problems come from a real provider and a real diagnostic collection this test registers; the
// changes from the git extension's API on a real repository; `@chat` from the kept transcripts; `@url` from a real
// server on loopback, allowed only through the setting.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor } from '../lib/wait';
import { answeringQuickInput, closeAllChats, ENTER, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

type Block = { type: string; text?: string; uri?: string; resource?: { uri: string; text?: string; mimeType?: string } };

/** The content blocks of the last prompt the agent received. */
function lastPrompt(recordFile: string): Block[] {
  const prompts = recorded(recordFile).filter((m) => m.method === 'session/prompt');
  return (prompts.at(-1)?.params?.['prompt'] as Block[] | undefined) ?? [];
}

const NO_EMBEDDED = { env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ loadSession: true, promptCapabilities: {} }) } };

/** Picks the `kind` (and `path`) option that `@query` offers, and waits for its chip (or says what the chat said). */
async function attach(chat: ChatHandle, query: string, kind: string, path?: string): Promise<void> {
  const before = chat.attachments.length;
  let offered = await chat.completeMention(query);
  const wanted = (m: { kind: string; path: string }) => m.kind === kind && (path === undefined || m.path === path);
  if (kind === 'symbol' && !offered.some(wanted)) {
    // VS Code's symbol search waits for every provider, and TypeScript's (a project loaded by an earlier test) can
    // answer after the list's 1.5 s: the chat's list shows those symbols when they come, the handle only the first
    // list. A later search, as the user's next keystroke, has them.
    offered = await waitFor(
      async () => {
        const again = await chat.completeMention(query);
        return again.some(wanted) ? again : undefined;
      },
      { timeoutMs: 15_000, what: `@${query} to offer a symbol once the symbol providers have answered` },
    );
  }
  const pick = offered.find(wanted);
  assert.ok(pick, `@${query} offers a ${kind}: ${JSON.stringify(offered.map((m) => `${m.kind}:${m.name}`))}`);
  await chat.mention(pick.kind, pick.path);
  await waitFor(() => chat.attachments.length === before + 1, { what: `the ${kind} chip` }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the chat says: ${chat.notice ?? 'nothing'}`);
  });
}

/** `attach` for a mention whose pick is a quick pick, answered with Enter (the first item, once the list has it). */
async function attachPicked(chat: ChatHandle, kind: string, what: string): Promise<void> {
  await answeringQuickInput(() => attach(chat, kind, kind), ENTER, what);
}

describe('context in the composer', function () {
  this.timeout(60_000);
  const disposables: vscode.Disposable[] = [];
  let folder: string;

  before(() => {
    folder = join(workspaceFolder(), 'ctx');
    mkdirSync(join(folder, 'lib'), { recursive: true });
    writeFileSync(join(folder, 'lib', 'widget.ts'), 'export class Widget {\n  size = 1;\n}\n');
    writeFileSync(join(folder, 'lib', 'other.ts'), 'export const other = 2;\n');
    const widget = vscode.Uri.file(join(folder, 'lib', 'widget.ts'));
    // A real symbol provider and real diagnostics: what a language extension would give.
    disposables.push(
      vscode.languages.registerWorkspaceSymbolProvider({
        provideWorkspaceSymbols: (query) =>
          'widget'.includes(query.toLowerCase()) || query.toLowerCase().includes('widg')
            ? [new vscode.SymbolInformation('Widget', vscode.SymbolKind.Class, 'lib', new vscode.Location(widget, new vscode.Range(0, 0, 2, 1)))]
            : [],
      }),
    );
    const problems = vscode.languages.createDiagnosticCollection('ctx-test');
    problems.set(widget, [new vscode.Diagnostic(new vscode.Range(1, 2, 1, 6), 'size is never read', vscode.DiagnosticSeverity.Warning)]);
    disposables.push(problems);
  });

  after(() => {
    for (const d of disposables) d.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  afterEach(async () => {
    await closeAllChats();
  });

  it('offers the problems, the terminal and the changes, folders and symbols for what follows @', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    const all = (await chat.completeMention('')).map((m) => `${m.kind}:${m.name}`);
    for (const expected of ['problems:problems:all', 'terminal:terminal', 'changes:changes', 'changes:changes:staged', 'commit:commit'])
      assert.ok(all.includes(expected), `${expected} in ${JSON.stringify(all)}`);
    assert.ok(
      (await chat.completeMention('prob')).every((m) => m.kind !== 'terminal'),
      'only what matches the word',
    );
    assert.ok((await chat.completeMention('ctx/li')).some((m) => m.kind === 'folder' && m.path === 'ctx/lib'));
    assert.ok((await chat.completeMention('Widg')).some((m) => m.kind === 'symbol' && m.name === 'Widget'));
  });

  it('sends a symbol, the problems and a folder as resources when the agent accepts embedded context', async () => {
    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    await attach(chat, 'Widg', 'symbol');
    await attach(chat, 'problems', 'problems', 'all');
    await attach(chat, 'ctx/li', 'folder');
    assert.ok(
      chat.attachments.every((a) => typeof a.size === 'number' && a.size > 0),
      'each chip has its size',
    );
    await chat.send('look at these');
    const blocks = lastPrompt(fixture.recordFile);
    const resources = blocks.filter((b) => b.type === 'resource').map((b) => b.resource!);
    assert.ok(
      resources.some((r) => r.uri.endsWith('widget.ts#L1-L3') && r.text?.includes('export class Widget')),
      'the symbol, its text embedded',
    );
    assert.ok(
      resources.some((r) => r.text?.includes('widget.ts:2:3 warning: size is never read')),
      'the problems, with file, line, severity',
    );
    assert.ok(
      resources.some((r) => r.uri.endsWith('/ctx/lib/') && r.text?.includes('widget.ts')),
      'the folder, with its listing',
    );
  });

  it('sends the same as quoted text and links when the agent does not accept embedded context', async () => {
    const fixture = await useFixtureAgent('echo', NO_EMBEDDED);
    const chat = await newChat();
    await attach(chat, 'Widg', 'symbol');
    await attach(chat, 'problems', 'problems', 'all');
    await attach(chat, 'ctx/li', 'folder');
    await chat.send('look at these');
    const blocks = lastPrompt(fixture.recordFile);
    assert.ok(!blocks.some((b) => b.type === 'resource'), 'no embedded resource');
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text ?? ''] : [])).join('\n');
    assert.match(text, /export class Widget/);
    assert.match(text, /size is never read/);
    assert.match(text, /widget\.ts/);
    const links = blocks.filter((b) => b.type === 'resource_link').map((b) => b.uri ?? '');
    assert.ok(
      links.some((u) => u.endsWith('widget.ts')),
      'a link to the symbol file',
    );
    assert.ok(
      links.some((u) => u.endsWith('/ctx/lib/')),
      'a link to the folder',
    );
  });

  it('says why @terminal attaches nothing when the terminal has no shell integration', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    // An extension's own terminal: no shell runs in it, so there is no shell integration.
    const written = new vscode.EventEmitter<string>();
    const terminal = vscode.window.createTerminal({ name: 'No Integration', pty: { onDidWrite: written.event, open: () => {}, close: () => {} } });
    disposables.push(terminal, written);
    terminal.show();
    await waitFor(() => vscode.window.activeTerminal === terminal, { what: 'the terminal to be active' });
    await chat.mention('terminal', 'last');
    await waitFor(() => /no shell integration/.test(chat.notice ?? ''), { what: 'the sentence' });
    assert.equal(chat.attachments.length, 0);
  });

  it("attaches the terminal's last command, its output and exit code, read through shell integration", async () => {
    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    const terminal = vscode.window.createTerminal({ name: 'With Integration', shellPath: '/bin/bash' });
    disposables.push(terminal);
    terminal.show();
    await waitFor(() => terminal.shellIntegration !== undefined, { timeoutMs: 20_000, what: "the terminal's shell integration" });
    const ended = new Promise<void>((resolve) => {
      const listener = vscode.window.onDidEndTerminalShellExecution((event) => {
        if (event.terminal !== terminal) return;
        listener.dispose();
        resolve();
      });
    });
    terminal.shellIntegration!.executeCommand('echo hello-from-the-terminal; (exit 3)');
    await ended;
    await waitFor(() => vscode.window.activeTerminal === terminal, { what: 'the terminal to be active' });
    await attach(chat, 'terminal', 'terminal');
    await chat.send('why did it fail?');
    const text = lastPrompt(fixture.recordFile).find((b) => b.type === 'resource')?.resource?.text ?? '';
    assert.match(text, /^\$ echo hello-from-the-terminal; \(exit 3\)/);
    assert.match(text, /hello-from-the-terminal/);
    assert.match(text, /exit code 3/);
  });

  it('attaches the uncommitted changes from git, with their size; past the bound they wait for Attach Anyway', async () => {
    const fixture = await useFixtureAgent('echo');
    const repo = join(folder, 'repo');
    mkdirSync(repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: repo });
    git('init', '-q');
    writeFileSync(join(repo, 'big.txt'), 'start\n');
    git('add', '.');
    git('commit', '-qm', 'first');
    // About 300 KB of changes: past the 256 KB bound.
    writeFileSync(join(repo, 'big.txt'), `start\n${'a changed line of text, long enough to add up\n'.repeat(6500)}`);
    // The tests run with Git off (quiet); this one turns it on, as a user has it.
    await vscode.workspace.getConfiguration('git').update('enabled', true, vscode.ConfigurationTarget.Global);
    disposables.push({
      dispose: () => void vscode.workspace.getConfiguration('git').update('enabled', undefined, vscode.ConfigurationTarget.Global),
    });
    const extension = vscode.extensions.getExtension<{
      getAPI(v: 1): { openRepository(uri: vscode.Uri): Promise<unknown>; repositories: unknown[] };
    }>('vscode.git');
    assert.ok(extension, 'the git extension');
    const exports = extension.isActive ? extension.exports : await extension.activate();
    // Git's model starts once the setting is on: getAPI and openRepository fail until then.
    let api: ReturnType<typeof exports.getAPI> | undefined;
    await waitFor(
      async () => {
        try {
          api = exports.getAPI(1);
          await api.openRepository(vscode.Uri.file(repo));
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 20_000, what: 'git to start' },
    );
    await waitFor(() => (api?.repositories.length ?? 0) > 0, { what: 'git to open the repository' });

    const chat = await newChat();
    await attach(chat, 'changes', 'changes');
    const chip = chat.attachments[0]!;
    assert.equal(chip.kind, 'changes');
    assert.ok((chip.size ?? 0) > 256 * 1024, `its size: ${chip.size}`);
    assert.equal(chip.confirm, true, 'it waits for Attach Anyway');
    chat.submit('review my changes');
    await waitFor(() => /Attach Anyway/.test(chat.notice ?? ''), { what: 'the send to be refused, saying why' });
    assert.ok(!recorded(fixture.recordFile).some((m) => m.method === 'session/prompt'), 'nothing was sent');
    assert.equal(chat.attachments.length, 1, 'the chip stays');

    chat.confirmAttachment(chip.id);
    await waitFor(() => chat.attachments[0]?.confirm !== true, { what: 'the chip to be confirmed' });
    assert.equal(await chat.send('review my changes'), 'end_turn');
    const diff = lastPrompt(fixture.recordFile).find((b) => b.type === 'resource')?.resource;
    assert.equal(diff?.mimeType, 'text/x-diff');
    assert.match(diff?.text ?? '', /\+a changed line of text/);

    // @commit: a commit picked from the log (Enter takes the newest), with its message and its diff, bounded alike.
    git('add', '.');
    git('commit', '-qm', 'Grow the big file\n\nWith a line of body.');
    const hash = git('rev-parse', 'HEAD').toString().trim();
    await attachPicked(chat, 'commit', 'the commit picker');
    const commit = chat.attachments.at(-1)!;
    assert.equal(commit.kind, 'commit');
    assert.match(commit.label, /^Commit [0-9a-f]{8}: Grow the big file$/);
    assert.equal(commit.confirm, true, 'a commit past the bound waits for Attach Anyway too');
    chat.confirmAttachment(commit.id);
    await waitFor(() => chat.attachments.at(-1)?.confirm !== true, { what: 'the commit chip to be confirmed' });
    assert.equal(await chat.send('review this commit'), 'end_turn');
    const shown = lastPrompt(fixture.recordFile).find((b) => b.type === 'resource')?.resource;
    assert.match(shown?.text ?? '', new RegExp(`^commit ${hash}\nAuthor: t <t@e>\n`));
    assert.match(shown?.text ?? '', /\n {4}Grow the big file\n {4}\n {4}With a line of body\.\n/);
    assert.match(shown?.text ?? '', /\+a changed line of text/);
  });

  it('@chat attaches an earlier chat of this workspace, picked from the list, as Markdown', async () => {
    // Another agent (the fixture numbers its sessions alike in each process), closed: its transcript is written.
    await useFixtureAgent('echo', { name: 'Earlier fixture' });
    const earlier = await newChat();
    assert.equal(await earlier.send('Remember the word pelican for later.'), 'end_turn');
    await closeAllChats();

    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    assert.ok(
      (await chat.completeMention('ch')).some((m) => m.kind === 'chat'),
      '@ch offers chat',
    );
    // The list is the most recent first, without the chat that asks: Enter takes the chat above.
    await attachPicked(chat, 'chat', 'the chat picker');
    const chip = chat.attachments.at(-1)!;
    assert.equal(chip.kind, 'chat');
    assert.match(chip.label, /^Chat: /);
    assert.equal(await chat.send('what was the word?'), 'end_turn');
    const sent = lastPrompt(fixture.recordFile).find((b) => b.type === 'resource')?.resource;
    assert.equal(sent?.mimeType, 'text/markdown');
    assert.match(sent?.uri ?? '', /^acp-chat:/);
    assert.match(sent?.text ?? '', /## You\n\nRemember the word pelican for later\./);
  });

  describe('@url', () => {
    let server: Server;
    let base: string;
    const asked: string[] = [];
    before(async () => {
      server = createServer((req, res) => {
        asked.push(req.url ?? '');
        if (req.url === '/docs') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            '<html><head><title>Widget docs</title><script>track()</script></head><body><h2>Sizes</h2><p>A widget is <em>small</em>.</p></body></html>',
          );
        } else {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('x'.repeat(3 * 1024 * 1024));
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.close();
      await vscode.workspace.getConfiguration('acp.mentions').update('allowPrivateUrls', undefined, vscode.ConfigurationTarget.Global);
    });

    /** `@url` with `url` in the clipboard (the box starts with it), Enter on the box and on the confirmation. */
    async function attachUrl(chat: ChatHandle, url: string): Promise<void> {
      await vscode.env.clipboard.writeText(url);
      await answeringQuickInput(() => chat.mention('url', 'ask'), ENTER, 'the URL box and its confirmation');
    }

    it('fetches a page after the user confirms, as Markdown; a private address only with the setting; bounded', async () => {
      const fixture = await useFixtureAgent('echo');
      const chat = await newChat();
      assert.ok(
        (await chat.completeMention('ur')).some((m) => m.kind === 'url'),
        '@ur offers url',
      );

      // Off (the default): a server on this machine is refused, and never asked.
      await attachUrl(chat, `${base}/docs`);
      assert.equal(chat.attachments.length, 0);
      assert.match(
        chat.notice ?? '',
        /was not fetched: 127\.0\.0\.1:\d+ is on this machine or a private network; turn on the setting acp\.mentions\.allowPrivateUrls/,
      );
      assert.deepEqual(asked, []);

      await vscode.workspace.getConfiguration('acp.mentions').update('allowPrivateUrls', true, vscode.ConfigurationTarget.Global);
      await attachUrl(chat, `${base}/docs`);
      await waitFor(() => chat.attachments.length === 1, { what: 'the page chip' });
      assert.deepEqual(asked, ['/docs']);
      assert.equal(chat.attachments[0]!.label, 'Page: Widget docs');
      assert.equal(await chat.send('summarize the page'), 'end_turn');
      const page = lastPrompt(fixture.recordFile).find((b) => b.type === 'resource')?.resource;
      assert.deepEqual(page, { uri: `${base}/docs`, mimeType: 'text/markdown', text: '## Sizes\n\nA widget is _small_.' });

      // Past the bound: refused with the reason, nothing attached.
      await attachUrl(chat, `${base}/huge`);
      assert.match(chat.notice ?? '', /was not fetched: .*over the limit of 2\.0 MB/);
      assert.equal(chat.attachments.length, 0);
    });
  });
});
