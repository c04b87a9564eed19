// The editor's tools for every agent, in a real extension host with its built-in TypeScript, JSON and Markdown
// language features: the fixture agent takes the `vscode` MCP server from session/new and calls each tool over
// Streamable HTTP with the official MCP client. The secret is checked (none, revoked when the chat closes), a web
// page's Origin is refused, and the settings turn tools off at once, for open sessions too.
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename as basenameOf, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { closeAllChats, messages, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

interface CallResult {
  readonly tool: string;
  readonly isError: boolean;
  readonly text: string;
}

/** Sends the calls as the turn's script; what the agent got back, by call. */
async function call(chat: ChatHandle, ...calls: { tool: string; arguments?: Record<string, unknown> }[]): Promise<CallResult[]> {
  const before = messages(chat, 'agent').length;
  assert.equal(await within(chat.send(JSON.stringify(calls)), 60_000, 'the tool calls'), 'end_turn');
  const said = messages(chat, 'agent').slice(before).join('');
  const parsed = JSON.parse(said) as { listed?: string[]; results?: CallResult[]; error?: string };
  assert.ok(parsed.results, `the agent reached the tools: ${said}`);
  return parsed.results;
}

function json(result: CallResult): { items?: Record<string, unknown>[]; markdown?: string; active?: Record<string, unknown> } {
  assert.equal(result.isError, false, `${result.tool} answered: ${result.text}`);
  return JSON.parse(result.text) as ReturnType<typeof json>;
}

/** The `vscode` server session/new gave the agent: its URL and its Authorization header. */
function editorServer(recordFile: string): { url: string; authorization: string } | undefined {
  const opened = recorded(recordFile).filter((m) => m.method === 'session/new');
  const servers = (opened.at(-1)?.params?.['mcpServers'] as { name: string; url?: string; headers?: { name: string; value: string }[] }[]) ?? [];
  const server = servers.find((s) => s.name === 'vscode');
  const authorization = server?.headers?.find((h) => h.name === 'Authorization')?.value;
  return server?.url && authorization ? { url: server.url, authorization } : undefined;
}

function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

async function settings(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('acp');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Global);
}

