// The scenarios every real adapter of the agents layer plays, through the extension in code-server, each behind a
// fake model server that plays the same script in the adapter's own tools:
// - at Ask, the adapter's own starting mode (which decides alone) is replaced by its asking mode;
// - allow: the edit and the command are asked, and once allowed they happen on disk;
// - reject: a rejected edit and a rejected new file change nothing on disk;
// - cancel: a turn cancelled while an allowed command runs leaves nothing running;
// - tools: one call to the editor tools through the `vscode` MCP server, whose answer reaches the model.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../../src/chats/handle';
import { waitFor, within } from '../../lib/wait';
import { agentText, closeAllChats, newChat, workspaceFolder } from '../../integration/lib/fixture';
import { AGENT_PINS } from '../pins';

/** What the scripts touch, in the adapter's folder of the workspace. */
interface Paths {
  readonly folder: string;
  readonly notes: string;
  readonly created: string;
  readonly ran: string;
  readonly late: string;
  readonly broken: string;
  /** A command that runs for two minutes, then writes `late` (Claude Code refuses a plain long `sleep`). */
  readonly slow: string;
}

export interface AgentSpec {
  /** The agent's name in acp.agents (the preset's, which this replaces). */
  readonly name: string;
  readonly package: string;
  /** The mode the client moves the adapter to at Ask. */
  readonly askingMode: string;
  /** Starts the fake model for `paths`; returns the agent's settings entry and how to stop the model. */
  start(adapter: string, paths: Paths): Promise<{ readonly entry: Record<string, unknown>; close(): Promise<void> }>;
  /**
   * The model's last words after each script, as the fake server writes them. Without `rejectedEdit`, a rejection
   * ends the turn (codex-acp) and the model is not asked again.
   */
  readonly done: { readonly allowedEdit: RegExp; readonly rejectedEdit?: RegExp; readonly tools: RegExp };
  /** The adapter serves ACP v2 (Preview) to a client that asks for it: one turn is played over v2 too. */
  readonly speaksV2?: true;
  /**
   * The fake model answers the scenario `overloaded` as an overloaded service, and the adapter fails the turn at once
   * with an error whose data says so (codex-acp does not: it says the service's words as the agent's message, and ends
   * the turn end_turn, to a client that is not JetBrains AIR; docs/agents.md).
   */
  readonly overloads?: true;
  /** The fake model cuts every stream of the scenario `disconnect` short; the adapter says its retry as it makes it. */
  readonly retriesCutStreams?: true;
}

/** Waits for the agent's question, answers it with the option of `kind`, and returns its title. */
async function answer(chat: ChatHandle, kind: 'allow_once' | 'reject_once', what: string): Promise<string> {
  const request = await waitFor(() => chat.permissions[0], { what: `the question about ${what}`, timeoutMs: 60_000 });
  const option = request.options.find((o) => o.kind === kind);
  assert.ok(option, `the question offers ${kind}: ${JSON.stringify(request.options)}`);
  await chat.answerPermission(request.id, option.optionId);
  return request.title;
}

