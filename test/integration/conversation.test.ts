// What the composer sends, in a real extension host: files and selections from the editor's "Add … to Chat"
// commands become embedded resources (with unsaved text) or links, as the agent accepts them; the pickers reach
// the agent and show what it answers.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../lib/wait';
import { closeAllChats, newChat, recorded, useFixtureAgent, workspaceFolder } from './lib/fixture';

interface Block {
  type: string;
  text?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text: string };
}

/** The blocks of the last session/prompt the agent received. */
function lastPrompt(recordFile: string): Block[] {
  const prompts = recorded(recordFile).filter((m) => m.method === 'session/prompt');
  return (prompts[prompts.length - 1]?.params?.['prompt'] ?? []) as Block[];
}

describe('the composer’s context', function () {
  this.timeout(30_000);
  const hello = () => vscode.Uri.file(join(workspaceFolder(), 'src', 'hello.ts'));

  afterEach(async () => {
    await closeAllChats();
    // The next test starts from the file as it is on disk: its buffer gets the disk text back, and is saved.
    const doc = await vscode.workspace.openTextDocument(hello());
    if (doc.isDirty) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), readFileSync(hello().fsPath, 'utf8'));
      await vscode.workspace.applyEdit(edit);
      await doc.save();
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('sends a file from "Add File to Chat" as an embedded resource with its unsaved text', async () => {
    const fixture = await useFixtureAgent('echo');
    const doc = await vscode.workspace.openTextDocument(hello());
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '// unsaved\n'));
    const chat = await newChat();
    await vscode.commands.executeCommand('acp.addFileToChat', hello());
    assert.deepEqual(
      chat.attachments.map((a) => [a.kind, a.label]),
      [['file', 'src/hello.ts']],
    );
    await chat.send('what is in it?');
    assert.deepEqual(chat.attachments, [], 'sent attachments leave the composer');
    const prompt = lastPrompt(fixture.recordFile);
    assert.equal(prompt[0]?.text, 'what is in it?');
    assert.equal(prompt[1]?.type, 'resource');
    assert.equal(prompt[1]?.resource?.uri, hello().toString());
    assert.equal(prompt[1]?.resource?.text, doc.getText(), 'the buffer, unsaved edit included');
    assert.ok(prompt[1]?.resource?.text.startsWith('// unsaved\n'));
    // The sent message shows the file as a chip.
    const user = chat.entries[0];
    assert.ok(user?.kind === 'message' && user.role === 'user');
    assert.deepEqual(user.chips, [{ kind: 'file', label: 'src/hello.ts' }]);
  });

  it('sends a link instead when the agent does not accept embedded context, and a selection as quoted text', async () => {
    const fixture = await useFixtureAgent('echo', { env: { ACP_FIXTURE_AGENT_CAPABILITIES: JSON.stringify({ promptCapabilities: {} }) } });
    const chat = await newChat();
    await vscode.commands.executeCommand('acp.addFileToChat', hello());
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(hello()));
    editor.selection = new vscode.Selection(0, 0, 0, 12);
    await vscode.commands.executeCommand('acp.addSelectionToChat');
    assert.deepEqual(
      chat.attachments.map((a) => [a.kind, a.label]),
      [
        ['file', 'src/hello.ts'],
        ['selection', 'src/hello.ts:1'],
      ],
    );
    await chat.send('and these');
    const prompt = lastPrompt(fixture.recordFile);
    assert.deepEqual(prompt[1], { type: 'resource_link', uri: hello().toString(), name: 'hello.ts' });
    assert.equal(prompt[2]?.type, 'text');
    assert.equal(prompt[2]?.text, '\nsrc/hello.ts:1:\n```typescript\nexport const\n```\n');
    assert.deepEqual(prompt[3], { type: 'resource_link', uri: hello().toString(), name: 'hello.ts' });
    assert.ok(!prompt.some((b) => b.type === 'resource'), 'nothing the agent did not accept');
  });

  it('adds the selection to the chat the user last worked in, with its lines in the resource', async () => {
    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(hello()), vscode.ViewColumn.One);
    editor.selection = new vscode.Selection(0, 7, 1, 0); // to the start of line 2: line 1 only
    await vscode.commands.executeCommand('acp.addSelectionToChat');
    await waitFor(() => chat.attachments.length === 1, { what: 'the selection in the chat' });
    await chat.send('explain');
    const resource = lastPrompt(fixture.recordFile)[1]?.resource;
    assert.equal(resource?.uri, `${hello().toString()}#L1-L1`);
    assert.equal(resource?.text, 'const hello = "world";\n');
  });

  it('refuses files outside the workspace and folders, and says why', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    await vscode.commands.executeCommand('acp.addFileToChat', vscode.Uri.file('/etc/hostname'));
    await vscode.commands.executeCommand('acp.addFileToChat', vscode.Uri.file(join(workspaceFolder(), 'src')));
    assert.deepEqual(chat.attachments, []);
  });

  it('sets the mode and a config option through the agent, and shows what it answers', async () => {
    const fixture = await useFixtureAgent('echo');
    const chat = await newChat();
    const current = (id: string) => chat.session.pickers.find((p) => p.id === id)?.current;
    await chat.setMode('plan');
    assert.equal(current('mode'), 'plan');
    await chat.setConfigOption('model', 'smart');
    assert.equal(current('model'), 'smart');
    await assert.rejects(chat.setConfigOption('model', 'huge'), /unknown model/);
    assert.equal(current('model'), 'smart', 'a refused change leaves the value');
    const sent = recorded(fixture.recordFile);
    assert.deepEqual(sent.find((m) => m.method === 'session/set_mode')?.params, { sessionId: chat.sessionId, modeId: 'plan' });
    assert.deepEqual(sent.find((m) => m.method === 'session/set_config_option')?.params, {
      sessionId: chat.sessionId,
      configId: 'model',
      value: 'smart',
    });
  });
});
