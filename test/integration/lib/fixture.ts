// Helpers for integration tests: configure the fixture agent through the real settings, reach the extension's API
// (chats are handles: what a chat shows, and what its user can do), and read what the agent recorded. Everything
// waits on conditions with a bound; nothing sleeps.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChatHandle } from '../../../src/chats/handle';
import type { AcpApi } from '../../../src/extension';
import { waitFor, within } from '../../lib/wait';

export const EXTENSION_ID = 'acp-client.acp-client';

/** out/test/integration/*.test.js → out/test/fixtures/agent.js */
export const FIXTURE_AGENT = join(__dirname, '..', 'fixtures', 'agent.js');

export async function api(): Promise<AcpApi> {
  const extension = vscode.extensions.getExtension<AcpApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not loaded`);
  return extension.activate();
}

/** Runs "ACP: New Chat" (with `agentName`, or the default agent) and returns the chat it opened. */
export async function newChat(agentName?: string): Promise<ChatHandle> {
  await api(); // activated first: a command that activates the extension returns its result serialized, methods lost
  const chat = await vscode.commands.executeCommand<ChatHandle | undefined>('acp.newChat', ...(agentName ? [agentName] : []));
  assert.ok(chat, `acp.newChat opened a chat${agentName ? ` with ${agentName}` : ''}`);
  return chat;
}

/** The text of the chat's messages from `role`, one string per message, oldest first. */
export function messages(chat: ChatHandle, role: 'user' | 'agent'): string[] {
  return chat.entries.flatMap((e) => (e.kind === 'message' && e.role === role ? [e.text] : []));
}

/** What the agent said in the chat, joined. */
export function agentText(chat: ChatHandle): string {
  return messages(chat, 'agent').join('');
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the integration tests need a workspace folder');
  return folder.uri.fsPath;
}

export interface FixtureSetup {
  readonly name: string;
  readonly recordFile: string;
}

/** The file that releases a waiting turn of the fixture ("paced"): see `releaseTurn`. */
const releaseFile = (setup: FixtureSetup) => `${setup.recordFile}.release`;

/** Lets the fixture's waiting turn go on, and waits until it has (the fixture takes the file away). */
export async function releaseTurn(setup: FixtureSetup): Promise<void> {
  writeFileSync(releaseFile(setup), '');
  await waitFor(() => !existsSync(releaseFile(setup)), { what: 'the fixture to take the release' });
}

/** Writes `acp.agents` (user settings) with one fixture agent playing `scenario`, and makes it the default. */
export async function useFixtureAgent(
  scenario: string,
  options: { name?: string; env?: Record<string, string>; protocol?: 'auto' | 'v1' | 'v2' } = {},
): Promise<FixtureSetup> {
  const name = options.name ?? `Fixture (${scenario})`;
  const recordFile = join(tmpdir(), `acp-record-${randomUUID()}.jsonl`);
  const config = vscode.workspace.getConfiguration('acp');
  await config.update(
    'agents',
    {
      [name]: {
        command: process.execPath,
        args: [FIXTURE_AGENT, '--scenario', scenario],
        // ELECTRON_RUN_AS_NODE lets the desktop extension host's binary run the fixture as plain Node.
        env: {
          ELECTRON_RUN_AS_NODE: '1',
          ACP_FIXTURE_RECORD: recordFile,
          ACP_FIXTURE_RELEASE: `${recordFile}.release`,
          ACP_FIXTURE_MAX_LIFETIME_MS: '90000',
          ...options.env,
        },
        ...(options.protocol ? { protocol: options.protocol } : {}),
      },
    },
    vscode.ConfigurationTarget.Global,
  );
  await config.update('defaultAgent', name, vscode.ConfigurationTarget.Global);
  await waitFor(() => vscode.workspace.getConfiguration('acp').get('defaultAgent') === name, { what: 'the settings to apply' });
  return { name, recordFile };
}

export interface Recorded {
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** Every message the client sent to the fixture agent, in order. */
export function recorded(file: string): Recorded[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = JSON.parse(line) as { message?: Recorded } & Recorded;
      return parsed.message ?? parsed;
    });
}

/**
 * Runs a command that asks in a quick input, and answers it with `key` (a workbench command: Enter is
 * `workbench.action.acceptSelectedQuickOpenItem`, Escape `workbench.action.closeQuickOpen`) until the command is
 * done, as a user would once the list is there. Resolves with what the command returned.
 */
export async function answeringQuickInput<T>(run: () => Thenable<T>, key: string, what: string, timeoutMs = 20_000): Promise<T> {
  const result = Promise.resolve(run());
  let settled = false;
  void result.finally(() => (settled = true));
  await waitFor(
    async () => {
      if (!settled) await vscode.commands.executeCommand(key);
      return settled;
    },
    { timeoutMs, what },
  );
  return result;
}

/** Enter on a quick input: see answeringQuickInput. */
export const ENTER = 'workbench.action.acceptSelectedQuickOpenItem';

/** Closes every chat and waits until no agent process of theirs is alive. */
export async function closeAllChats(): Promise<void> {
  const acp = await api();
  const pids = acp.chats.map((chat) => chat.agentPid).filter((pid): pid is number => pid !== undefined);
  for (const chat of acp.chats) chat.close();
  await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 10_000, what: `agent processes ${pids.join(', ')} to exit` });
}

/** The text of the extension's "ACP" log channel, as written to disk by the extension host. */
export function acpLog(): string {
  const root = process.env['ACP_TEST_LOGS'];
  if (!root) throw new Error('ACP_TEST_LOGS is not set; the harness sets it to the logs folder');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(join(EXTENSION_ID, 'ACP.log')));
  return files.map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One step for the client-calls fixture: a request to the client, or a session/update to send. */
export type Step = { readonly method: string; readonly params: Record<string, unknown> } | { readonly update: Record<string, unknown> };

/** A client call's answer, as the fixture reports it. */
export interface CallResult {
  readonly content?: string;
  readonly error?: { code: number; message: string };
  readonly [key: string]: unknown;
}

/** Opens a chat with the default agent (the client-calls fixture) and sends the steps; `done` is the turn's results. */
export async function startSteps(...steps: Step[]): Promise<{ chat: ChatHandle; done: Promise<CallResult[]> }> {
  const chat = await newChat();
  const done = within(chat.send(JSON.stringify(steps)), 20_000, 'the steps').then(() => stepResults(chat));
  return { chat, done };
}

/** Runs the steps in a new chat and returns each call's result. */
export async function runSteps(...steps: Step[]): Promise<CallResult[]> {
  return (await startSteps(...steps)).done;
}

/** What the client-calls fixture said about each call: one `<method>:<JSON>` line per call. */
function stepResults(chat: ChatHandle): CallResult[] {
  return agentText(chat)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line.slice(line.indexOf(':') + 1)) as CallResult);
}

/** Writes `acp.agents` (user settings) with several fixture agents at once, keyed by name; returns each one's record file. */
export async function useFixtureAgents(
  agents: Record<string, { scenario: string; env?: Record<string, string> }>,
): Promise<Record<string, FixtureSetup>> {
  const settings: Record<string, unknown> = {};
  const setups: Record<string, FixtureSetup> = {};
  for (const [name, { scenario, env }] of Object.entries(agents)) {
    const recordFile = join(tmpdir(), `acp-record-${randomUUID()}.jsonl`);
    setups[name] = { name, recordFile };
    settings[name] = {
      command: process.execPath,
      args: [FIXTURE_AGENT, '--scenario', scenario],
      env: {
        ELECTRON_RUN_AS_NODE: '1',
        ACP_FIXTURE_RECORD: recordFile,
        ACP_FIXTURE_RELEASE: `${recordFile}.release`,
        ACP_FIXTURE_MAX_LIFETIME_MS: '90000',
        ...env,
      },
    };
  }
  const config = vscode.workspace.getConfiguration('acp');
  await config.update('agents', settings, vscode.ConfigurationTarget.Global);
  await config.update('defaultAgent', undefined, vscode.ConfigurationTarget.Global);
  await waitFor(
    () => Object.keys(vscode.workspace.getConfiguration('acp').get<Record<string, unknown>>('agents') ?? {}).join() === Object.keys(settings).join(),
    {
      what: 'the settings to apply',
    },
  );
  return setups;
}
