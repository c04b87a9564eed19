import * as assert from 'node:assert/strict';
import type { EntryView, HostMessage } from '../../../src/chat/protocol';
import { compactNumber, initialState, markdownBlocks, promptHistory, reduce, type ChatState } from '../../../webview/state';

const message = (id: number, role: 'user' | 'agent', text: string): EntryView => ({ id, kind: 'message', role, text, chips: [] });

function loaded(entries: EntryView[] = []): ChatState {
  const state: HostMessage = {
    type: 'state',
    agent: 'Gemini',
    restore: { agent: 'Gemini', sessionId: 's1', cwd: '/w' },
    earlier: [],
    entries,
    turn: { phase: 'idle' },
    permissions: [],
    agentError: null,
    session: { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: true } },
    attachments: [],
    checkpoints: { cards: [], restorable: [] },
  };
  return reduce(initialState('half-written'), state);
}

describe('chat view state', () => {
  it('takes the whole state on load and keeps the draft the view saved', () => {
    const state = loaded([message(1, 'user', 'hi')]);
    assert.equal(state.loaded, true);
    assert.equal(state.agent, 'Gemini');
    assert.equal(state.draft, 'half-written');
    assert.deepEqual(state.restore, { agent: 'Gemini', sessionId: 's1', cwd: '/w' });
    assert.equal(state.entries.length, 1);
  });

  it('takes the divider below earlier entries from the state, and drops it when a later state has none', () => {
    const state = loaded();
    const kept = reduce(state, {
      type: 'state',
      agent: 'Gemini',
      earlier: [message(1, 'user', 'old')],
      divider: 'Earlier messages, kept on this computer',
      entries: [],
      turn: { phase: 'idle' },
      permissions: [],
      agentError: null,
      session: state.session,
      attachments: [],
      checkpoints: { cards: [], restorable: [] },
    });
    assert.equal(kept.divider, 'Earlier messages, kept on this computer');
    const restarted = reduce(kept, {
      type: 'state',
      agent: 'Gemini',
      earlier: [message(1, 'user', 'old')],
      entries: [],
      turn: { phase: 'idle' },
      permissions: [],
      agentError: null,
      session: state.session,
      attachments: [],
      checkpoints: { cards: [], restorable: [] },
    });
    assert.equal('divider' in restarted, false);
  });

  it('replaces only the entries an update names, so unchanged entries keep their identity', () => {
    const first = message(1, 'user', 'hi');
    const state = loaded([first, message(2, 'agent', 'Hel')]);
    const next = reduce(state, {
      type: 'update',
      entries: [
        { index: 1, entry: message(2, 'agent', 'Hello') },
        { index: 2, entry: message(3, 'agent', 'more') },
      ],
    });
    assert.equal(next.entries[0], first, 'the first entry was not touched');
    assert.deepEqual(
      next.entries.map((e) => e.kind === 'message' && e.text),
      ['hi', 'Hello', 'more'],
    );
    assert.equal(next.turn, state.turn, 'parts an update leaves out stay as they were');
    const holey = reduce(next, { type: 'update', entries: [{ index: 9, entry: message(9, 'agent', 'x') }] });
    assert.equal(holey.entries.length, 3, 'an index past the end is ignored rather than leaving holes');
  });

  it('gives a refused draft back in front of what was typed since, with the reason', () => {
    let state = reduce(loaded(), { type: 'sent' });
    assert.equal(state.draft, '');
    state = reduce(state, { type: 'draft', text: 'typed since' });
    state = reduce(state, { type: 'sendFailed', text: 'the message', reason: 'the agent is not running' });
    assert.equal(state.draft, 'the message\ntyped since');
    assert.equal(state.notice, 'Not sent: the agent is not running.');
    assert.equal(reduce(state, { type: 'sent' }).notice, undefined, 'sending clears the line');
  });

  it('keeps attachments and file matches from the host, and asks for focus when an attachment comes from the editor', () => {
    let state = reduce(loaded(), { type: 'attachments', attachments: [{ id: '1', kind: 'selection', label: 'a.ts:1-3' }], focus: true });
    assert.equal(state.focusRequest, 1);
    assert.equal(state.attachments.length, 1);
    state = reduce(state, { type: 'attachments', attachments: [], focus: false });
    assert.equal(state.focusRequest, 1);
    state = reduce(state, { type: 'files', requestId: 4, files: [{ path: 'src/a.ts', name: 'a.ts', folder: 'src' }] });
    assert.equal(state.files?.requestId, 4);
  });

  it('recalls the user’s prompts, latest last, without repeats in a row', () => {
    const state = loaded([
      message(1, 'user', 'one'),
      message(2, 'agent', 'ok'),
      message(3, 'user', 'two'),
      message(4, 'user', 'two'),
      message(5, 'user', ' '),
    ]);
    assert.deepEqual(promptHistory(state), ['one', 'two']);
  });

  it('splits long markdown only at blank lines outside code fences, and never moves an earlier cut', () => {
    const para = (n: number) => `${'word '.repeat(n)}\n\n`;
    const fenced = '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n';
    const text = para(300) + fenced + para(300) + para(300);
    const blocks = markdownBlocks(text, 1000);
    assert.equal(blocks.join(''), text, 'nothing lost');
    assert.ok(blocks.length > 1);
    for (const block of blocks) assert.equal((block.match(/```/g) ?? []).length % 2, 0, 'a fence is never cut');
    const grown = markdownBlocks(text + para(50), 1000);
    assert.deepEqual(grown.slice(0, blocks.length - 1), blocks.slice(0, -1), 'streaming more text keeps the earlier blocks');
    assert.deepEqual(markdownBlocks('short'), ['short']);
  });

  it('writes token counts compactly', () => {
    assert.deepEqual([999, 1000, 48_200, 200_000, 1_500_000].map(compactNumber), ['999', '1k', '48.2k', '200k', '1.5M']);
  });
});
