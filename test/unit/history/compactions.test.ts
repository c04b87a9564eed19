// Compactions in the session model: placed where they begin, patched in place with the schema's semantics, summaries
// appended and bounded, tokens from `_meta` or from the usage around them; kept in transcripts, found by search,
// exported.
import * as assert from 'node:assert/strict';
import { COMPACTION_SUMMARY_LIMIT, tokensOf } from '../../../src/acp/compactions';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import type { CompactionState } from '../../../src/acp/sessionState';
import { entryView } from '../../../src/chat/view';
import { exportMarkdown } from '../../../src/history/exportMarkdown';
import { replayTranscript, storedEntries } from '../../../src/history/format';
import { fieldsOf } from '../../../src/history/searchMatch';

function compactions(model: SessionModel): CompactionState[] {
  return model.entries.flatMap((e) => (e.type === 'compaction' ? [e.compaction] : []));
}

const update = (u: Record<string, unknown>) => ({ sessionUpdate: 'compaction_update', ...u }) as S.SessionUpdate;
const chunk = (compactionId: string, text: string) =>
  ({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text } }) as S.SessionUpdate;
const say = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }) as S.SessionUpdate;

describe('compactions', () => {
  let model: SessionModel;
  beforeEach(() => (model = new SessionModel('s')));
  afterEach(() => model.dispose());

  it('sits where its first update arrived, and later updates patch it there', () => {
    model.apply(say('before'));
    model.apply(update({ compactionId: 'c1', status: 'in_progress' }));
    model.apply(say(' after'));
    model.apply(update({ compactionId: 'c1', status: 'completed' }));
    assert.deepEqual(
      model.entries.map((e) => e.type),
      ['message', 'compaction', 'message'],
    );
    assert.equal(compactions(model)[0]?.status, 'completed');
  });

  it('patches: an omitted field keeps its value, null clears it, an empty summary clears the summary', () => {
    model.apply(
      update({ compactionId: 'c1', status: 'in_progress', summary: [{ type: 'text', text: 'Kept this' }], error: 'slow', _meta: { a: 1 } }),
    );
    model.apply(update({ compactionId: 'c1', status: 'in_progress' }));
    let c = compactions(model)[0]!;
    assert.deepEqual(c.summary, [{ type: 'text', text: 'Kept this' }]);
    assert.equal(c.error, 'slow');
    assert.deepEqual(c.meta, { a: 1 });
    model.apply(update({ compactionId: 'c1', status: 'failed', error: null, _meta: null }));
    c = compactions(model)[0]!;
    assert.equal(c.error, undefined);
    assert.equal(c.meta, undefined);
    assert.equal(c.summary.length, 1);
    model.apply(update({ compactionId: 'c1', status: 'failed', summary: [] }));
    assert.deepEqual(compactions(model)[0]!.summary, []);
    model.apply(update({ compactionId: 'c1', status: 'failed', summary: [{ type: 'text', text: 'New' }] }));
    model.apply(update({ compactionId: 'c1', status: 'failed', summary: null }));
    assert.deepEqual(compactions(model)[0]!.summary, []);
    assert.equal(compactions(model).length, 1, 'one id, one entry');
  });

  it('a summary chunk for a new id starts an in-progress compaction; chunks append in order', () => {
    model.apply(chunk('c9', 'First, '));
    model.apply(chunk('c9', 'then.'));
    const [c] = compactions(model);
    assert.equal(c?.status, 'in_progress');
    assert.deepEqual(c?.summary, [{ type: 'text', text: 'First, then.' }]);
    // A full summary replaces what the chunks built.
    model.apply(update({ compactionId: 'c9', status: 'completed', summary: [{ type: 'text', text: 'All of it' }] }));
    assert.deepEqual(compactions(model)[0]?.summary, [{ type: 'text', text: 'All of it' }]);
  });

  it('keeps a summary within its bound and says that the rest was dropped', () => {
    const big = 'x'.repeat(COMPACTION_SUMMARY_LIMIT - 10);
    model.apply(chunk('c1', big));
    model.apply(chunk('c1', 'y'.repeat(100)));
    model.apply(chunk('c1', 'z'.repeat(100)));
    const c = compactions(model)[0]!;
    const text = c.summary.map((b) => (b.type === 'text' ? b.text : '')).join('');
    assert.equal(text.length, COMPACTION_SUMMARY_LIMIT);
    assert.equal(c.truncated, true);
    assert.equal(entryView(model.entries[0]!, '/w', new Map()).kind, 'compaction');
  });

  it('takes the tokens before and after from _meta, or from the usage around the compaction', () => {
    assert.deepEqual(tokensOf({ preTokens: 180_000, postTokens: 40_000 }), { before: 180_000, after: 40_000 });
    assert.deepEqual(tokensOf({ claudeCode: { pre_tokens: 5 } }), { before: 5 });
    assert.deepEqual(tokensOf({ tokensBefore: -1, tokensAfter: 'many' }), {});

    model.apply({ sessionUpdate: 'usage_update', used: 150_000, size: 200_000 } as S.SessionUpdate);
    model.apply(update({ compactionId: 'c1', status: 'in_progress' }));
    model.apply(update({ compactionId: 'c1', status: 'completed' }));
    model.apply({ sessionUpdate: 'usage_update', used: 30_000, size: 200_000 } as S.SessionUpdate);
    model.apply({ sessionUpdate: 'usage_update', used: 31_000, size: 200_000 } as S.SessionUpdate);
    assert.deepEqual([compactions(model)[0]?.tokensBefore, compactions(model)[0]?.tokensAfter], [150_000, 30_000]);
    model.apply(update({ compactionId: 'c2', status: 'completed', _meta: { tokensBefore: 99, tokensAfter: 9 } }));
    model.apply({ sessionUpdate: 'usage_update', used: 12, size: 200_000 } as S.SessionUpdate);
    assert.deepEqual([compactions(model)[1]?.tokensBefore, compactions(model)[1]?.tokensAfter], [99, 9], '_meta wins');
  });

  it('is shown with its status, summary, error and tokens', () => {
    model.apply(
      update({
        compactionId: 'c1',
        status: 'failed',
        summary: [{ type: 'text', text: '**Done** so far' }],
        error: 'context too small',
        _meta: { preTokens: 7 },
      }),
    );
    assert.deepEqual(entryView(model.entries[0]!, '/w', new Map()), {
      id: model.entries[0]!.id,
      kind: 'compaction',
      status: 'failed',
      summary: '**Done** so far',
      error: 'context too small',
      tokensBefore: 7,
    });
  });

  it('is kept in the transcript, comes back from it, is found by search, and is in the export', () => {
    model.apply(say('Working'));
    model.apply(
      update({
        compactionId: 'c1',
        status: 'completed',
        summary: [{ type: 'text', text: 'We fixed the parser' }],
        _meta: { preTokens: 1000, postTokens: 100 },
      }),
    );
    const stored = storedEntries(model);
    assert.deepEqual(stored[1], { t: 'compaction', id: 'c1', status: 'completed', text: 'We fixed the parser', before: 1000, after: 100 });
    assert.deepEqual(fieldsOf(stored[1]!), ['We fixed the parser']);

    const back = replayTranscript({ sessionId: 's', entries: stored });
    try {
      const [c] = compactions(back);
      assert.equal(c?.status, 'completed');
      assert.deepEqual(c?.summary, [{ type: 'text', text: 'We fixed the parser' }]);
      assert.deepEqual([c?.tokensBefore, c?.tokensAfter], [1000, 100]);
      assert.deepEqual(storedEntries(back), stored, 'a transcript read back is stored the same');
    } finally {
      back.dispose();
    }

    const md = exportMarkdown({ title: 'T', agent: 'Agent', cwd: '/w', earlier: [], model, exportedAt: new Date(0) });
    assert.match(md, /### Context compacted\n\n_Tokens: 1,000 → 100_/);
    assert.match(md, /<details><summary>Summary<\/summary>\n\n> We fixed the parser\n\n<\/details>/);
  });

  it('a hostile agent cannot grow the entries or the summaries without bound', () => {
    for (let i = 0; i < 1500; i++) model.apply(update({ compactionId: `c${i}`, status: 'completed' }));
    assert.equal(compactions(model).length, 1000);
    const big = 'x'.repeat(COMPACTION_SUMMARY_LIMIT);
    for (let i = 0; i < 40; i++) model.apply(chunk(`c${i}`, big));
    const kept = compactions(model).reduce((sum, c) => sum + c.summaryLength, 0);
    assert.equal(kept, 4 * 1024 * 1024, 'a session keeps 4 M characters of summaries in all');
    model.apply({
      sessionUpdate: 'compaction_summary_chunk',
      compactionId: 'c999',
      content: { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    } as S.SessionUpdate);
    assert.deepEqual(compactions(model)[999]?.summary, [], 'a block that is not text is not kept');
  });
});
