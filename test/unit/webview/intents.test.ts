import * as assert from 'node:assert/strict';
import { WebviewMessage } from '../../../src/chat/protocol';
import type * as Intents from '../../../webview/intents';

// The webview's intents post through the VS Code webview API; here a stand-in records what they post.
const posted: unknown[] = [];
(globalThis as { acquireVsCodeApi?: () => unknown }).acquireVsCodeApi = () => ({
  postMessage: (message: unknown) => posted.push(message),
  getState: () => undefined,
  setState: () => undefined,
});

type IntentName = { [K in keyof typeof Intents]: (typeof Intents)[K] extends (...args: never[]) => void ? K : never }[keyof typeof Intents];

/**
 * Every intent, called once, and the message it must post. Keyed by the module's exports, so the type checker and
 * the first test below both refuse an intent that is missing here.
 */
const CALLS: Record<IntentName, { call: (i: typeof Intents) => void; posts: unknown }> = {
  ready: { call: (i) => i.ready(), posts: { type: 'ready' } },
  tellDraft: { call: (i) => i.tellDraft('half a'), posts: { type: 'draft', text: 'half a' } },
  sendPrompt: { call: (i) => i.sendPrompt('hello', ['a1'], 'steer'), posts: { type: 'send', text: 'hello', attachments: ['a1'], mode: 'steer' } },
  changeQueued: { call: (i) => i.changeQueued(2, 'up'), posts: { type: 'queue', id: 2, action: 'up' } },
  answerElicitation: {
    call: (i) => i.answerElicitation(5, 'accept', { name: 'x' }, 'child-1'),
    posts: { type: 'elicitation', id: 5, action: 'accept', values: { name: 'x' }, sessionId: 'child-1' },
  },
  openElicitationUrl: { call: (i) => i.openElicitationUrl(5), posts: { type: 'openElicitationUrl', id: 5 } },
  sendQueued: { call: (i) => i.sendQueued(), posts: { type: 'sendQueued' } },
  cancelTurn: { call: (i) => i.cancelTurn(), posts: { type: 'cancel' } },
  answerPermission: { call: (i) => i.answerPermission(3, 'allow'), posts: { type: 'permission', id: 3, optionId: 'allow' } },
  cancelSubagent: { call: (i) => i.cancelSubagent('child-1'), posts: { type: 'cancelSubagent', sessionId: 'child-1' } },
  cancelToolCall: { call: (i) => i.cancelToolCall('t1'), posts: { type: 'cancelToolCall', toolCallId: 't1' } },
  background: { call: (i) => i.background('t:term-1', 'stop'), posts: { type: 'background', key: 't:term-1', action: 'stop' } },
  runErrorAction: { call: (i) => i.runErrorAction('restart'), posts: { type: 'errorAction', action: 'restart' } },
  runTurnAction: { call: (i) => i.runTurnAction('retry'), posts: { type: 'turnAction', action: 'retry' } },
  showDiff: { call: (i) => i.showDiff('t1', 0), posts: { type: 'showDiff', toolCallId: 't1', index: 0 } },
  openLocation: { call: (i) => i.openLocation('t1', 1), posts: { type: 'openLocation', toolCallId: 't1', index: 1 } },
  showTerminal: { call: (i) => i.showTerminal('t1', 'term'), posts: { type: 'showTerminal', toolCallId: 't1', terminalId: 'term' } },
  openLink: { call: (i) => i.openLink('https://example.com'), posts: { type: 'openLink', href: 'https://example.com' } },
  openPlan: { call: (i) => i.openPlan('plan-1'), posts: { type: 'openPlan', planId: 'plan-1' } },
  openPlanReview: { call: (i) => i.openPlanReview(3, 'child-1'), posts: { type: 'openPlanReview', id: 3, sessionId: 'child-1' } },
  copyCode: { call: (i) => i.copyCode('x'), posts: { type: 'copy', text: 'x' } },
  loadImage: { call: (i) => i.loadImage(2, 1), posts: { type: 'loadImage', entryId: 2, index: 1 } },
  openImage: { call: (i) => i.openImage(2, 0), posts: { type: 'openImage', entryId: 2, index: 0 } },
  openBranch: { call: (i) => i.openBranch(), posts: { type: 'openBranch' } },
  resend: { call: (i) => i.resend(5, 'again'), posts: { type: 'resend', entryId: 5, text: 'again' } },
  copyEntry: { call: (i) => i.copyEntry(4, false, 'child-1'), posts: { type: 'copyEntry', entryId: 4, sessionId: 'child-1' } },
  insertCode: { call: (i) => i.insertCode('y'), posts: { type: 'insert', text: 'y' } },
  searchFiles: { call: (i) => i.searchFiles(7, 'src/a'), posts: { type: 'searchFiles', requestId: 7, query: 'src/a' } },
  mention: { call: (i) => i.mention('file', 'src/a.ts'), posts: { type: 'mention', kind: 'file', path: 'src/a.ts' } },
  dropUris: { call: (i) => i.dropUris(['file:///w/a.ts']), posts: { type: 'dropUris', uris: ['file:///w/a.ts'] } },
  listPrompts: { call: (i) => i.listPrompts(), posts: { type: 'listPrompts' } },
  usePrompt: { call: (i) => i.usePrompt('review', 'workspace'), posts: { type: 'usePrompt', name: 'review', source: 'workspace' } },
  confirmAttachment: { call: (i) => i.confirmAttachment('a1'), posts: { type: 'confirmAttachment', id: 'a1' } },
  attachImage: {
    call: (i) => i.attachImage('a.png', 'image/png', 'AAAA'),
    posts: { type: 'attachImage', name: 'a.png', mimeType: 'image/png', data: 'AAAA' },
  },
  removeAttachment: { call: (i) => i.removeAttachment('a1'), posts: { type: 'removeAttachment', id: 'a1' } },
  setPermissionLevel: { call: (i) => i.setPermissionLevel('autoApproveEdits'), posts: { type: 'setPermissionLevel', level: 'autoApproveEdits' } },
  setMode: { call: (i) => i.setMode('plan'), posts: { type: 'setMode', modeId: 'plan' } },
  setConfig: { call: (i) => i.setConfig('thinking', true), posts: { type: 'setConfig', configId: 'thinking', value: true } },
  reviewChanges: { call: (i) => i.reviewChanges(4), posts: { type: 'changes', turn: 4, action: 'review' } },
  undoChanges: { call: (i) => i.undoChanges(4), posts: { type: 'changes', turn: 4, action: 'undo' } },
  redoChanges: { call: (i) => i.redoChanges(4), posts: { type: 'changes', turn: 4, action: 'redo' } },
  keepChanges: { call: (i) => i.keepChanges(4), posts: { type: 'changes', turn: 4, action: 'keep' } },
  sendFeedback: { call: (i) => i.sendFeedback(4), posts: { type: 'changes', turn: 4, action: 'feedback' } },
  openChange: { call: (i) => i.openChange(4, 2), posts: { type: 'openChange', turn: 4, index: 2 } },
  restoreCheckpoint: { call: (i) => i.restoreCheckpoint(4), posts: { type: 'restoreCheckpoint', turn: 4 } },
  forkFrom: { call: (i) => i.forkFrom(9), posts: { type: 'fork', entryId: 9 } },
  redoRestore: { call: (i) => i.redoRestore(), posts: { type: 'redoRestore' } },
  answerCheckpoint: { call: (i) => i.answerCheckpoint(6, 'skip'), posts: { type: 'checkpointAnswer', id: 6, answer: 'skip' } },
};

