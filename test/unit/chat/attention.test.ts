import * as assert from 'node:assert/strict';
import { attentionMark, attentionOf, notificationFor, type AttentionInput } from '../../../src/chat/attention';

const idle: AttentionInput = { phase: 'idle', waiting: 0, agentFailed: false, seen: true };

describe('what a chat asks of its user', () => {
  it('needs you while a request waits, whatever else is true', () => {
    assert.equal(attentionOf({ ...idle, phase: 'awaiting-user' }), 'needsYou');
    assert.equal(attentionOf({ ...idle, phase: 'running', waiting: 2 }), 'needsYou');
    assert.equal(attentionOf({ ...idle, agentFailed: true, waiting: 1 }), 'needsYou');
  });

  it('is working while a turn runs or stops, failed when the agent is gone', () => {
    assert.equal(attentionOf({ ...idle, phase: 'running' }), 'working');
    assert.equal(attentionOf({ ...idle, phase: 'cancelling' }), 'working');
    assert.equal(attentionOf({ ...idle, agentFailed: true }), 'failed');
  });

  it('is done and not yet seen after a turn that ended out of sight, until the user looks', () => {
    assert.equal(attentionOf({ ...idle, stopReason: 'end_turn', seen: false }), 'unseen');
    assert.equal(attentionOf({ ...idle, stopReason: 'end_turn', seen: true }), 'none');
    assert.equal(attentionOf({ ...idle, stopReason: 'cancelled', seen: false }), 'none', 'a turn the user stopped needs no second look');
    assert.equal(attentionOf({ ...idle, error: 'boom', seen: false }), 'failed');
    assert.equal(attentionOf({ ...idle, error: 'boom', seen: true }), 'none');
  });

  it('is working in background, not done, while what a turn started runs on after it', () => {
    assert.equal(attentionOf({ ...idle, stopReason: 'end_turn', seen: false, background: true }), 'background');
    assert.equal(attentionOf({ ...idle, error: 'boom', seen: false, background: true }), 'background');
    assert.equal(attentionOf({ ...idle, phase: 'running', background: true }), 'working', 'a new turn is working');
    assert.equal(attentionOf({ ...idle, waiting: 1, background: true }), 'needsYou');
    assert.equal(attentionOf({ ...idle, agentFailed: true, background: true }), 'failed');
  });

  it('marks the tab for every state but nothing', () => {
    assert.equal(attentionMark('none'), '');
    for (const state of ['working', 'needsYou', 'background', 'unseen', 'failed'] as const) assert.match(attentionMark(state), /^\S $/);
  });

  it('notifies once when a turn ends or starts waiting in a window without the focus, and never otherwise', () => {
    assert.equal(notificationFor('working', 'needsYou', false, 'whenUnfocused'), 'needsYou');
    assert.equal(notificationFor('working', 'unseen', false, 'whenUnfocused'), 'finished');
    assert.equal(notificationFor('needsYou', 'unseen', false, 'whenUnfocused'), 'finished');
    assert.equal(notificationFor('background', 'unseen', false, 'whenUnfocused'), 'finished', 'the last background work ended');
    assert.equal(notificationFor('working', 'background', false, 'whenUnfocused'), 'finished', 'the turn ended, though work runs on');
    assert.equal(notificationFor('background', 'working', false, 'whenUnfocused'), undefined);
    assert.equal(notificationFor('working', 'unseen', true, 'whenUnfocused'), undefined, 'the window has the focus');
    assert.equal(notificationFor('working', 'needsYou', false, 'never'), undefined);
    assert.equal(notificationFor('none', 'working', false, 'whenUnfocused'), undefined, 'a turn that starts is no news');
    assert.equal(notificationFor('unseen', 'none', false, 'whenUnfocused'), undefined);
    assert.equal(notificationFor('working', 'failed', false, 'whenUnfocused'), undefined, 'a crash says so itself');
  });
});
