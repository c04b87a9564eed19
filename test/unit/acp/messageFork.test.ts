// Where a session is forked so that it keeps the conversation before one of the user's messages: the agent's last
// message of the turn before it, named by its id, its text's fingerprint and which of the same texts it is.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { messageForkMeta, messageForkPoint } from '../../../src/acp/messageFork';
import type { Entry } from '../../../src/acp/sessionState';

let next = 0;
const user = (text: string): Entry => ({ id: next++, type: 'message', role: 'user', content: [{ type: 'text', text }] });
const agent = (text: string, messageId?: string): Entry => ({
  id: next++,
  type: 'message',
  role: 'agent',
  ...(messageId === undefined ? {} : { messageId }),
  content: [{ type: 'text', text }],
});
const thought = (text: string): Entry => ({ id: next++, type: 'message', role: 'thought', content: [{ type: 'text', text }] });
const tool = (): Entry => ({
  id: next++,
  type: 'tool',
  call: { toolCallId: `t${next}`, title: 'Edit', kind: 'edit', status: 'completed', content: [], locations: [] },
});
const sha = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

describe('messageForkPoint', () => {
  it('is the agent’s message that ends the turn before the user’s message', () => {
    const entries = [
      user('one'),
      thought('hm'),
      agent('Let me look', 'm1'),
      tool(),
      agent('Done.', 'm2'),
      thought('ok'),
      user('two'),
      agent('Sure', 'm3'),
    ];
    assert.deepEqual(messageForkPoint(entries, 6, true), { messageId: 'm2', fingerprint: sha('Done.'), occurrence: 1 });
  });

  it('counts which of the agent’s messages with the same text it is, up to and including it, when it has the whole history', () => {
    const entries = [user('a'), agent('OK', 'm1'), user('b'), agent('Fine', 'm2'), user('c'), agent('OK', 'm3'), user('d'), agent('OK', 'm4')];
    assert.equal(messageForkPoint(entries, 6, true)?.occurrence, 2);
    assert.equal(messageForkPoint(entries, 4, true)?.occurrence, 1);
    // A resumed or forked session's model lacks what came before: no count that could pick another "OK".
    assert.deepEqual(messageForkPoint(entries, 6, false), { messageId: 'm3', fingerprint: sha('OK') });
  });

  it('is none when a cut there would lose part of the turn before, or keep nothing', () => {
    assert.equal(messageForkPoint([user('one')], 0, true), undefined, 'nothing to keep before the first message');
    assert.equal(
      messageForkPoint([user('one'), agent('Hi', 'm1'), user('two'), tool(), user('three')], 4, true),
      undefined,
      'a turn of tool calls only',
    );
    assert.equal(messageForkPoint([user('one'), agent('On it', 'm1'), tool(), user('two')], 3, true), undefined, 'a turn stopped during a tool call');
    assert.equal(messageForkPoint([user('one'), user('two')], 1, true), undefined, 'a turn with no reply');
    assert.equal(
      messageForkPoint([user('one'), agent('Hi', 'm1'), tool(), agent('Done'), user('two')], 4, true),
      undefined,
      'a last reply without an id',
    );
    assert.equal(messageForkPoint([user('one'), agent('Hi', 'x'.repeat(1001)), user('two')], 2, true), undefined, 'not an id to send back');
  });

  it('is sent as _meta.jetbrains.air.fork version 1, with the occurrence only when it is known', () => {
    assert.deepEqual(messageForkMeta({ messageId: 'm2', fingerprint: sha('Done.'), occurrence: 3 }), {
      jetbrains: { air: { fork: { version: 1, messageId: 'm2', messageFingerprint: sha('Done.'), messageOccurrence: 3 } } },
    });
    assert.deepEqual(messageForkMeta({ messageId: 'm2', fingerprint: sha('Done.') }), {
      jetbrains: { air: { fork: { version: 1, messageId: 'm2', messageFingerprint: sha('Done.') } } },
    });
  });
});