describe('webview intents', () => {
  // Loaded after the stand-in exists: the API is acquired when the module loads.
  const load = () => import('../../../webview/intents');

  it('lists every intent the module exports', async () => {
    const intents = await load();
    const exported = Object.keys(intents).filter((name) => typeof (intents as Record<string, unknown>)[name] === 'function');
    assert.deepEqual(exported.sort(), Object.keys(CALLS).sort());
  });

  for (const [name, { call, posts }] of Object.entries(CALLS)) {
    it(`${name} posts one message the host accepts, with what the user did`, async () => {
      const intents = await load();
      posted.length = 0;
      call(intents);
      assert.equal(posted.length, 1);
      const parsed = WebviewMessage.safeParse(posted[0]);
      assert.ok(parsed.success, `the host rejects ${JSON.stringify(posted[0])}`);
      assert.deepEqual(posted[0], posts);
    });
  }

  it('has an intent for every message the host accepts from the webview', () => {
    const kinds = WebviewMessage.options.map((option) => option.shape.type.value);
    const posted = new Set(Object.values(CALLS).map(({ posts }) => (posts as { type: string }).type));
    assert.deepEqual(
      kinds.filter((kind) => !posted.has(kind)),
      [],
      'a message of the union that no intent posts',
    );
  });
});