export function agentSuite(spec: AgentSpec): void {
  describe(`${spec.package} ${AGENT_PINS[spec.package]}, offline behind a fake model`, function () {
    this.timeout(180_000);
    const folder = join(workspaceFolder(), spec.name.replace(/\W+/g, '-').toLowerCase());
    const paths: Paths = {
      folder,
      notes: join(folder, 'notes.txt'),
      created: join(folder, 'new.txt'),
      ran: join(folder, 'ran.txt'),
      late: join(folder, 'late.txt'),
      broken: join(folder, 'broken.ts'),
      slow: `cd ${folder} && ${process.execPath} slow.js`,
    };
    let model: { close(): Promise<void> } | undefined;

    /** A new chat with the agent, once the client moved it to its asking mode (the chat is at Ask). */
    async function askingChat(): Promise<ChatHandle> {
      const chat = await newChat(spec.name);
      await waitFor(() => chat.session.pickers.find((p) => p.id === 'mode')?.current === spec.askingMode, {
        what: `the agent moved to ${spec.askingMode}`,
        timeoutMs: 60_000,
      });
      assert.equal(chat.permissionLevel.level, 'ask');
      return chat;
    }

    before(async () => {
      const dir = process.env['ACP_AGENTS_DIR'];
      assert.ok(dir, 'the harness installs the pinned adapters (ACP_AGENTS_DIR)');
      mkdirSync(folder, { recursive: true });
      writeFileSync(paths.broken, 'export const n: number = "not a number";\n');
      writeFileSync(join(folder, 'slow.js'), "setTimeout(() => require('fs').writeFileSync(__dirname + '/late.txt', 'late\\n'), 120000);\n");
      const started = await spec.start(join(dir, 'node_modules', spec.package, 'dist', 'index.js'), paths);
      model = started;
      await vscode.workspace.getConfiguration('acp').update('agents', { [spec.name]: started.entry }, vscode.ConfigurationTarget.Global);
    });
    beforeEach(() => writeFileSync(paths.notes, 'one\n'));
    afterEach(() => closeAllChats());
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await model?.close();
    });

    it('moves the agent out of its starting mode at Ask; the edit and the command are asked, and allowed they happen', async () => {
      const chat = await askingChat();
      assert.ok(chat.permissionLevel.offered.includes('agentDecides'), 'Agent decides is offered: the adapter has such a mode');
      const edited = chat.send('scenario:edit');
      assert.match(await answer(chat, 'allow_once', 'the edit'), /notes\.txt|Edit/i);
      await within(edited, 90_000, 'the edit turn');
      assert.equal(readFileSync(paths.notes, 'utf8'), 'two\n');
      assert.match(agentText(chat), spec.done.allowedEdit);

      const ran = chat.send('scenario:command');
      await answer(chat, 'allow_once', 'the command');
      await within(ran, 90_000, 'the command turn');
      assert.equal(readFileSync(paths.ran, 'utf8'), 'ran\n');
    });

    if (spec.speaksV2) {
      it('over ACP v2, asked for: the edit is asked, allowed it happens, and the agent’s idle state ends the turn', async () => {
        const config = vscode.workspace.getConfiguration('acp');
        const entry = config.inspect<Record<string, Record<string, unknown>>>('agents')?.globalValue?.[spec.name];
        await config.update('agents', { [spec.name]: { ...entry, protocol: 'v2' } }, vscode.ConfigurationTarget.Global);
        try {
          const report = await vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', spec.name);
          assert.match((await vscode.workspace.openTextDocument(report)).getText(), /- Protocol version: 2/);
          const chat = await askingChat();
          const edited = chat.send('scenario:edit');
          assert.match(await answer(chat, 'allow_once', 'the edit'), /notes\.txt|Edit/i);
          assert.equal(await within(edited, 90_000, 'the edit turn over v2'), 'end_turn');
          assert.equal(readFileSync(paths.notes, 'utf8'), 'two\n');
          assert.match(agentText(chat), spec.done.allowedEdit);
        } finally {
          await closeAllChats();
          await config.update('agents', { [spec.name]: entry }, vscode.ConfigurationTarget.Global);
        }
      });
    }

    if (spec.overloads) {
      it('says an overloaded service as such, from the error’s data, and offers Retry', async () => {
        const chat = await newChat(spec.name);
        await assert.rejects(within(chat.send('scenario:overloaded'), 60_000, 'the overloaded turn'));
        assert.equal(chat.turn.failure?.kind, 'overloaded', `the failure: ${JSON.stringify(chat.turn)}`);
        assert.ok(chat.turn.failure.actions.includes('retry'));
        assert.match(chat.turn.error ?? '', /529/, 'the adapter’s words');
      });
    }

    if (spec.retriesCutStreams) {
      it('says the agent’s retry of a stream cut short once, while the turn runs, over v1 and over v2', async () => {
        const retries = (chat: ChatHandle) => chat.session.notices.filter((n) => n.title === 'Reconnecting... 1/1');
        const v1 = await newChat(spec.name);
        // The turn ends with the service's words as the agent's message (docs/agents.md); its retry is the notice.
        await within(v1.send('scenario:disconnect'), 60_000, 'the turn whose streams are cut');
        assert.deepEqual(
          retries(v1).map((n) => n.severity),
          ['warning'],
          `the retry, once: ${JSON.stringify(v1.session.notices)}`,
        );
        await closeAllChats();
        // Over v2 the adapter sends its error again with every later change of the session's metadata.
        const config = vscode.workspace.getConfiguration('acp');
        const entry = config.inspect<Record<string, Record<string, unknown>>>('agents')?.globalValue?.[spec.name];
        await config.update('agents', { [spec.name]: { ...entry, protocol: 'v2' } }, vscode.ConfigurationTarget.Global);
        try {
          const v2 = await newChat(spec.name);
          // Over v2 the turn fails with the error (its idle says `error`).
          await assert.rejects(within(v2.send('scenario:disconnect'), 60_000, 'the turn whose streams are cut, over v2'));
          await within(v2.send('scenario:none'), 60_000, 'a turn after it, over v2');
          assert.deepEqual(
            retries(v2).map((n) => n.severity),
            ['warning'],
            `the retry, once: ${JSON.stringify(v2.session.notices)}`,
          );
        } finally {
          await closeAllChats();
          await config.update('agents', { [spec.name]: entry }, vscode.ConfigurationTarget.Global);
        }
      });
    }

    it('changes nothing on disk when the edit and the new file are rejected', async () => {
      const chat = await askingChat();
      const edited = chat.send('scenario:edit');
      await answer(chat, 'reject_once', 'the edit');
      await within(edited, 90_000, 'the rejected edit turn');
      assert.equal(readFileSync(paths.notes, 'utf8'), 'one\n', 'the file is as it was');
      if (spec.done.rejectedEdit) assert.match(agentText(chat), spec.done.rejectedEdit);

      const written = chat.send('scenario:write');
      await answer(chat, 'reject_once', 'the new file');
      await within(written, 90_000, 'the rejected write turn');
      assert.equal(existsSync(paths.created), false, 'no file was created');
    });

    it('leaves nothing running when the turn is cancelled during an allowed command', async () => {
      const chat = await askingChat();
      const slow = chat.send('scenario:slow');
      await answer(chat, 'allow_once', 'the slow command');
      // Asked of ps without blocking the extension host.
      const running = async () => (await promisify(execFile)('ps', ['-eo', 'args'], { encoding: 'utf8' })).stdout.includes(' slow.js');
      await waitFor(running, { what: 'the command to run', timeoutMs: 30_000 });
      await chat.cancel();
      await within(slow, 30_000, 'the cancelled turn');
      await waitFor(async () => !(await running()), { what: 'the command to end with the turn', timeoutMs: 15_000 });
      assert.equal(existsSync(paths.late), false);
    });

    it('calls an editor tool through the vscode MCP server, and its answer reaches the model', async () => {
      // The file is open, as a user has it, and TypeScript has found its error (the tools on files no editor has
      // open are another matter: a cold language service answers nothing).
      const broken = vscode.Uri.file(paths.broken);
      await vscode.window.showTextDocument(broken);
      await waitFor(() => vscode.languages.getDiagnostics(broken).some((d) => /not assignable/.test(d.message)), {
        timeoutMs: 120_000,
        what: 'TypeScript to report the type error',
      });
      const chat = await askingChat();
      const asked = chat.send('scenario:tools');
      // At Ask, the adapter asks before it calls a tool of an MCP server.
      await answer(chat, 'allow_once', 'the editor tool');
      await within(asked, 90_000, 'the tools turn');
      assert.match(agentText(chat), spec.done.tools);
    });
  });
}
