// VS Code's prompt files with every agent, in a real extension host: the workspace's .github/prompts files are
// offered under / (and follow the files as they change), and picking one asks its ${input:…} values in the chat,
// answered like any question, before its text goes into the composer.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, within } from '../lib/wait';
import { api, closeAllChats, newChat, useFixtureAgent, workspaceFolder } from './lib/fixture';

describe('prompt files', function () {
  this.timeout(60_000);
  let folder: string;

  before(() => {
    folder = join(workspaceFolder(), '.github', 'prompts');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'explain.prompt.md'),
      '---\ndescription: "Explain code to a newcomer"\nmode: ask\n---\nExplain ${input:topic:what to explain} to ${input:who}. Then ${input:topic} again.\n',
    );
  });

  after(() => {
    rmSync(join(workspaceFolder(), '.github'), { recursive: true, force: true });
  });

  afterEach(async () => {
    await closeAllChats();
  });

  it('offers the workspace prompt files with their description, and follows new ones', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    await waitFor(() => chat.prompts.some((p) => p.name === 'explain'), { what: 'the prompt file to be offered' });
    assert.deepEqual(
      chat.prompts.find((p) => p.name === 'explain'),
      { name: 'explain', description: 'Explain code to a newcomer', source: 'workspace' },
    );
    writeFileSync(join(folder, 'later.prompt.md'), 'No front matter, no inputs.\n');
    // Offered when the `/` list opens next (it reads the folders again; the file watcher may report it sooner).
    await waitFor(async () => (await chat.listPromptFiles()).some((p) => p.name === 'later'), { what: 'a new prompt file to be offered' });
  });

  it('asks the inputs in the chat, then puts the filled text in the composer; Cancel puts nothing', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    await waitFor(() => chat.prompts.some((p) => p.name === 'explain'), { what: 'the prompt file to be offered' });

    const used = chat.usePrompt('explain', 'workspace');
    await waitFor(() => chat.elicitations.length === 1, { what: 'the inputs to be asked' });
    const question = chat.elicitations[0]!;
    assert.deepEqual(
      question.form?.fields.map((f) => [f.name, f.description, f.required]),
      [
        ['topic', 'what to explain', true],
        ['who', undefined, true],
      ],
    );
    assert.equal(await chat.answerElicitation(question.id, 'accept', { topic: 'the parser' }), 'who: This is required.');
    assert.equal(await chat.answerElicitation(question.id, 'accept', { topic: 'the parser', who: 'Ada' }), undefined);
    assert.equal(await used, 'Explain the parser to Ada. Then the parser again.\n');
    await waitFor(() => chat.draft === 'Explain the parser to Ada. Then the parser again.\n', { what: 'the text in the composer' });
    assert.equal(chat.elicitations.length, 0);

    const cancelled = chat.usePrompt('explain', 'workspace');
    await waitFor(() => chat.elicitations.length === 1, { what: 'the inputs to be asked again' });
    await chat.answerElicitation(chat.elicitations[0]!.id, 'cancel');
    assert.equal(await cancelled, undefined);
    assert.match(chat.notice ?? '', /was not used/);
  });

  it('closes a chat whose own question still waits, as closing its tab does: the question is settled and the chat is gone', async () => {
    await useFixtureAgent('echo');
    const chat = await newChat();
    await waitFor(() => chat.prompts.some((p) => p.name === 'explain'), { what: 'the prompt file to be offered' });
    const used = chat.usePrompt('explain', 'workspace');
    await waitFor(() => chat.elicitations.length === 1, { what: 'the inputs to be asked' });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(await within(used, 10_000, 'the question to be settled by the close'), undefined);
    await waitFor(async () => !(await api()).chats.includes(chat), { what: 'the chat to leave the list of chats' });
  });
});