describe('editor tools', function () {
  this.timeout(180_000);
  let folder: string;
  let recordFile: string;

  before(async () => {
    folder = join(workspaceFolder(), 'tools');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022' }, include: ['*.ts'] }),
    );
    writeFileSync(join(folder, 'shapes.ts'), 'export function area(width: number, height: number): number {\n  return width * height;\n}\n');
    writeFileSync(
      join(folder, 'main.ts'),
      "import { area } from './shapes';\n\nexport const size: number = area(2, 3);\nexport const wrong: string = area(1, 1);\n",
    );
    writeFileSync(join(folder, 'broken.json'), '{ "name": }\n');
    writeFileSync(join(folder, 'notes.md'), '# Notes\n\n## Setup\n\nSome text.\n');
    // The language features are VS Code's: the type error is there once TypeScript has started (which takes a while).
    const main = vscode.Uri.file(join(folder, 'main.ts'));
    await vscode.window.showTextDocument(main);
    await waitFor(() => vscode.languages.getDiagnostics(main).some((d) => /not assignable/.test(d.message)), {
      timeoutMs: 120_000,
      what: 'TypeScript to report the type error',
    });
    // The JSON language server checks files open in an editor (pull diagnostics), as a user has them.
    const broken = await vscode.workspace.openTextDocument(vscode.Uri.file(join(folder, 'broken.json')));
    await vscode.window.showTextDocument(broken, { preview: false });
    // The Markdown language server starts on the first Markdown file.
    const notes = vscode.Uri.file(join(folder, 'notes.md'));
    await vscode.workspace.openTextDocument(notes);
    await waitFor(async () => ((await vscode.commands.executeCommand<unknown[]>('vscode.executeDocumentSymbolProvider', notes)) ?? []).length > 0, {
      timeoutMs: 60_000,
      what: 'the Markdown language server to start',
    });
    await waitFor(() => vscode.languages.getDiagnostics(broken.uri).length > 0, { timeoutMs: 60_000, what: 'the JSON language server to report' });
  });

  beforeEach(async () => {
    recordFile = (await useFixtureAgent('mcp', { name: 'Tooler' })).recordFile;
  });

  afterEach(async () => {
    await closeAllChats();
    await settings({ 'editorTools.enabled': undefined, 'editorTools.tools': undefined });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(folder, { recursive: true, force: true });
  });

  it('gives the agent the Problems, definitions, references, symbols, hovers and open editors, on live buffers', async () => {
    const chat = await newChat();
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(join(folder, 'main.ts')));
    editor.selection = new vscode.Selection(2, 28, 2, 38); // area(2, 3)
    const [problems, json5, definition, references, symbols, hover, editors, outside, workspaceSymbols] = await call(
      chat,
      { tool: 'get_diagnostics', arguments: { path: 'tools/main.ts' } },
      { tool: 'get_diagnostics', arguments: { path: 'tools/broken.json' } },
      { tool: 'find_definition', arguments: { path: 'tools/main.ts', line: 3, column: 29 } },
      { tool: 'find_references', arguments: { path: 'tools/shapes.ts', line: 1, column: 17 } },
      { tool: 'document_symbols', arguments: { path: 'tools/notes.md' } },
      { tool: 'hover', arguments: { path: 'tools/main.ts', line: 3, column: 29 } },
      { tool: 'open_editors' },
      { tool: 'get_diagnostics', arguments: { path: '../outside.ts' } },
      { tool: 'workspace_symbols', arguments: { query: 'area' } },
    );
    const typeError = json(problems!).items?.[0];
    assert.equal(typeError?.['severity'], 'error', 'errors first');
    assert.equal(typeError?.['path'], 'tools/main.ts');
    assert.equal(typeError?.['line'], 4, '1-based');
    assert.match(String(typeError?.['message']), /not assignable to type 'string'/);
    assert.ok(
      json(json5!).items?.some((d) => d['severity'] === 'error'),
      'the broken JSON file has an error',
    );
    assert.deepEqual(
      json(definition!).items?.map((l) => [l['path'], l['line'], l['text']]),
      [['tools/shapes.ts', 1, 'export function area(width: number, height: number): number {']],
    );
    assert.deepEqual(
      json(references!)
        .items?.map((l) => `${String(l['path'])}:${String(l['line'])}`)
        .sort(),
      ['tools/main.ts:1', 'tools/main.ts:3', 'tools/main.ts:4', 'tools/shapes.ts:1'],
    );
    const names = json(symbols!).items?.map((s) => String(s['name'])) ?? [];
    assert.ok(names.some((n) => /Notes/.test(n)) && names.some((n) => /Setup/.test(n)), `the Markdown headings: ${JSON.stringify(names)}`);
    assert.match(json(hover!).markdown ?? '', /area\(width: number, height: number\): number/);
    const open = json(editors!);
    assert.ok(open.items?.some((t) => t['path'] === 'tools/main.ts'));
    assert.deepEqual(open.active, {
      path: 'tools/main.ts',
      selection: { line: 3, column: 29, endLine: 3, endColumn: 39 },
      selectedText: 'area(2, 3)',
    });
    assert.equal(outside!.isError, true);
    assert.match(outside!.text, /outside this session's workspace/);
    assert.ok(
      json(workspaceSymbols!).items?.some((s) => /^area/.test(String(s['name'])) && s['path'] === 'tools/shapes.ts' && s['line'] === 1),
      workspaceSymbols!.text,
    );
  });

  it('reaches an agent without MCP over HTTP through the stdio bridge, run with the editor\u2019s own runtime', async () => {
    recordFile = (await useFixtureAgent('mcpStdio', { name: 'Stdio Tooler' })).recordFile;
    const chat = await newChat();
    const [problems, hover] = await call(
      chat,
      { tool: 'get_diagnostics', arguments: { path: 'tools/main.ts' } },
      { tool: 'hover', arguments: { path: 'tools/main.ts', line: 3, column: 29 } },
    );
    assert.match(String(json(problems!).items?.[0]?.['message']), /not assignable to type 'string'/);
    assert.match(json(hover!).markdown ?? '', /area\(width: number, height: number\): number/);
    const opened = recorded(recordFile).find((m) => m.method === 'session/new');
    const server = (opened?.params?.['mcpServers'] as { name: string; command?: string; args?: string[]; env?: { name: string }[] }[]).find(
      (s) => s.name === 'vscode',
    );
    assert.equal(server?.command, process.execPath, 'the extension host\u2019s runtime');
    assert.match(server?.args?.[0] ?? '', /dist[\\/]mcp-stdio\.js$/);
    assert.deepEqual(
      server?.env?.map((e) => e.name),
      ['ELECTRON_RUN_AS_NODE', 'ACP_EDITOR_TOOLS_SOCKET', 'ACP_EDITOR_TOOLS_SECRET'],
    );
  });

  it('renames a symbol once the user accepts each file\u2019s diff, and changes nothing when one is rejected', async () => {
    const chat = await newChat();
    const shapes = join(folder, 'shapes.ts');
    const main = join(folder, 'main.ts');
    const rename = (newName: string) => call(chat, { tool: 'rename_symbol', arguments: { path: 'tools/shapes.ts', line: 1, column: 17, newName } });
    /** Answers each review as it opens (its diff is the active tab), `decisions` in turn. */
    const answer = async (...decisions: ('acp.acceptEdit' | 'acp.rejectEdit')[]) => {
      for (const decision of decisions) {
        const diff = await waitFor(
          () => {
            const input = vscode.window.tabGroups.all
              .flatMap((g) => g.tabs)
              .find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'acp-review')?.input;
            return input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
          },
          { timeoutMs: 30_000, what: 'a file of the rename to be shown for review' },
        );
        await vscode.commands.executeCommand(decision, diff);
        await waitFor(
          () =>
            !vscode.window.tabGroups.all
              .flatMap((g) => g.tabs)
              .some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === diff.toString()),
          {
            what: 'the reviewed diff to close',
          },
        );
      }
    };

    const [rejected] = await Promise.all([rename('size2d'), answer('acp.acceptEdit', 'acp.rejectEdit')]);
    assert.match(rejected[0]!.text, /did not accept the change to tools\/.*; nothing changed/);
    assert.match(readFileSync(shapes, 'utf8'), /function area\(/, 'nothing renamed');
    assert.match(readFileSync(main, 'utf8'), /import \{ area \}/);

    const [applied] = await Promise.all([rename('surface'), answer('acp.acceptEdit', 'acp.acceptEdit')]);
    const result = JSON.parse(applied[0]!.text) as { applied: boolean; files: { path: string; edits: number }[] };
    assert.equal(result.applied, true, applied[0]!.text);
    assert.deepEqual(result.files.map((f) => f.path).sort(), ['tools/main.ts', 'tools/shapes.ts']);
    assert.match(readFileSync(shapes, 'utf8'), /function surface\(/, 'applied, and saved');
    assert.match(readFileSync(main, 'utf8'), /import \{ surface \} from '\.\/shapes';/);
    assert.match(readFileSync(main, 'utf8'), /size: number = surface\(2, 3\)/);

    // A rename is one edit: one Undo takes all of it back (a rename in one file: VS Code asks before undoing across files).
    const [local] = await Promise.all([
      call(chat, { tool: 'rename_symbol', arguments: { path: 'tools/shapes.ts', line: 1, column: 25, newName: 'across' } }),
      answer('acp.acceptEdit'),
    ]);
    assert.equal((JSON.parse(local[0]!.text) as { applied: boolean }).applied, true, local[0]!.text);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(shapes));
    assert.match(document.getText(), /surface\(across: number, height: number\)[^]*return across \* height/);
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => /surface\(width: number, height: number\)[^]*return width \* height/.test(document.getText()), {
      what: 'one Undo to take the whole rename back',
    });
  });

  it('lists the tasks, and runs one in its terminal once the user allows it, with its exit code and output; a rejected one does not run', async () => {
    const chat = await newChat();
    const tasksFile = join(workspaceFolder(), '.vscode', 'tasks.json');
    const marker = join(workspaceFolder(), 'marker.txt');
    const greet = (options?: Record<string, unknown>) => ({
      label: 'greet',
      type: 'shell',
      command: 'echo "hello from ${workspaceFolderBasename}"; exit 3',
      ...(options ? { options } : {}),
    });
    const writeTasks = (greeting: Record<string, unknown>) =>
      writeFileSync(
        tasksFile,
        JSON.stringify({ version: '2.0.0', tasks: [greeting, { label: 'mark', type: 'shell', command: 'echo made > marker.txt' }] }),
      );
    mkdirSync(dirname(tasksFile), { recursive: true });
    writeTasks(greet());
    try {
      await waitFor(async () => (await vscode.tasks.fetchTasks()).some((t) => t.name === 'mark'), { what: 'VS Code to read tasks.json' });
      const [listed] = await call(chat, { tool: 'list_tasks' });
      const listedGreet = json(listed!).items?.find((t) => t['name'] === 'greet');
      // As written: a resolved ${env:…} could be a secret.
      assert.equal(listedGreet?.['runs'], 'echo "hello from ${workspaceFolderBasename}"; exit 3', JSON.stringify(listedGreet));

      /** Answers the task's permission request in the chat, as a click on its card does. */
      const answerTask = async (label: string, option: 'allow' | 'always' | 'reject') => {
        const request = await waitFor(() => chat.permissions.find((p) => p.title.startsWith(`Run task \u201c${label}\u201d`)), {
          what: `the permission request to run ${label}`,
        });
        assert.equal(request.toolKind, 'execute');
        assert.ok(await chat.answerPermission(request.id, option));
      };
      const runGreet = async () => {
        const [ran] = await call(chat, { tool: 'run_task', arguments: { name: 'greet' } });
        return JSON.parse(ran!.text) as { exitCode?: number; output?: string; ran?: boolean; note?: string };
      };
      const basename = basenameOf(workspaceFolder());
      const [first] = await Promise.all([runGreet(), answerTask('greet', 'always')]);
      assert.equal(first.exitCode, 3, JSON.stringify(first));
      assert.match(first.output ?? '', new RegExp(`hello from ${basename}`));
      assert.ok(
        vscode.window.terminals.some((t) => t.name.includes('greet')),
        'the task ran in its terminal',
      );
      const cards = () => chat.entries.filter((e) => e.kind === 'tool' && e.title.startsWith('Run task \u201cgreet\u201d'));
      const card = cards()[0];
      assert.ok(card?.kind === 'tool' && card.status === 'failed' && card.content.some((c) => /hello from/.test(c) && /exit code 3/.test(c)));

      // "Always" holds for that run: asked no more, and the card says which rule answered.
      const again = await runGreet();
      assert.equal(again.exitCode, 3);
      const second = cards()[1];
      assert.ok(second?.kind === 'tool' && second.autoAnswer, 'answered by the rule');
      // The same task with another environment is another run: asked again.
      writeTasks(greet({ env: { GREETING: 'changed' } }));
      await waitFor(
        async () =>
          (await vscode.tasks.fetchTasks()).some(
            (t) => t.name === 'greet' && t.execution instanceof vscode.ShellExecution && t.execution.options?.env,
          ),
        { what: 'VS Code to read the changed tasks.json' },
      );
      const [changed] = await Promise.all([runGreet(), answerTask('greet', 'reject')]);
      assert.equal(changed.ran, false, JSON.stringify(changed));

      const [[rejected]] = await Promise.all([call(chat, { tool: 'run_task', arguments: { name: 'mark' } }), answerTask('mark', 'reject')]);
      assert.match(rejected!.text, /did not allow the task to run/);
      assert.equal(existsSync(marker), false, 'the rejected task did not run');

      // What decides the run is in the question: a shell of the task's own with its arguments, the environment it sets.
      const trojan = {
        label: 'npm test',
        type: 'shell',
        command: 'npm test',
        options: { shell: { executable: '/bin/sh', args: ['-c', 'echo made > marker.txt'] }, env: { BASH_ENV: '/tmp/payload.sh' } },
      };
      // A value from the environment that a shell would run is refused, whoever asks.
      process.env['ACP_TEST_TASK_VALUE'] = 'x; echo made > marker.txt';
      const tainted = { label: 'tainted', type: 'shell', command: 'echo ${env:ACP_TEST_TASK_VALUE}' };
      writeFileSync(tasksFile, JSON.stringify({ version: '2.0.0', tasks: [trojan, tainted] }));
      await waitFor(async () => (await vscode.tasks.fetchTasks()).some((t) => t.name === 'tainted'), { what: 'VS Code to read the trojan tasks' });
      const [[trojanAnswer]] = await Promise.all([
        call(chat, { tool: 'run_task', arguments: { name: 'npm test' } }),
        (async () => {
          const request = await waitFor(() => chat.permissions.find((p) => p.title.startsWith('Run task \u201cnpm test\u201d')), {
            what: 'the question',
          });
          assert.match(
            request.title,
            /^Run task \u201cnpm test\u201d: \/bin\/sh -c 'echo made > marker\.txt' 'npm test' \u00b7 setting BASH_ENV=\/tmp\/payload\.sh \u00b7 [0-9a-f]{8}$/,
          );
          assert.ok(await chat.answerPermission(request.id, 'reject'));
        })(),
      ]);
      assert.match(trojanAnswer!.text, /did not allow the task to run/);
      const [refused] = await call(chat, { tool: 'run_task', arguments: { name: 'tainted' } });
      assert.match(
        refused!.text,
        /was not run: \$\{env:ACP_TEST_TASK_VALUE\} \(the environment variable ACP_TEST_TASK_VALUE\) has a character a shell acts on/,
      );
      assert.ok(!chat.permissions.some((p) => p.title.includes('tainted')), 'not even asked');
      assert.equal(existsSync(marker), false, 'neither ran');
    } finally {
      delete process.env['ACP_TEST_TASK_VALUE'];
      rmSync(tasksFile, { force: true });
      rmSync(marker, { force: true });
    }
  });

  it('checks the secret (none, revoked when the chat closes), refuses a web page, and honours the settings at once', async () => {
    const chat = await newChat();
    await waitFor(() => chat.sessionId !== undefined, { what: 'the session' });
    const server = editorServer(recordFile);
    assert.ok(server, 'session/new carries the vscode server, over http, with a bearer secret');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(await post(server.url, { Authorization: server.authorization }), 200);
    assert.equal(await post(server.url, {}), 401, 'no secret');
    assert.equal(await post(server.url, { Authorization: server.authorization, Origin: 'https://example.com' }), 403, 'a web page');

    await settings({ 'editorTools.tools': ['hover'] });
    const [notListed] = await call(chat, { tool: 'get_diagnostics' });
    assert.equal(notListed!.isError, true);
    assert.match(notListed!.text, /get_diagnostics is not in the setting acp.editorTools.tools/);
    await settings({ 'editorTools.enabled': false });
    const [off] = await call(chat, { tool: 'hover', arguments: { path: 'tools/main.ts', line: 1, column: 1 } });
    assert.match(off!.text, /turned off/);

    chat.close();
    await waitFor(async () => (await post(server.url, { Authorization: server.authorization })) === 401, { what: 'the secret to be revoked' });
    await newChat();
    await waitFor(() => recorded(recordFile).filter((m) => m.method === 'session/new').length === 2, { what: 'the second session' });
    assert.equal(editorServer(recordFile), undefined, 'with the setting off, a new session has no vscode server');
  });
});
