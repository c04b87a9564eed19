// fs/* through the editor: reads that are never stale, writes as one undoable edit, created files and folders,
// and paths checked against the workspace. The fixture agent makes whatever calls the prompt lists.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { waitFor, within } from '../lib/wait';
import { agentText, closeAllChats, FIXTURE_AGENT, newChat, runSteps, useFixtureAgent, workspaceFolder } from './lib/fixture';

const call = runSteps;

const read = (path: string, extra: Record<string, unknown> = {}) => ({ method: 'fs/read_text_file', params: { path, ...extra } });
const write = (path: string, content: string) => ({ method: 'fs/write_text_file', params: { path, content } });

/**
 * "Gemini CLI" in `acp.agents` as a user writes it by hand (replacing the preset): a command and its args, nothing
 * else. The fixture plays Gemini: its agentInfo, and read-before-write of a new file.
 */
async function useHandConfiguredGemini(extra: Record<string, unknown> = {}): Promise<void> {
  const entry = { command: 'node', args: [FIXTURE_AGENT, '--scenario', 'gemini'], ...extra };
  const config = vscode.workspace.getConfiguration('acp');
  await config.update('agents', { 'Gemini CLI': entry }, vscode.ConfigurationTarget.Global);
  await config.update('defaultAgent', 'Gemini CLI', vscode.ConfigurationTarget.Global);
  await waitFor(
    () => {
      const applied = vscode.workspace.getConfiguration('acp');
      return (
        applied.get('defaultAgent') === 'Gemini CLI' &&
        JSON.stringify(applied.get<Record<string, unknown>>('agents')?.['Gemini CLI']) === JSON.stringify(entry)
      );
    },
    { what: 'the settings to apply' },
  );
}

async function askGeminiToCreate(file: string): Promise<string> {
  const chat = await newChat();
  await within(chat.send(`${basename(join(file, '..'))}/${basename(file)}`), 15_000, 'the turn');
  return agentText(chat);
}

