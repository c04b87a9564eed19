import * as assert from 'node:assert/strict';
import { Emitter } from 'vscode-jsonrpc/node';
import type { AgentSession } from '../../../src/acp/agentClient';
import { AgentExitError } from '../../../src/acp/errors';
import type { AgentEnd } from '../../../src/acp/process';
import { SessionModel } from '../../../src/acp/sessionModel';
import { ChatModel, type ChatChange } from '../../../src/chat/chatModel';
import { snapshotOf, stateOf } from '../../../src/chat/snapshot';

/** A session as the chat's model reads it: a real session model, and an agent whose end the test decides. */
function session(sessionId: string) {
  const ends = new Emitter<AgentEnd>();
  const model = new SessionModel(sessionId);
  const agentSession = {
    sessionId,
    cwd: '/work',
    model,
    leftOut: [],
    onDidEndAgent: ends.event,
    client: {
      process: { pid: 1 },
      capabilities: { accepts: { image: false, embeddedContext: false }, supports: () => false },
      auth: { status: { state: 'unknown', accounts: [] }, onDidChange: new Emitter<void>().event },
    },
  } as unknown as AgentSession;
  return { session: agentSession, model, end: (end: AgentEnd) => ends.fire(end) };
}

/** A chat's model, and every change it told, in order. */
function chat() {
  const model = new ChatModel('Fixture', (cwd) => (cwd === '/work' ? { path: '/work', branch: 'acp/one' } : undefined));
  const changes: ChatChange[] = [];
  model.onDidChange((change) => changes.push(change));
  return { model, changes };
}

const FACE = { location: 'editor', title: 'Fixture', attention: 'none' } as const;

describe('the chat model', () => {
  it('tells one change per thing that changed: an entry by index, a part, a turn that ended, and a new session whole', () => {
    const { model, changes } = chat();
    const one = session('s1');
    model.attach(one.session);
    assert.deepEqual(changes.splice(0), [{ kind: 'whole', attached: one.session }]);
    one.model.beginTurn([{ type: 'text', text: 'hi' }]);
    one.model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } });
    one.model.endTurn('end_turn');
    const told = changes
      .splice(0)
      .map((c) =>
        c.kind === 'entry' ? `entry ${c.index}` : c.kind === 'part' ? `${c.part}${c.ended ? ` ended ${c.ended.stopReason}` : ''}` : c.kind,
      );
    assert.equal(told.at(-1), 'turn ended end_turn', told.join(', '));
    assert.ok(told.includes('entry 0') && told.includes('entry 1'), told.join(', '));
    assert.equal(told.filter((t) => t.includes('ended')).length, 1, 'the end is told once');
    model.attach(one.session);
    assert.deepEqual(changes.splice(0), [{ kind: 'whole' }], 'the same session again is no new session: nothing is held');
  });

  it('keeps the previous session’s entries above a fresh one only when asked, and drops them otherwise', () => {
    const { model } = chat();
    const first = session('s1');
    model.attach(first.session);
    first.model.addSent([{ type: 'text', text: 'kept' }]);
    model.attach(session('s2').session, true);
    assert.deepEqual(
      model.earlier.map((e) => (e.kind === 'message' ? e.text : e.kind)),
      ['kept'],
    );
    model.attach(session('s3').session);
    assert.deepEqual(model.earlier, []);
  });

  it('holds what its rooms and owner write, and the page and the handle read the same', () => {
    const { model, changes } = chat();
    model.attach(session('s1').session);
    changes.splice(0);
    model.show('permissionLevel', { level: 'allowAll', offered: ['ask', 'allowAll'] });
    model.showAttachments([{ id: 'a', kind: 'file', label: 'src/a.ts' }], true);
    model.tell('said');
    model.draftChanged('half');
    assert.deepEqual(changes, [
      { kind: 'part', part: 'permissionLevel' },
      { kind: 'say', message: { type: 'attachments', attachments: [{ id: 'a', kind: 'file', label: 'src/a.ts' }], focus: true } },
      { kind: 'say', message: { type: 'notice', text: 'said' } },
    ]);
    const state = stateOf(model, undefined);
    const shot = snapshotOf(model, FACE);
    assert.deepEqual([state.permissionLevel.level, shot.permissionLevel.level], ['allowAll', 'allowAll']);
    assert.deepEqual([state.notice, shot.notice, state.draft, shot.draft], ['said', 'said', 'half', 'half']);
    assert.equal(shot.attachments.length, 1);
    assert.deepEqual(shot.session.worktree, { path: '/work', branch: 'acp/one' });
    model.clearNotice();
    assert.equal(snapshotOf(model, FACE).notice, undefined);
  });

  it('shows its own questions beside the agent’s, counts them, and cancels them when the chat closes', async () => {
    const { model, changes } = chat();
    model.attach(session('s1').session);
    changes.splice(0);
    const answer = model.questions.ask({ message: 'Which?', form: { type: 'object', properties: {} } });
    assert.deepEqual(changes, [{ kind: 'part', part: 'elicitations' }]);
    assert.equal(model.questionsWaiting, 1);
    assert.deepEqual(
      snapshotOf(model, FACE).elicitations.map((e) => e.message),
      ['Which?'],
    );
    changes.splice(0);
    model.close();
    assert.deepEqual(await answer, { action: 'cancel' });
    model.tell('after');
    assert.deepEqual(changes, [], 'a closed chat tells nothing');
    assert.equal(model.closed, true);
  });

  it('says why the agent failed, with its last 20 stderr lines, and hears the agent end', () => {
    const { model, changes } = chat();
    const one = session('s1');
    model.attach(one.session);
    changes.splice(0);
    model.fail(
      'the agent exited',
      Array.from({ length: 30 }, (_, i) => `line ${i}`),
    );
    assert.equal(model.agentError?.message, 'The agent exited');
    assert.equal(model.agentError?.stderr.length, 20);
    assert.equal(model.agentError?.stderr[0], 'line 10');
    const end = new AgentExitError(3, null, ['gone']);
    one.end(end);
    assert.deepEqual(changes, [
      { kind: 'part', part: 'agentError' },
      { kind: 'agentEnded', end },
    ]);
    model.attach(session('s2').session);
    assert.equal(model.agentError, null, 'a new session clears the failure');
  });
});
