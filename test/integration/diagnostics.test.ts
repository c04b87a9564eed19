// "ACP: Export Diagnostics…" and acp.trace "verbose" in a real extension host: the exported file has what a bug
// report needs, and a secret in an agent's env reaches neither that file nor the ACP log, however the agent leaks it.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { shortId } from '../../src/acp/log';
import { waitFor, within } from '../lib/wait';
import { acpLog, closeAllChats, EXTENSION_ID, newChat, useFixtureAgent } from './lib/fixture';

describe('diagnostics export', function () {
  this.timeout(30_000);
  const target = vscode.Uri.file(join(tmpdir(), `acp-diagnostics-${randomUUID()}.md`));

  afterEach(async () => {
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('trace', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (existsSync(target.fsPath)) rmSync(target.fsPath);
  });

  it('writes versions, the agent\u2019s facts, the tagged verbose trace and stderr, and no env value, to the file and the log', async () => {
    const secret = `sk-diag-${randomUUID()}`;
    await vscode.workspace.getConfiguration('acp').update('trace', 'verbose', vscode.ConfigurationTarget.Global);
    const fixture = await useFixtureAgent('secrets', { name: 'Leaky', env: { ACP_FIXTURE_SECRET: secret } });
    const chat = await newChat();
    assert.equal(await within(chat.send('leak it'), 15_000, 'the turn'), 'end_turn');
    const tag = `[trace ${fixture.name} ${shortId(chat.sessionId ?? '')}]`;

    const written = await vscode.commands.executeCommand<vscode.Uri | undefined>('acp.exportDiagnostics', target);
    assert.equal(written?.toString(), target.toString());
    const text = readFileSync(target.fsPath, 'utf8');
    const version = String(vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.version);
    for (const expected of [
      `- ACP Client: ${version}`,
      `- VS Code: ${vscode.version}`,
      `- Platform: ${process.platform} ${process.arch}`,
      '- Workspace trusted: ',
      '"acp.trace": "verbose"',
      `### ${fixture.name}: running`,
      '`ACP_FIXTURE_SECRET`',
      '- Open sessions: 1',
      '"name": "acp-fixture-agent"',
      '"agentCapabilities": {',
      '"ACP_FIXTURE_SECRET": "<redacted>"',
      'fixture: my secret is <redacted ACP_FIXTURE_SECRET>',
      `${tag} → request session/prompt #`,
      `${tag} ← request terminal/create #`,
      '"env":[{"name":"API_TOKEN","value":"<redacted>"}]',
      `${tag} ← notification session/update agent_message_chunk {`,
      'The secret is <redacted ACP_FIXTURE_SECRET>',
      `${tag} ← response session/prompt #`,
    ]) {
      assert.ok(text.includes(expected), `the export lacks ${JSON.stringify(expected)}:\n${text}`);
    }
    assert.ok(!text.includes(secret), 'the secret is not in the export');
    assert.ok(
      vscode.window.visibleTextEditors.some((editor) => editor.document.uri.fsPath === target.fsPath),
      'the export opened in an editor',
    );

    // The log file on disk: the same lines, written a moment later.
    const log = await waitFor(
      () => {
        const t = acpLog();
        return t.includes(`[diagnostics] exported to ${target.fsPath}`) ? t : undefined;
      },
      { timeoutMs: 10_000, what: 'the export in the ACP log' },
    );
    assert.ok(log.includes(`${tag} ← response session/prompt #`), 'the log has the trace');
    assert.ok(log.includes('stderr: fixture: my secret is <redacted ACP_FIXTURE_SECRET>'), 'the log has the stderr');
    assert.ok(!log.includes(secret), 'the secret is not in the ACP log');
  });

  it('lists an agent that crashed, with its exit and stderr, and one that failed to start, with why', async () => {
    await useFixtureAgent('crash', { name: 'Crasher' });
    const chat = await newChat();
    await assert.rejects(within(chat.send('go'), 10_000, 'the turn to fail'));
    await waitFor(() => chat.agentEnd, { what: 'the chat to see the crash' });
    await vscode.workspace
      .getConfiguration('acp')
      .update(
        'agents',
        { Missing: { command: 'acp-no-such-command-xyz', env: { SOME_TOKEN: 'not-shown-1234' } } },
        vscode.ConfigurationTarget.Global,
      );
    assert.equal(await vscode.commands.executeCommand('acp.newChat', 'Missing'), undefined);

    await vscode.commands.executeCommand('acp.exportDiagnostics', target);
    const text = readFileSync(target.fsPath, 'utf8');
    assert.match(text, /### Crasher: stopped\n[^#]*- Exit: code 3 \(the agent exited with code 3: giving up\)/);
    assert.match(
      text,
      /### Crasher: stopped\n[^#]*```text\n[^`]*fatal: lost the connection to the model\nretrying failed after 3 attempts\ngiving up\n```/,
    );
    assert.match(text, /### Missing: failed to start\n[^#]*- Failed to start: command 'acp-no-such-command-xyz' was not found/);
    assert.match(text, /### Missing: failed to start\n[^#]*- Environment variables set: `SOME_TOKEN` \(values not shown\)/);
    assert.ok(!text.includes('not-shown-1234'));
  });
});
