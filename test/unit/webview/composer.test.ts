import * as assert from 'node:assert/strict';
import type { CommandView } from '../../../src/chat/protocol';
import { commandDetail, commandHint, completionAt, matchingCommands, replaceRange, stepOption } from '../../../webview/hooks/completions';
import { recallNewer, recallOlder, type Recall } from '../../../webview/hooks/promptHistory';

const commands: CommandView[] = [
  { name: 'review', description: 'Review the changes', hint: 'what to focus on' },
  { name: 'Reset', description: 'Start over' },
  { name: 'plan', description: 'Make a plan' },
];

describe('composer completions', () => {
  it('offers commands after a leading slash and files after an @', () => {
    assert.deepEqual(completionAt('/rev', 4), { kind: 'command', query: 'rev' });
    assert.deepEqual(completionAt('/review x', 9), undefined, 'not once the command has its input');
    assert.deepEqual(completionAt('look at @src/a', 14), { kind: 'file', query: 'src/a', start: 8 });
    assert.deepEqual(completionAt('mail me@example.com', 19), undefined, 'an @ inside a word is not a mention');
    assert.deepEqual(completionAt('@a and more', 2), { kind: 'file', query: 'a', start: 0 }, 'what is before the caret counts');
  });

  it('lists the commands whose name starts with what was typed, ignoring case, in the agent’s order', () => {
    assert.deepEqual(
      matchingCommands(commands, 're').map((c) => c.name),
      ['review', 'Reset'],
    );
    assert.deepEqual(
      matchingCommands(commands, 'RES').map((c) => c.name),
      ['Reset'],
    );
    assert.deepEqual(
      matchingCommands(commands, '').map((c) => c.name),
      ['review', 'Reset', 'plan'],
      'a bare slash lists them all',
    );
    assert.deepEqual(matchingCommands(commands, 'view'), [], 'the name must start with it');
    assert.equal(commandDetail(commands[0]!), 'Review the changes — what to focus on');
    assert.equal(commandDetail(commands[1]!), 'Start over');
  });

  it('shows a command’s hint once its name and a space are typed, until its input begins', () => {
    assert.equal(commandHint('/review ', commands), 'what to focus on');
    assert.equal(commandHint('/review tests', commands), undefined);
    assert.equal(commandHint('/review', commands), undefined);
    assert.equal(commandHint('/Reset ', commands), undefined, 'a command without a hint');
    assert.equal(commandHint('/reviewer ', commands), undefined, 'the whole name must match');
  });

  it('moves through the list with wrap-around, from where a shrunk list ends', () => {
    assert.equal(stepOption(0, 3, 1), 1);
    assert.equal(stepOption(2, 3, 1), 0);
    assert.equal(stepOption(0, 3, -1), 2);
    assert.equal(stepOption(7, 3, -1), 1, 'the highlight was past the end of a list that shrank');
  });

  it('writes the choice over the query and puts the caret after it', () => {
    const draft = 'look at @sr please';
    assert.deepEqual(replaceRange(draft, 8, 11, '@src/a.ts '), { draft: 'look at @src/a.ts  please', caret: 18 });
    assert.deepEqual(replaceRange('/rev', 0, 4, '/review '), { draft: '/review ', caret: 8 });
  });
});

describe('composer prompt history', () => {
  const history = ['first', 'second', 'third'];

  it('goes back from the draft to the newest prompt, then older ones, and stops at the oldest', () => {
    let step = recallOlder(history, undefined, 'half-written');
    assert.equal(step?.draft, 'third');
    step = recallOlder(history, step?.recall, step?.draft ?? '');
    assert.equal(step?.draft, 'second');
    step = recallOlder(history, step?.recall, step?.draft ?? '');
    step = recallOlder(history, step?.recall, step?.draft ?? '');
    assert.equal(step?.draft, 'first', 'Up at the oldest stays there');
    assert.deepEqual(step?.recall, { index: 0, saved: 'half-written' }, 'the draft is kept for the way back');
  });

  it('comes forward again and gives the saved draft back past the newest, ending the recall', () => {
    let recall: Recall | undefined = { index: 1, saved: 'half-written' };
    let step = recallNewer(history, recall);
    assert.equal(step.draft, 'third');
    recall = step.recall;
    assert.ok(recall);
    step = recallNewer(history, recall);
    assert.deepEqual(step, { recall: undefined, draft: 'half-written' });
  });

  it('does nothing without earlier prompts', () => {
    assert.equal(recallOlder([], undefined, 'draft'), undefined);
  });
});

describe('files dropped on the composer', () => {
  it('takes the URIs of VS Code\u2019s own drag type first, then the standard list, without comments or blanks', async () => {
    const { droppedUris } = await import('../../../webview/hooks/dropped');
    const data = (types: Record<string, string>) => ({ getData: (type: string) => types[type] ?? '' });
    assert.deepEqual(droppedUris(data({ 'application/vnd.code.uri-list': 'file:///w/a.ts\r\nfile:///w/src', 'text/uri-list': 'x' })), [
      'file:///w/a.ts',
      'file:///w/src',
    ]);
    assert.deepEqual(droppedUris(data({ 'text/uri-list': '# a comment\nfile:///w/b.ts\n\n' })), ['file:///w/b.ts']);
    assert.deepEqual(droppedUris(data({})), []);
    assert.deepEqual(droppedUris(null), []);
  });
});
