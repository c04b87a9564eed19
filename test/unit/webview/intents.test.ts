import * as assert from 'node:assert/strict';
import { WebviewMessage } from '../../../src/chat/protocol';

// The webview's intents post through the VS Code webview API; here a stand-in records what they post.
const posted: unknown[] = [];
(globalThis as { acquireVsCodeApi?: () => unknown }).acquireVsCodeApi = () => ({
  postMessage: (message: unknown) => posted.push(message),
  getState: () => undefined,
  setState: () => undefined,
});

describe('webview intents', () => {
  it('post each of the user’s intents as one message the host accepts', async () => {
    // Loaded after the stand-in exists: the API is acquired when the module loads.
    const intents = await import('../../../webview/intents');
    posted.length = 0;
    intents.ready();
    intents.sendPrompt('hello', ['a1']);
    intents.cancelTurn();
    intents.answerPermission(3, 'allow');
    intents.runErrorAction('restart');
    intents.showDiff('t1', 0);
    intents.openLocation('t1', 1);
    intents.showTerminal('t1', 'term');
    intents.openLink('https://example.com');
    intents.copyCode('x');
    intents.insertCode('y');
    intents.searchFiles(7, 'src/a');
    intents.mention('file', 'src/a.ts');
    intents.confirmAttachment('a1');
    intents.attachImage('a.png', 'image/png', 'AAAA');
    intents.removeAttachment('a1');
    intents.setMode('plan');
    intents.setConfig('model', 'fast');
    intents.setConfig('thinking', true);
    intents.reviewChanges(4);
    intents.undoChanges(4);
    intents.redoChanges(4);
    intents.keepChanges(4);
    intents.sendFeedback(4);
    intents.openChange(4, 2);
    intents.restoreCheckpoint(4);
    const types = posted.map((message) => {
      const parsed = WebviewMessage.safeParse(message);
      assert.ok(parsed.success, `the host rejects ${JSON.stringify(message)}`);
      return parsed.data.type;
    });
    assert.deepEqual(types, [
      'ready',
      'send',
      'cancel',
      'permission',
      'errorAction',
      'showDiff',
      'openLocation',
      'showTerminal',
      'openLink',
      'copy',
      'insert',
      'searchFiles',
      'mention',
      'confirmAttachment',
      'attachImage',
      'removeAttachment',
      'setMode',
      'setConfig',
      'setConfig',
      'changes',
      'changes',
      'changes',
      'changes',
      'changes',
      'openChange',
      'restoreCheckpoint',
    ]);
    assert.deepEqual(posted[1], { type: 'send', text: 'hello', attachments: ['a1'] });
    assert.deepEqual(posted[3], { type: 'permission', id: 3, optionId: 'allow' });
    assert.deepEqual(posted[18], { type: 'setConfig', configId: 'thinking', value: true });
    assert.deepEqual(
      posted.slice(19, 24).map((m) => (m as { action: string }).action),
      ['review', 'undo', 'redo', 'keep', 'feedback'],
      'each button of the changes card asks its own action',
    );
    assert.deepEqual(posted[24], { type: 'openChange', turn: 4, index: 2 });
    assert.deepEqual(posted[25], { type: 'restoreCheckpoint', turn: 4 });
  });
});
