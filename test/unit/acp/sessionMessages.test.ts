// Inter-session messages (unstable, with subagents): upserts patch by id (omitted keeps, null clears, content
// replaced or cleared), chunks append and may come first, the latest between two sessions is found from either
// transcript, and a subagent's card shows the task and the reply.
import * as assert from 'node:assert/strict';
import { InterSessionUpdate, MESSAGE_TEXT_LIMIT, SessionMessages } from '../../../src/acp/sessionMessages';
import { SessionModel } from '../../../src/acp/sessionModel';
import { subagentViews } from '../../../src/chat/view';

const read = (update: unknown) => InterSessionUpdate.parse(update);
const text = (t: string) => ({ type: 'text', text: t });

describe('session messages', () => {
  it('patch by id: omitted keeps, null clears, content replaces or clears; chunks append, even before the upsert', () => {
    const messages = new SessionMessages();
    messages.apply(read({ sessionUpdate: 'session_message_chunk', messageId: 'm', content: text('Hel') }));
    messages.apply(read({ sessionUpdate: 'session_message', messageId: 'm', recipientSessionId: 'child' }));
    messages.apply(read({ sessionUpdate: 'session_message_chunk', messageId: 'm', content: text('lo') }));
    assert.deepEqual(
      messages.all.map((m) => [m.text, m.recipientSessionId]),
      [['Hello', 'child']],
    );
    messages.apply(read({ sessionUpdate: 'session_message', messageId: 'm' }));
    assert.equal(messages.all[0]?.text, 'Hello', 'omitted content keeps it');
    messages.apply(read({ sessionUpdate: 'session_message', messageId: 'm', recipientSessionId: null, content: [text('New')] }));
    assert.deepEqual([messages.all[0]?.text, messages.all[0]?.recipientSessionId], ['New', undefined]);
    messages.apply(read({ sessionUpdate: 'session_message', messageId: 'm', content: null }));
    assert.equal(messages.all[0]?.text, '');
    messages.apply(
      read({ sessionUpdate: 'session_message', messageId: 'm', content: [text('x'), { type: 'image', data: 'AA', mimeType: 'image/png' }] }),
    );
    assert.equal(messages.all[0]?.text, 'x[image]', 'other blocks are named');
  });

  it('are read strictly: a message without an id, or with a wrong type, is refused', () => {
    assert.equal(InterSessionUpdate.safeParse({ sessionUpdate: 'session_message', content: [] }).success, false);
    assert.equal(InterSessionUpdate.safeParse({ sessionUpdate: 'session_message_chunk', messageId: 'm' }).success, false);
    assert.equal(InterSessionUpdate.safeParse({ sessionUpdate: 'session_message', messageId: 'm', senderSessionId: 5 }).success, false);
  });

  it('bound a message\u2019s text', () => {
    const messages = new SessionMessages();
    messages.apply(read({ sessionUpdate: 'session_message', messageId: 'm', content: [text('a'.repeat(MESSAGE_TEXT_LIMIT + 10))] }));
    messages.apply(read({ sessionUpdate: 'session_message_chunk', messageId: 'm', content: text('more') }));
    assert.equal(messages.all[0]?.text.length, MESSAGE_TEXT_LIMIT);
    assert.equal(messages.all[0]?.truncated, true);
  });

  it('show on a subagent\u2019s card: the task the parent sent and the child\u2019s reply, from either transcript', () => {
    const parent = new SessionModel('parent');
    try {
      const child = parent.noteSubagent({ sessionUpdate: 'subagent_update', sessionId: 'child', title: 'Researcher' })!;
      parent.applySessionMessage(read({ sessionUpdate: 'session_message', messageId: 't1', recipientSessionId: 'child', content: [text('Find X')] }));
      child.applySessionMessage(
        read({ sessionUpdate: 'session_message', messageId: 'r1', recipientSessionId: 'parent', content: [text('Found it')] }),
      );
      const [card] = subagentViews(parent, '/w');
      assert.deepEqual([card?.task, card?.reply], ['Find X', 'Found it']);
      // A message between the parent and another session is not this child's.
      parent.applySessionMessage(
        read({ sessionUpdate: 'session_message', messageId: 'o1', recipientSessionId: 'other', content: [text('Not yours')] }),
      );
      assert.equal(subagentViews(parent, '/w')[0]?.task, 'Find X');
    } finally {
      parent.dispose();
    }
  });
});
