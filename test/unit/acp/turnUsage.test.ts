// The tokens a turn used (unstable PromptResponse.usage): read strictly, optional counts dropped when invalid, and
// shown under the turn's last entry.
import * as assert from 'node:assert/strict';
import { SessionModel } from '../../../src/acp/sessionModel';
import { turnUsageOf } from '../../../src/acp/turnUsage';
import { turnView } from '../../../src/chat/view';

describe('turn usage', () => {
  it('reads the usage of a prompt answer, or nothing when it is not one the schema describes', () => {
    assert.deepEqual(
      turnUsageOf({
        stopReason: 'end_turn',
        usage: { totalTokens: 30, inputTokens: 20, outputTokens: 10, thoughtTokens: null, cachedReadTokens: 5 },
      }),
      {
        total: 30,
        input: 20,
        output: 10,
        cachedRead: 5,
      },
    );
    assert.deepEqual(
      turnUsageOf({ usage: { totalTokens: 3, inputTokens: 2, outputTokens: 1, thoughtTokens: -4 } }),
      { total: 3, input: 2, output: 1 },
      'an invalid optional count is dropped',
    );
    for (const bad of [
      undefined,
      null,
      'x',
      { usage: null },
      { usage: { totalTokens: 1 } },
      { usage: { totalTokens: -1, inputTokens: 0, outputTokens: 0 } },
      { usage: { totalTokens: 1.5, inputTokens: 1, outputTokens: 0 } },
    ])
      assert.equal(turnUsageOf(bad), undefined, JSON.stringify(bad));
  });

  it('is shown after the turn\u2019s last entry, for the turns that reported it', () => {
    const model = new SessionModel('s');
    try {
      model.beginTurn([{ type: 'text', text: 'hi' }]);
      model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } });
      model.endTurn('end_turn', { total: 3, input: 2, output: 1 });
      model.beginTurn([{ type: 'text', text: 'again' }]);
      model.endTurn('end_turn');
      assert.deepEqual(turnView(model.turn, model).usage, [{ after: model.entries[1]!.id, total: 3, input: 2, output: 1 }]);
    } finally {
      model.dispose();
    }
  });
});
