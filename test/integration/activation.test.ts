import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from '../lib/wait';
import { acpLog, EXTENSION_ID } from './lib/fixture';

describe('activation', () => {
  it('registers every contributed command at activation, loads the core on the first one, and exports its API', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is loaded`);
    await extension.activate();
    // Every command the manifest contributes exists from activation on, before the core is loaded.
    const contributed = (extension.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    const before = await vscode.commands.getCommands(true);
    assert.deepEqual(
      contributed.filter((id) => !before.includes(id)),
      [],
      'commands missing at activation',
    );

    // The first command loads the core, which takes over every command.
    await vscode.commands.executeCommand('acp.showLog');
    await waitFor(() => acpLog().includes('[extension] loaded'), { what: 'the core to load' });
    const after = await vscode.commands.getCommands(true);
    assert.deepEqual(
      contributed.filter((id) => !after.includes(id)),
      [],
      'commands missing once the core is loaded',
    );
    await vscode.commands.executeCommand('acp.showLog');

    const agents = vscode.workspace.getConfiguration('acp').inspect('agents');
    assert.deepEqual(agents?.defaultValue, {});
    assert.equal(typeof (extension.exports as { newChat?: unknown }).newChat, 'function');
  });
});