describe('files through the editor', function () {
  this.timeout(30_000);
  let dir: string;

  beforeEach(async () => {
    dir = join(workspaceFolder(), `files-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    await useFixtureAgent('client-calls');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('files.outsideWorkspace', undefined, vscode.ConfigurationTarget.Global);
  });

  it('slices reads by line and limit, keeping line endings', async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, 'one\r\ntwo\nthree\n');
    const [result] = await call(read(file, { line: 2, limit: 2 }));
    assert.deepEqual(result, { content: 'two\nthree\n' });
  });

  it('reads what is on disk when a clean open buffer has not caught up yet', async () => {
    const file = join(dir, 'fresh.txt');
    writeFileSync(file, 'before\n');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    writeFileSync(file, 'after a terminal command\n'); // the buffer may still say "before"
    const [result] = await call(read(file));
    assert.deepEqual(result, { content: 'after a terminal command\n' });
  });

  it('writes an open document with unsaved edits the agent read: one edit, saved, and one Undo restores it', async () => {
    const file = join(dir, 'edited.txt');
    writeFileSync(file, 'on disk\n');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(1, 0), 'typed by the user\n'));
    assert.ok(doc.isDirty);
    const results = await call(read(file), write(file, 'written by the agent\n'));
    assert.deepEqual(results, [{ content: 'on disk\ntyped by the user\n' }, {}]);
    assert.equal(doc.getText(), 'written by the agent\n');
    assert.equal(doc.isDirty, false, 'the document was saved');
    assert.equal(readFileSync(file, 'utf8'), 'written by the agent\n');
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === 'on disk\ntyped by the user\n', { what: 'one Undo to restore the text before the agent wrote' });
  });

  it('creates a missing file and its folders', async () => {
    const file = join(dir, 'new', 'deep', 'created.txt');
    const results = await call(write(file, 'fresh file\n'));
    assert.deepEqual(results, [{}]);
    assert.equal(readFileSync(file, 'utf8'), 'fresh file\n');
  });

  it('answers a missing file with -32002, and a binary file with an error that says so', async () => {
    const binary = join(dir, 'image.bin');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const [missing, bin] = await call(read(join(dir, 'missing.txt')), read(binary));
    assert.equal(missing?.error?.code, -32002);
    assert.match(missing?.error?.message ?? '', /file not found: .*missing\.txt/);
    assert.match(bin?.error?.message ?? '', /image\.bin is not a UTF-8 text file/);
  });

  it('answers a missing file with empty content for an agent configured with readMissingAsEmpty', async () => {
    const fixture = await useFixtureAgent('client-calls', { name: 'Gemini-like' });
    const config = vscode.workspace.getConfiguration('acp');
    const agents = config.get<Record<string, Record<string, unknown>>>('agents') ?? {};
    await config.update('agents', { [fixture.name]: { ...agents[fixture.name], readMissingAsEmpty: true } }, vscode.ConfigurationTarget.Global);
    const [result] = await call(read(join(dir, 'not-yet.txt')));
    assert.deepEqual(result, { content: '' });
  });

  it('creates a new file for a Gemini CLI configured by hand with only command and args', async () => {
    await useHandConfiguredGemini();
    const file = join(dir, 'by-gemini.txt');
    const said = await askGeminiToCreate(file);
    assert.equal(said, 'read:""\nwrite:ok\n', 'its read of the missing file got empty content, so it wrote');
    assert.equal(readFileSync(file, 'utf8'), 'created by Gemini\n');
  });

  it('tells a Gemini CLI the truth about a missing file when its entry sets readMissingAsEmpty to false', async () => {
    await useHandConfiguredGemini({ readMissingAsEmpty: false });
    const file = join(dir, 'not-by-gemini.txt');
    const said = await askGeminiToCreate(file);
    assert.match(said, /^read:error:-32002:file not found: .*not-by-gemini\.txt\n$/);
    assert.equal(existsSync(file), false);
  });

  it('runs a terminal command for the agent in the session folder: create, wait for exit, output, release', async () => {
    await useFixtureAgent('fs');
    writeFileSync(join(workspaceFolder(), 'input.txt'), 'x\n');
    const chat = await newChat();
    await within(chat.send('go'), 15_000, 'the turn');
    assert.match(agentText(chat), /\nterminal:term-\d+\nexit:\{"exitCode":0,"signal":null\}\noutput:hi\n\nrelease:\{\}\n$/);
    assert.equal(readFileSync(join(workspaceFolder(), 'output.txt'), 'utf8'), 'written by the agent');
  });

  describe('paths', () => {
    let outside: string;

    before(() => {
      outside = mkdtempSync(join(tmpdir(), 'acp-outside-'));
      writeFileSync(join(outside, 'secret.txt'), 'secret');
    });

    after(() => rmSync(outside, { recursive: true, force: true }));

    it('refuses a relative path with an error that says why', async () => {
      const [result] = await call(read('src/hello.ts'));
      assert.equal(result?.error?.code, -32602);
      assert.equal(result?.error?.message, 'the path must be absolute: src/hello.ts');
    });

    it('refuses paths outside the workspace, through .. or a symlink, when the setting says deny', async () => {
      await vscode.workspace.getConfiguration('acp').update('files.outsideWorkspace', 'deny', vscode.ConfigurationTarget.Global);
      symlinkSync(outside, join(dir, 'link'));
      const escape = `${workspaceFolder()}${'/..'.repeat(30)}${outside}/secret.txt`; // a string: join() would resolve the ..
      const results = await call(
        read(join(outside, 'secret.txt')),
        read(join(dir, 'link', 'secret.txt')),
        write(join(dir, 'link', 'planted.txt'), 'x'),
        read(escape),
      );
      assert.equal(results.length, 4);
      for (const result of results) {
        assert.equal(result.error?.code, -32602);
        assert.match(result.error?.message ?? '', /outside the workspace folders, and the acp.files.outsideWorkspace setting refuses that/);
      }
      assert.equal(existsSync(join(outside, 'planted.txt')), false, 'nothing was written outside');
    });
  });
});
