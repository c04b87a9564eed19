import * as assert from 'node:assert/strict';
import type { EntryView } from '../../../src/chat/protocol';
import { entryText, findMatches, MAX_MATCHES, occurrences, stepped } from '../../../webview/find';

const tool: EntryView = {
  id: 3,
  kind: 'tool',
  toolCallId: 't',
  title: 'Run tests',
  toolKind: 'execute',
  status: 'completed',
  locations: [],
  content: ['Ran 4 tests'],
  diffs: [],
  terminals: [{ id: 'x', output: 'FAIL date.test.ts', truncated: false }],
  rawOutput: '{"failed": 1}',
};

describe('find in chat', () => {
  it('finds in messages, thoughts, tool output and raw output, each match by its row and place', () => {
    const targets = [
      { key: 'n1', text: 'The date test fails.' },
      { key: 'n2', text: 'Date and DATE' },
      { key: 'n3', text: entryText(tool) },
      { key: 'plan', text: 'Fix the date' },
    ];
    assert.deepEqual(findMatches(targets, 'date', false), [
      { key: 'n1', nth: 0 },
      { key: 'n2', nth: 0 },
      { key: 'n2', nth: 1 },
      { key: 'n3', nth: 0 },
      { key: 'plan', nth: 0 },
    ]);
    assert.deepEqual(findMatches(targets, 'Date', true), [{ key: 'n2', nth: 0 }]);
    assert.deepEqual(findMatches(targets, 'failed', false), [{ key: 'n3', nth: 0 }]);
    assert.deepEqual(findMatches(targets, '', false), []);
  });

  it('counts at most MAX_MATCHES, without overlapping matches, and steps around', () => {
    assert.deepEqual(occurrences('aaaa', 'aa', true), [0, 2]);
    // A character that grows when lowered keeps its place: indices stay those of the text.
    assert.deepEqual(occurrences('\u0130\u0130 Foo', 'foo', false), [3]);
    assert.equal(findMatches([{ key: 'n1', text: 'a'.repeat(MAX_MATCHES * 2) }], 'a', true).length, MAX_MATCHES);
    assert.equal(stepped(-1, 1, 3), 0);
    assert.equal(stepped(-1, -1, 3), 2);
    assert.equal(stepped(2, 1, 3), 0);
    assert.equal(stepped(0, -1, 3), 2);
    assert.equal(stepped(0, 1, 0), -1);
  });
});
