import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID } from './lib/fixture';

describe('activation', () => {
  it('activates on an ACP command, contributes its commands and settings, and exports its API', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is loaded`);
    await vscode.commands.executeCommand('acp.showLog');
    assert.equal(extension.isActive, true);
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['acp.newChat', 'acp.showLog']) assert.ok(commands.includes(id), `${id} is registered`);
    const agents = vscode.workspace.getConfiguration('acp').inspect('agents');
    assert.deepEqual(agents?.defaultValue, {});
    assert.equal(typeof (extension.exports as { newChat?: unknown }).newChat, 'function');
  });
});
