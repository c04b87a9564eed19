import * as assert from 'node:assert/strict';
import { SessionModel } from '../../../src/acp/sessionModel';
import { TerminalState } from '../../../src/acp/sessionState';
import { BACKGROUND_SHOWN, backgroundViews, outputTail } from '../../../src/chat/backgroundView';

function terminal(text: string): TerminalState {
  const state = new TerminalState();
  state.append(text, 1_000_000);
  return state;
}

describe('the view of background work', () => {
  it('shows the last three lines a command printed, without escapes or blank lines', () => {
    assert.equal(outputTail(undefined), '');
    assert.equal(outputTail(terminal('one\ntwo\n\n\x1b[32mthree\x1b[0m\nfour\n\n')), 'two\nthree\nfour');
    assert.equal(outputTail(terminal('progress 10%\rprogress 90%\n')), 'progress 90%', 'a redrawn line shows as drawn last');
  });

  it('bounds what it reads and each line it shows', () => {
    const long = 'y'.repeat(10_000);
    assert.equal(outputTail(terminal(`${long}\nend\n`)), 'end', 'the start of a line cut by the bound is not shown');
    const shown = outputTail(terminal(`${'z'.repeat(1000)}\n`));
    assert.ok(shown.length <= 201, `one line is clipped (${shown.length})`);
  });

  it('offers Stop for a command the client runs, Dismiss for what only the agent can stop', () => {
    const model = new SessionModel('s');
    model.beginTurn([{ type: 'text', text: 'go' }]);
    model.background.commandStarted('term-1', 'npm run dev');
    model.terminalOutput('term-1', 'ready on :5173\n');
    model.apply({ sessionUpdate: 'tool_call', toolCallId: 'watch', title: 'Watch', status: 'in_progress' });
    model.endTurn('end_turn');
    const views = backgroundViews(model).sort((a, b) => a.key.localeCompare(b.key));
    assert.deepEqual(
      views.map((v) => [v.key, v.title, v.tail, v.stop]),
      [
        ['c:watch', 'Watch', '', 'dismiss'],
        ['t:term-1', 'npm run dev', 'ready on :5173', 'kill'],
      ],
    );
    model.dispose();
  });

  it('shows a bounded number of items, the oldest first', () => {
    const model = new SessionModel('s');
    model.beginTurn([{ type: 'text', text: 'go' }]);
    for (let i = 0; i < 500; i++) model.apply({ sessionUpdate: 'tool_call', toolCallId: `call-${i}`, title: `Call ${i}`, status: 'in_progress' });
    model.endTurn('end_turn');
    const views = backgroundViews(model);
    assert.equal(views.length, BACKGROUND_SHOWN);
    assert.equal(views[0]!.key, 'c:call-0');
    model.dispose();
  });
});
