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
  it('is the agent’s last message of the turn before the user’s message', () => {
    const entries = [user('one'), thought('hm'), agent('Let me look', 'm1'), tool(), agent('Done.', 'm2'), user('two'), agent('Sure', 'm3')];
    assert.deepEqual(messageForkPoint(entries, 5), { messageId: 'm2', fingerprint: sha('Done.'), occurrence: 1 });
  });

  it('counts which of the agent’s messages with the same text it is, up to and including it', () => {
    const entries = [user('a'), agent('OK', 'm1'), user('b'), agent('Fine', 'm2'), user('c'), agent('OK', 'm3'), user('d'), agent('OK', 'm4')];
    assert.equal(messageForkPoint(entries, 6)?.occurrence, 2);
    assert.equal(messageForkPoint(entries, 4)?.occurrence, 1);
  });

  it('is none before the first message, after a turn of tool calls only, or when the last message has no id', () => {
    assert.equal(messageForkPoint([user('one')], 0), undefined, 'nothing to keep');
    assert.equal(
      messageForkPoint([user('one'), agent('Hi', 'm1'), user('two'), tool(), user('three')], 4),
      undefined,
      'no earlier point: it would lose "two"',
    );
    assert.equal(
      messageForkPoint([user('one'), agent('Hi', 'm1'), tool(), agent('Done'), user('two')], 4),
      undefined,
      'an earlier one would lose the rest of the turn',
    );
    assert.equal(messageForkPoint([user('one'), agent('Hi', 'x'.repeat(1001)), user('two')], 2), undefined, 'not an id to send back');
  });

  it('is sent as _meta.jetbrains.air.fork version 1', () => {
    assert.deepEqual(messageForkMeta({ messageId: 'm2', fingerprint: sha('Done.'), occurrence: 3 }), {
      jetbrains: { air: { fork: { version: 1, messageId: 'm2', messageFingerprint: sha('Done.'), messageOccurrence: 3 } } },
    });
  });
});
