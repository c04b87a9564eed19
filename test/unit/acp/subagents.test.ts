import * as assert from 'node:assert/strict';
import { SessionModel } from '../../../src/acp/sessionModel';
import { applySubagentUpdate, MAX_SUBAGENTS, SubagentUpdate } from '../../../src/acp/subagents';

const update = (fields: Record<string, unknown>) => SubagentUpdate.parse({ sessionUpdate: 'subagent_update', sessionId: 'c1', ...fields });

describe('subagents', () => {
  it('patches a child: omitted keeps, null clears, a state replaces the last', () => {
    const first = applySubagentUpdate(
      undefined,
      update({ title: 'Researcher', description: 'Docs', state: { state: 'running' }, capabilities: { cancel: {} } }),
    );
    assert.deepEqual(first, { sessionId: 'c1', title: 'Researcher', description: 'Docs', state: 'running', canCancel: true });
    const second = applySubagentUpdate(first, update({ description: null, state: { state: 'idle' } }));
    assert.deepEqual(second, { sessionId: 'c1', title: 'Researcher', state: 'idle', canCancel: true });
    assert.equal(applySubagentUpdate(second, update({ capabilities: null })).canCancel, false, 'null capabilities disable cancel');
    assert.equal(applySubagentUpdate(second, update({ state: null })).state, undefined);
  });

  it('patches the additional directories named for a child: a list replaces, omitted keeps, null returns to inheriting', () => {
    const named = applySubagentUpdate(undefined, update({ cwd: '/w/sub', additionalDirectories: ['/w/docs'] }));
    assert.deepEqual(named.additionalDirectories, ['/w/docs']);
    assert.deepEqual(applySubagentUpdate(named, update({ title: 'x' })).additionalDirectories, ['/w/docs']);
    assert.deepEqual(applySubagentUpdate(named, update({ additionalDirectories: [] })).additionalDirectories, [], '[] names none');
    assert.equal(applySubagentUpdate(named, update({ additionalDirectories: null })).additionalDirectories, undefined);
    assert.equal(
      SubagentUpdate.safeParse({ sessionUpdate: 'subagent_update', sessionId: 'c', additionalDirectories: Array(65).fill('/a') }).success,
      false,
    );
  });

  it('refuses an update without a session id, and still announces the child when a display field is malformed', () => {
    assert.equal(SubagentUpdate.safeParse({ sessionUpdate: 'subagent_update', title: 'x' }).success, false);
    const read = (fields: Record<string, unknown>) => SubagentUpdate.parse({ sessionUpdate: 'subagent_update', sessionId: 'c', ...fields });
    assert.equal(read({ title: 3 }).title, undefined, 'a title of the wrong type is dropped, as if omitted');
    assert.equal(read({ title: 'x'.repeat(5000) }).title?.length, 2000, 'an oversized title is clipped');
    assert.equal(read({ capabilities: { cancel: true } }).capabilities?.cancel, undefined, 'a malformed cancel grants nothing');
    assert.equal(read({ state: 'running' }).state, undefined, 'a malformed state leaves the state as it was');
  });

  it('gives each child a model of its own, forwards its changes to the parent, and bounds the number of children', () => {
    const parent = new SessionModel('p');
    let changes = 0;
    parent.onDidChange((c) => {
      if (c.type === 'subagent') changes++;
    });
    const child = parent.noteSubagent(update({ title: 'A' }));
    assert.ok(child);
    assert.equal(parent.noteSubagent(update({ title: 'B' })), child, 'the same child, patched');
    child.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } });
    assert.ok(changes >= 3);
    assert.equal(parent.subagents[0]?.info.title, 'B');
    for (let i = 1; i < MAX_SUBAGENTS; i++) assert.ok(parent.noteSubagent(update({ sessionId: `c${i + 1}` })));
    assert.equal(parent.noteSubagent(update({ sessionId: 'one-too-many' })), undefined);
    parent.dispose();
  });
});
