import * as assert from 'node:assert/strict';
import type * as S from '../../../src/acp/schema.gen';
import { SessionModel } from '../../../src/acp/sessionModel';
import type { EntryView } from '../../../src/chat/protocol';
import { handleOf, handleOrNone, type HandledChat } from '../../../src/chats/handle';

const OPTIONS: S.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** A chat panel as the handle reads it: `session` is a stand-in with a real model. */
function chat(options: { session?: boolean; earlier?: EntryView[] } = {}) {
  const model = new SessionModel('sess-1', {
    modes: {
      currentModeId: 'ask',
      availableModes: [
        { id: 'ask', name: 'Ask' },
        { id: 'code', name: 'Code' },
      ],
    },
  });
  const calls: string[] = [];
  const session = {
    sessionId: 'sess-1',
    cwd: '/work',
    model,
    leftOut: [{ name: 'docs', transport: 'http' }],
    ended: undefined as unknown,
    client: { process: { pid: 4242 }, capabilities: { accepts: { image: false, embeddedContext: true } } },
    cancel: async () => void calls.push('cancel'),
    setMode: async (modeId: string) => void calls.push(`mode ${modeId}`),
    setConfigOption: async (id: string, value: string | boolean) => void calls.push(`config ${id}=${String(value)}`),
  };
  const panel = {
    agentName: 'Fixture',
    title: 'Fixture',
    session: options.session === false ? undefined : session,
    earlierEntries: options.earlier ?? [],
    pendingAttachments: [{ id: '1', kind: 'file', label: 'src/a.ts' }],
    send: async (text: string) => {
      calls.push(`send ${text}`);
      return 'end_turn';
    },
    dispose: () => void calls.push('dispose'),
  } as unknown as HandledChat;
  return { panel, model, session, calls };
}

describe('ChatHandle', () => {
  it('is one per chat, so the handles of a chat compare equal', () => {
    const { panel } = chat();
    assert.equal(handleOf(panel), handleOf(panel));
    assert.equal(handleOrNone(panel), handleOf(panel));
    assert.equal(handleOrNone(undefined), undefined);
    assert.notEqual(handleOf(chat().panel), handleOf(panel));
  });

  it('shows the earlier conversation above the session’s own, in the chat view’s shapes', () => {
    const earlier: EntryView[] = [{ id: 0, kind: 'message', role: 'user', text: 'kept', chips: [] }];
    const { panel, model } = chat({ earlier });
    model.apply({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } });
    model.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'Read',
      kind: 'read',
      status: 'completed',
      locations: [{ path: '/work/src/a.ts', line: 3 }],
    });
    const handle = handleOf(panel);
    assert.deepEqual(
      handle.entries.map((e) => (e.kind === 'message' ? `${e.role}:${e.text}` : `tool:${e.toolCallId}:${e.locations.join()}`)),
      ['user:kept', 'agent:hello', 'tool:t1:src/a.ts:3'],
    );
    assert.deepEqual(handle.attachments, [{ id: '1', kind: 'file', label: 'src/a.ts' }]);
    assert.equal(handle.agentPid, 4242);
    assert.equal(handle.sessionId, 'sess-1');
    assert.deepEqual(handle.leftOut, [{ name: 'docs', transport: 'http' }]);
    assert.equal(handle.pickers.find((p) => p.id === 'mode')?.current, 'ask');
  });

  it('answers a waiting permission request as a click in the chat does', async () => {
    const { panel, model } = chat();
    const answer = model.requestPermission({
      sessionId: 'sess-1',
      toolCall: { toolCallId: 'c1', title: 'npm test', kind: 'execute' },
      options: OPTIONS,
    });
    const handle = handleOf(panel);
    const [request] = handle.permissions;
    assert.equal(request?.title, 'npm test');
    assert.equal(handle.answerPermission(request.id, 'nope'), false, 'an option the request does not have');
    assert.equal(handle.answerPermission(request.id, 'allow'), true);
    assert.deepEqual(await answer, { outcome: 'selected', optionId: 'allow' });
    assert.deepEqual(handle.permissions, []);
    assert.equal(handle.answerPermission(request.id, 'allow'), false, 'it no longer waits');
  });

  it('acts as the user can: send, stop, pick, close', async () => {
    const { panel, calls } = chat();
    const handle = handleOf(panel);
    assert.equal(await handle.send('hi'), 'end_turn');
    await handle.cancel();
    await handle.setMode('code');
    await handle.setConfigOption('model', 'smart');
    handle.close();
    assert.deepEqual(calls, ['send hi', 'cancel', 'mode code', 'config model=smart', 'dispose']);
  });

  it('reads as an empty, idle chat before a session is attached, and refuses to pick', async () => {
    const handle = handleOf(chat({ session: false }).panel);
    assert.equal(handle.sessionId, undefined);
    assert.equal(handle.agentPid, undefined);
    assert.deepEqual([handle.entries, handle.permissions, handle.pickers, handle.leftOut], [[], [], [], []]);
    assert.deepEqual(handle.turn, { phase: 'idle' });
    assert.equal(handle.agentEnd, undefined);
    assert.equal(handle.answerPermission(1, 'allow'), false);
    await handle.cancel();
    await assert.rejects(handle.setMode('code'), /not connected/);
  });

  it('says why the agent stopped, with its last stderr lines', () => {
    const { panel, session } = chat();
    session.ended = Object.assign(new Error('the agent exited with code 3: giving up'), { stderrTail: ['trying', 'giving up'] });
    assert.deepEqual(handleOf(panel).agentEnd, { message: 'the agent exited with code 3: giving up', stderr: ['trying', 'giving up'] });
  });
});
