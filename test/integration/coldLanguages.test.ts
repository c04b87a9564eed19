// The editor's tools on files no editor has open, early in the window's life (this file runs before the other tool
// tests warm the language features up): the built-in TypeScript, JSON and Markdown services start, or load their
// project, as the tools are called. An answer is what the service knows once it has loaded, or it says that it may be
// incomplete: an empty list is never given as the truth. Then an unsaved edit: the tools see the live buffer.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../src/chats/handle';
import { waitFor, within } from '../lib/wait';
import { closeAllChats, messages, newChat, useFixtureAgent, workspaceFolder } from './lib/fixture';

interface Answer {
  readonly isError: boolean;
  readonly text: string;
}

async function call(chat: ChatHandle, ...calls: { tool: string; arguments?: Record<string, unknown> }[]): Promise<Record<string, unknown>[]> {
  const before = messages(chat, 'agent').length;
  assert.equal(await within(chat.send(JSON.stringify(calls)), 90_000, 'the tool calls'), 'end_turn');
  const said = messages(chat, 'agent').slice(before).join('');
  const results = (JSON.parse(said) as { results?: Answer[] }).results;
  assert.ok(results, `the agent reached the tools: ${said}`);
  return results.map((r) => {
    assert.equal(r.isError, false, r.text);
    return JSON.parse(r.text) as Record<string, unknown>;
  });
}

const items = (answer: Record<string, unknown> | undefined) => (answer?.['items'] ?? []) as Record<string, unknown>[];

describe('editor tools on cold language services', function () {
  this.timeout(240_000);
  const folder = () => join(workspaceFolder(), 'cold');

  before(() => {
    rmSync(folder(), { recursive: true, force: true });
    mkdirSync(folder(), { recursive: true });
    writeFileSync(
      join(folder(), 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022' }, include: ['*.ts'] }),
    );
    writeFileSync(join(folder(), 'lib.ts'), 'export function total(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFileSync(join(folder(), 'use.ts'), "import { total } from './lib';\n\nexport const one = total(1, 2);\nexport const two = total(3, 4);\n");
    writeFileSync(join(folder(), 'bad.json'), '{ "name": }\n');
    writeFileSync(join(folder(), 'two.md'), '# First\n\nText.\n\n## Second\n\nMore.\n');
  });

  after(async () => {
    await closeAllChats();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(folder(), { recursive: true, force: true });
  });

  it('answers what the service knows once it has loaded, or says that it may be incomplete, for files no editor has open', async () => {
    await useFixtureAgent('mcp', { name: 'Cold Tooler' });
    const chat = await newChat();
    const shown = () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => (t.input instanceof vscode.TabInputText ? t.input.uri.fsPath : '')));
    assert.ok(!shown().some((p) => p.startsWith(folder())), 'no editor has the files open');
    const [references, symbols, json, hover, definition] = await call(
      chat,
      { tool: 'find_references', arguments: { path: 'cold/lib.ts', line: 1, column: 17 } },
      { tool: 'document_symbols', arguments: { path: 'cold/two.md' } },
      { tool: 'get_diagnostics', arguments: { path: 'cold/bad.json' } },
      { tool: 'hover', arguments: { path: 'cold/use.ts', line: 3, column: 20 } },
      { tool: 'find_definition', arguments: { path: 'cold/use.ts', line: 4, column: 20 } },
    );
    // Every caller, in the other file too: not only the declaration.
    assert.deepEqual(
      items(references)
        .map((l) => `${String(l['path'])}:${String(l['line'])}`)
        .sort(),
      ['cold/lib.ts:1', 'cold/use.ts:1', 'cold/use.ts:3', 'cold/use.ts:4'],
      JSON.stringify(references),
    );
    assert.deepEqual(
      items(symbols).map((s) => String(s['name'])),
      ['# First', '## Second'],
      JSON.stringify(symbols),
    );
    // The JSON service checks only files open in an editor: its problems, or an answer that says it cannot know.
    if (items(json).length === 0) assert.match(String(json?.['note']), /an empty list does not mean it has no problems/, JSON.stringify(json));
    else assert.equal(items(json)[0]?.['severity'], 'error');
    assert.match(String(hover?.['markdown']), /total\(a: number, b: number\): number/, JSON.stringify(hover));
    assert.deepEqual(
      items(definition).map((l) => [l['path'], l['line']]),
      [['cold/lib.ts', 1]],
    );
    assert.ok(!shown().some((p) => p.startsWith(folder())), 'and still none: the files were opened in the background');
  });

  it('sees an unsaved edit: the Problems and the hover of the live buffer', async () => {
    await useFixtureAgent('mcp', { name: 'Cold Tooler' });
    const chat = await newChat();
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(join(folder(), 'use.ts')));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, new vscode.Position(document.lineCount, 0), 'export const wrong: string = total(5, 6);\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(document.isDirty, 'unsaved');
    await waitFor(() => vscode.languages.getDiagnostics(document.uri).some((d) => /not assignable/.test(d.message)), {
      timeoutMs: 60_000,
      what: 'TypeScript to check the edited buffer',
    });
    const [problems, hover] = await call(
      chat,
      { tool: 'get_diagnostics', arguments: { path: 'cold/use.ts' } },
      { tool: 'hover', arguments: { path: 'cold/use.ts', line: 5, column: 15 } },
    );
    assert.deepEqual(
      items(problems).map((d) => [d['severity'], d['line']]),
      [['error', 5]],
      JSON.stringify(problems),
    );
    assert.match(String(hover?.['markdown']), /const wrong: string/, JSON.stringify(hover));
    // The edit taken back, and the file saved as it was: no unsaved buffer is left to the tests after.
    const back = new vscode.WorkspaceEdit();
    back.delete(document.uri, new vscode.Range(4, 0, 5, 0));
    assert.ok(await vscode.workspace.applyEdit(back));
    assert.ok(await document.save());
  });
});
