import * as assert from 'node:assert/strict';
import type { ChangesView, CheckpointsView, EntryView, HostMessage } from '../../../src/chat/protocol';
import { INITIAL_PARTS } from '../../../src/chat/protocol';
import {
  cardsAfter,
  turnEnds,
  compactNumber,
  filesChanged,
  initialState,
  lineCounts,
  markdownBlocks,
  promptHistory,
  reduce,
  type ChatState,
} from '../../../webview/state';

const message = (id: number, role: 'user' | 'agent', text: string): EntryView => ({ id, kind: 'message', role, text, chips: [] });
const tool = (id: number): EntryView => ({
  id,
  kind: 'tool',
  toolCallId: `t${id}`,
  title: 'Edit a.ts',
  toolKind: 'edit',
  status: 'completed',
  locations: [],
  content: [],
  diffs: [],
  terminals: [],
});
const card = (turn: number, state: ChangesView['state'] = 'open'): ChangesView => ({
  turn,
  files: [
    { path: 'src/a.ts', status: 'M', added: 10, removed: 3 },
    { path: 'src/b.ts', oldPath: 'src/old.ts', status: 'R', added: 2, removed: 1 },
  ],
  state,
  comments: 0,
});

function loaded(entries: EntryView[] = [], checkpoints: CheckpointsView = { cards: [], restorable: [] }): ChatState {
  const state: HostMessage = {
    type: 'state',
    agent: 'Gemini',
    restore: { agent: 'Gemini', sessionId: 's1', cwd: '/w' },
    earlier: [],
    entries,
    ...INITIAL_PARTS,
    session: { plan: [], commands: [], pickers: [], notices: [], accepts: { image: false, embeddedContext: true } },
    attachments: [],
    checkpoints,
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
      ...INITIAL_PARTS,
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
      ...INITIAL_PARTS,
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

  it('takes a long chat’s last entries first and the rest from the head of the same state; updates count from the session’s first', () => {
    const state = loaded();
    const tail = reduce(state, {
      type: 'state',
      agent: 'Gemini',
      earlier: [message(9, 'user', 'kept')],
      entries: [message(300, 'user', 'late'), message(301, 'agent', 'Hel')],
      ...INITIAL_PARTS,
      session: state.session,
      attachments: [],
      from: { earlier: 1, entries: 300, seq: 2 },
    });
    assert.equal(tail.entriesFrom, 300);
    const updated = reduce(tail, {
      type: 'update',
      entries: [
        { index: 301, entry: message(301, 'agent', 'Hello') },
        { index: 5, entry: message(5, 'agent', 'an early one, changed') },
      ],
    });
    assert.deepEqual(
      updated.entries.map((e) => e.kind === 'message' && e.text),
      ['late', 'Hello'],
      'an update names entries by their index in the session; one in the head to come is the head’s',
    );
    const head = { type: 'head' as const, seq: 2, earlier: [message(8, 'user', 'older')], entries: [message(0, 'user', 'first')] };
    assert.equal(reduce(updated, { ...head, seq: 1 }), updated, 'the head of an earlier state is not this one’s');
    const whole = reduce(updated, head);
    assert.deepEqual(
      [...whole.earlier, ...whole.entries].map((e) => e.kind === 'message' && e.text),
      ['older', 'kept', 'first', 'late', 'Hello'],
    );
    assert.equal(whole.entriesFrom, 0);
    assert.equal(reduce(whole, head), whole, 'a head comes once');
    // A search result in the head, asked for before it came: brought into view once it is there.
    const asked = reduce(updated, { type: 'reveal', earlier: false, entryId: 0 });
    assert.equal(reduce(asked, head).reveal.seq, asked.reveal.seq + 1);
    assert.equal(reduce(updated, head).reveal, updated.reveal, 'nothing to bring into view: nothing moves');
    const next = reduce(whole, { type: 'update', entries: [{ index: 3, entry: message(302, 'agent', 'more') }] });
    assert.equal(next.entries.length, 4);
  });

  it('takes the checkpoints from the state, replaces them when an update carries them, and keeps them otherwise', () => {
    assert.deepEqual(initialState().checkpoints, { cards: [], restorable: [] }, 'nothing to show before the host says');
    const state = loaded([message(1, 'user', 'edit it')], { cards: [card(1)], restorable: [1] });
    assert.deepEqual(state.checkpoints, { cards: [card(1)], restorable: [1] });
    const streamed = reduce(state, { type: 'update', entries: [{ index: 1, entry: message(2, 'agent', 'done') }] });
    assert.equal(streamed.checkpoints, state.checkpoints, 'an update without checkpoints leaves them as they were');
    const kept = reduce(streamed, { type: 'update', entries: [], checkpoints: { cards: [card(1, 'kept')], restorable: [1] } });
    assert.equal(kept.checkpoints.cards[0]?.state, 'kept');
    assert.equal(kept.entries, streamed.entries, 'the entries are untouched');
    const reloaded = reduce(kept, {
      type: 'state',
      agent: 'Gemini',
      earlier: [],
      entries: [],
      ...INITIAL_PARTS,
      session: state.session,
      attachments: [],
      checkpoints: { cards: [], restorable: [] },
    });
    assert.deepEqual(reloaded.checkpoints, { cards: [], restorable: [] }, 'a new state replaces them all');
  });

  it('places each changes card after the last entry of its turn, and leaves out a card whose message is not shown', () => {
    const entries = [
      message(1, 'user', 'first'),
      message(2, 'agent', 'editing'),
      tool(3),
      message(4, 'user', 'second'),
      message(5, 'agent', 'nothing to change'),
      message(6, 'user', 'third'),
      tool(7),
    ];
    const placed = cardsAfter(entries, [card(1), card(6, 'undone'), card(99)]);
    assert.deepEqual(
      [...placed].map(([after, c]) => [after, c.turn]),
      [
        [3, 1],
        [7, 6],
      ],
      'the first turn’s card before the second message, the last turn’s at the end, turn 99 nowhere',
    );
    assert.deepEqual(
      [...cardsAfter(entries.slice(1), [card(1), card(4)])].map(([after, c]) => [after, c.turn]),
      [[5, 4]],
      'a turn whose message scrolled out of the window has no card',
    );
    assert.deepEqual([...cardsAfter([message(1, 'user', 'just sent')], [card(1)])], [[1, card(1)]], 'a turn of one message still shows its card');
    assert.equal(cardsAfter([], [card(1)]).size, 0);
  });

  it('knows where each turn ends, for what goes under a turn (a question, a restore’s line)', () => {
    const entries = [message(1, 'user', 'first'), message(2, 'agent', 'a'), tool(3), message(4, 'user', 'second')];
    assert.deepEqual(
      [...turnEnds(entries)],
      [
        [1, 3],
        [4, 4],
      ],
    );
    assert.deepEqual([...turnEnds([message(2, 'agent', 'before any user message')])], []);
  });

  it('sums a card’s lines and says how many files changed', () => {
    assert.deepEqual(lineCounts(card(1).files), { added: 12, removed: 4 });
    assert.deepEqual(lineCounts([]), { added: 0, removed: 0 });
    assert.equal(filesChanged(3), '3 files changed');
    assert.equal(filesChanged(1), '1 file changed');
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
    state = reduce(state, { type: 'files', requestId: 4, files: [{ kind: 'file', path: 'src/a.ts', name: 'a.ts', folder: 'src' }] });
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
