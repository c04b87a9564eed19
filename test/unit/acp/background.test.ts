import * as assert from 'node:assert/strict';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import type { SessionChange } from '../../../src/acp/sessionState';

const text = (t: string): S.ContentBlock => ({ type: 'text', text: t });
const tool = (toolCallId: string, status: S.ToolCallStatus, extra: Partial<S.ToolCall> = {}): S.SessionUpdate => ({
  sessionUpdate: 'tool_call',
  toolCallId,
  title: `Tool ${toolCallId}`,
  status,
  ...extra,
});
const update = (toolCallId: string, status: S.ToolCallStatus): S.SessionUpdate => ({ sessionUpdate: 'tool_call_update', toolCallId, status });

function backgroundChanges(model: SessionModel): SessionChange[] {
  const changes: SessionChange[] = [];
  model.onDidChange((c) => c.type === 'background' && changes.push(c));
  return changes;
}

const keys = (model: SessionModel) => model.background.items.map((i) => [i.key, i.title, i.terminalId ?? null]);
const statusOf = (model: SessionModel, id: string) => model.toolCall(id)?.status;

describe('background work (what outlives its turn)', () => {
  it('keeps a command the client runs that outlives its turn, until it exits, and tells each change', () => {
    const model = new SessionModel('s');
    const changes = backgroundChanges(model);
    model.beginTurn([text('serve')]);
    model.background.commandStarted('term-1', 'npm run dev');
    model.terminalOutput('term-1', 'starting\n');
    assert.equal(model.background.running, false, 'not background while its turn runs');
    assert.equal(changes.length, 0);
    model.endTurn('end_turn');
    assert.deepEqual(keys(model), [['t:term-1', 'npm run dev', 'term-1']]);
    assert.equal(model.background.running, true);
    assert.equal(changes.length, 1);
    model.terminalOutput('term-1', 'listening\n');
    assert.equal(changes.length, 2, 'its output changes what the strip shows');
    model.terminalExit('term-1', { exitCode: 0, signal: null });
    assert.deepEqual(keys(model), []);
    assert.equal(model.background.running, false);
    assert.equal(changes.length, 3);
    model.dispose();
  });

  it('forgets a command that exits within its turn, and one that is not the client’s', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('test')]);
    model.background.commandStarted('term-1', 'npm test');
    model.terminalExit('term-1', { exitCode: 0, signal: null });
    // An agent that runs commands itself reports their output in `_meta` (codex-acp): not the client's to stop.
    model.apply(tool('call-1', 'in_progress', { _meta: { terminal_output: { terminal_id: 'own-1', data: 'hi\n' } } }));
    model.endTurn('end_turn');
    assert.deepEqual(keys(model), [['c:call-1', 'Tool call-1', null]], 'the agent left its call in progress: only it can stop it');
    model.dispose();
  });

  it('lets nothing the agent says of its own commands end the client’s, whatever id it uses', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('serve')]);
    model.background.commandStarted('term-1', 'npm run dev');
    model.endTurn('end_turn');
    model.apply(tool('spoof', 'completed', { _meta: { terminal_exit: { terminal_id: 'term-1', exit_code: 0 } } }));
    assert.deepEqual(keys(model), [['t:term-1', 'npm run dev', 'term-1']]);
    model.dispose();
  });

  it('keeps what an earlier turn left through the next turn’s end, its stop and its failure', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('serve')]);
    model.apply(tool('watch', 'in_progress'));
    model.endTurn('end_turn');
    for (const end of ['end_turn', 'cancelled', 'failed'] as const) {
      model.beginTurn([text('next')]);
      model.apply(tool(`other-${end}`, 'in_progress'));
      if (end === 'failed') model.failTurn('boom');
      else {
        if (end === 'cancelled') model.cancelTurn();
        model.endTurn(end);
      }
      assert.equal(statusOf(model, 'watch'), 'in_progress', end);
      assert.ok(
        keys(model).some(([key]) => key === 'c:watch'),
        end,
      );
    }
    model.dispose();
  });

  it('runs on only what the turn itself left: not a call replayed before it', () => {
    const model = new SessionModel('s');
    model.apply(tool('replayed', 'in_progress')); // a session/load replay, before any turn here
    model.beginTurn([text('go')]);
    model.apply(tool('mine', 'in_progress'));
    model.endTurn('end_turn');
    assert.equal(statusOf(model, 'replayed'), 'cancelled');
    assert.deepEqual(keys(model), [['c:mine', 'Tool mine', null]]);
    model.dispose();
  });

  it('makes a command started while no turn runs background work at once', () => {
    const model = new SessionModel('s');
    const changes = backgroundChanges(model);
    model.background.commandStarted('term-1', 'watch');
    assert.deepEqual(keys(model), [['t:term-1', 'watch', 'term-1']]);
    assert.equal(changes.length, 1);
    model.dispose();
  });

  it('leaves a tool call the agent left in progress running, and closes the rest as before', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('go')]);
    model.apply(tool('running', 'in_progress'));
    model.apply(tool('waiting', 'pending'));
    model.apply(tool('done', 'completed'));
    model.endTurn('end_turn');
    assert.equal(statusOf(model, 'running'), 'in_progress');
    assert.equal(statusOf(model, 'waiting'), 'cancelled', 'a tool call that never started does not run on');
    assert.equal(statusOf(model, 'done'), 'completed');
    assert.deepEqual(keys(model), [['c:running', 'Tool running', null]]);
    const changes = backgroundChanges(model);
    model.apply(update('running', 'in_progress'));
    assert.equal(changes.length, 1, 'an update of a background tool call changes the strip');
    model.apply(update('running', 'completed'));
    assert.deepEqual(keys(model), []);
    assert.equal(changes.length, 2);
    model.dispose();
  });

  it('does not run on a tool call whose permission was refused, which some agents leave in progress', async () => {
    const model = new SessionModel('s');
    model.beginTurn([text('go')]);
    const options: S.PermissionOption[] = [
      { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ];
    const refused = model.requestPermission({ sessionId: 's', toolCall: { toolCallId: 'refused', title: 'rm -rf', status: 'in_progress' }, options });
    const allowed = model.requestPermission({
      sessionId: 's',
      toolCall: { toolCallId: 'allowed', title: 'npm run dev', status: 'in_progress' },
      options,
    });
    const [first, second] = model.permissions;
    model.resolvePermission(first!.id, 'no');
    model.resolvePermission(second!.id, 'yes');
    await Promise.all([refused, allowed]);
    model.apply(tool('ruled', 'in_progress'));
    model.recordAutoAnswer('ruled', options[1]!, 'your rule');
    model.endTurn('end_turn');
    assert.equal(statusOf(model, 'refused'), 'cancelled');
    assert.equal(statusOf(model, 'ruled'), 'cancelled', 'refused by a rule');
    assert.deepEqual(keys(model), [['c:allowed', 'npm run dev', null]]);
    model.dispose();
  });

  it('runs nothing on after a turn the user stopped or that failed', () => {
    for (const end of ['cancelled', 'failed'] as const) {
      const model = new SessionModel('s');
      model.beginTurn([text('go')]);
      model.apply(tool('running', 'in_progress'));
      if (end === 'cancelled') {
        model.cancelTurn();
        model.endTurn('cancelled');
      } else model.failTurn('boom');
      assert.equal(statusOf(model, 'running'), 'cancelled', end);
      assert.deepEqual(keys(model), [], end);
      model.dispose();
    }
  });

  it('shows a tool call with a background command as one item the client can stop, named by the tool call', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('serve')]);
    model.background.commandStarted('term-1', 'node server.js');
    model.background.commandStarted('term-2', 'tail -f log');
    model.apply(tool('server', 'in_progress', { content: [{ type: 'terminal', terminalId: 'term-1' }] }));
    model.endTurn('end_turn');
    assert.deepEqual(keys(model), [
      ['c:server', 'Tool server', 'term-1'],
      ['t:term-2', 'tail -f log', 'term-2'],
    ]);
    model.terminalExit('term-1', { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(keys(model), [['t:term-2', 'tail -f log', 'term-2']], 'the tool call’s work ended with its command');
    assert.equal(statusOf(model, 'server'), 'in_progress', 'its card says what the agent said');
    model.beginTurn([text('next')]);
    model.endTurn('end_turn');
    assert.deepEqual(keys(model), [['t:term-2', 'tail -f log', 'term-2']], 'nor does it come back when the next turn ends');
    model.dispose();
  });

  it('dismisses only what the client cannot stop', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('go')]);
    model.apply(tool('watch', 'in_progress'));
    model.endTurn('end_turn');
    const changes = backgroundChanges(model);
    assert.equal(model.background.dismiss('c:watch'), true);
    assert.equal(model.background.dismiss('c:watch'), false);
    assert.deepEqual(keys(model), []);
    assert.equal(model.background.running, false);
    assert.equal(changes.length, 1);
    model.beginTurn([text('next')]);
    model.endTurn('end_turn');
    assert.deepEqual(keys(model), [], 'a dismissed call stays dismissed');
    model.dispose();
  });

  it('runs nothing on once the agent is gone, its commands included (their exits are never told)', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('go')]);
    model.background.commandStarted('term-1', 'npm run dev');
    model.apply(tool('watch', 'in_progress'));
    model.endTurn('end_turn');
    assert.equal(keys(model).length, 2);
    const changes = backgroundChanges(model);
    model.agentGone();
    assert.equal(statusOf(model, 'watch'), 'cancelled');
    assert.deepEqual(keys(model), []);
    assert.equal(model.background.running, false);
    assert.ok(changes.length >= 1);
    model.dispose();
  });

  it('keeps a long command line bounded', () => {
    const model = new SessionModel('s');
    model.beginTurn([text('go')]);
    model.background.commandStarted('term-1', 'x'.repeat(100_000));
    model.endTurn('end_turn');
    assert.ok(model.background.items[0]!.title.length <= 501);
    model.dispose();
  });
});
