// Copy, as the chat's buttons and menu do it, in a real extension host: a message gives its Markdown source, a tool
// card its output, and Copy Chat as Markdown the whole conversation; each lands on VS Code's clipboard.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { closeAllChats, newChat, useFixtureAgent } from './lib/fixture';

describe('copy', function () {
  this.timeout(30_000);

  afterEach(async () => {
    await closeAllChats();
  });

  it('copies a message as its Markdown source, a tool card as its output, and the chat as Markdown', async () => {
    await useFixtureAgent('tools');
    const chat = await newChat();
    assert.equal(await chat.send('Make **it** so, with `code`'), 'end_turn');
    const entry = (test: (e: (typeof chat.entries)[number]) => boolean) => {
      const found = chat.entries.find(test);
      assert.ok(found, 'the entry is shown');
      return found;
    };
    const copied = async (id: number, expected: string) => {
      await vscode.env.clipboard.writeText('');
      assert.equal(await chat.copyEntry(id), true);
      assert.equal(await vscode.env.clipboard.readText(), expected);
    };
    await copied(entry((e) => e.kind === 'message' && e.role === 'user').id, 'Make **it** so, with `code`');
    await copied(entry((e) => e.kind === 'tool' && e.title === 'Edit src/a.ts').id, 'Edited 1 line');
    await copied(entry((e) => e.kind === 'message' && e.role === 'agent').id, 'Done.');
    // A card without output has nothing to copy, and the clipboard keeps what it had.
    await vscode.env.clipboard.writeText('kept');
    assert.equal(await chat.copyEntry(entry((e) => e.kind === 'tool' && e.title === 'Never announced').id), false);
    assert.equal(await chat.copyEntry(100_000), false);
    assert.equal(await vscode.env.clipboard.readText(), 'kept');

    assert.equal(await vscode.commands.executeCommand('acp.copyChatAsMarkdown'), true);
    const markdown = await vscode.env.clipboard.readText();
    assert.match(markdown, /^# /);
    assert.match(markdown, /## You\n\nMake \*\*it\*\* so, with `code`\n/);
    assert.match(markdown, /### .*Edit src/);
  });
});
