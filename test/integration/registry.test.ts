// Agents from the ACP Registry in a real extension host: a loopback HTTP server serves a registry and archives built
// from the fixture agent (every archive type, and npx/uvx entries); the tests install through "ACP: Add Agent from
// Registry…" (accepting its quick pick as a user would), chat with what they installed, update, uninstall, read the
// registry offline, and try every hostile archive the issue names.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { platformKey } from '../../src/registry/format';
import type { RegistryOutcome } from '../../src/registry/commands';
import { launcher, launcherTarBz2, tarArchive, tgz, zipArchive, type Member } from '../lib/archives';
import { RegistryServer } from '../lib/registryServer';
import { waitFor, within } from '../lib/wait';
import { acpLog, agentText, alive, answeringQuickInput, api, closeAllChats, ENTER, EXTENSION_ID, FIXTURE_AGENT, newChat } from './lib/fixture';

const PLATFORM = platformKey(process.platform, process.arch);
const CMD = './fixture-agent/bin/fixture-agent';

/** What the launcher needs to start the fixture agent, as the registry's `env` gives it. */
function launcherEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ACP_FIXTURE_NODE: process.execPath,
    ACP_FIXTURE_AGENT_JS: FIXTURE_AGENT,
    ACP_FIXTURE_MAX_LIFETIME_MS: '90000',
    ...extra,
  };
}

interface Entry {
  id: string;
  name: string;
  version: string;
  description: string;
  distribution: Record<string, unknown>;
}

function binaryEntry(
  id: string,
  version: string,
  archivePath: string,
  options: { cmd?: string; scenario?: string; env?: Record<string, string> } = {},
): Entry {
  if (!PLATFORM) throw new Error(`no registry target for ${process.platform}-${process.arch}`);
  return {
    id,
    name: `Registry ${id}`,
    version,
    description: `The fixture agent as ${archivePath}`,
    distribution: {
      binary: {
        [PLATFORM]: {
          archive: server.url(archivePath),
          cmd: options.cmd ?? CMD,
          args: ['--scenario', options.scenario ?? 'echo'],
          env: launcherEnv(options.env),
        },
      },
    },
  };
}

let server: RegistryServer;

function serveRegistry(entries: readonly (Entry | Record<string, unknown>)[], path = '/registry.json'): string {
  server.route(path, { body: JSON.stringify({ version: '1.0.0', agents: entries, extensions: [] }), type: 'application/json', etag: true });
  return server.url(path);
}

async function useRegistry(url: string): Promise<void> {
  await vscode.workspace.getConfiguration('acp').update('registry.url', url, vscode.ConfigurationTarget.Global);
  await waitFor(() => vscode.workspace.getConfiguration('acp').get('registry.url') === url, { what: 'the registry URL to apply' });
}

/** Runs "ACP: Add Agent from Registry…" starting on `id`, and accepts the quick pick as the user's Enter would. */
async function addFromRegistry(id: string): Promise<RegistryOutcome> {
  await api();
  return answeringQuickInput(
    () => vscode.commands.executeCommand<RegistryOutcome>('acp.addAgentFromRegistry', id),
    ENTER,
    `the install of ${id}`,
    30_000,
  );
}

function installed(outcome: RegistryOutcome): Extract<RegistryOutcome, { command: string }> {
  assert.ok(outcome.done === 'installed' || outcome.done === 'updated', `installed, not: ${JSON.stringify(outcome)}`);
  return outcome;
}

function refused(outcome: RegistryOutcome): string {
  assert.equal(outcome.done, 'nothing', `refused, not: ${JSON.stringify(outcome)}`);
  assert.ok(outcome.message, 'with a sentence');
  return outcome.message;
}

/** `<globalStorage>/agents`, from where an install landed (`<root>/<id>/<version>/fixture-agent/bin/fixture-agent`). */
let agentsRoot: string | undefined;

function rootOf(command: string): string {
  return dirname(dirname(dirname(dirname(dirname(command)))));
}

/** A folder on PATH with `npx` and `uvx` stand-ins that run the fixture agent, whatever package they are given. */
function fakePackageRunners(): string {
  const bin = join(tmpdir(), `acp-bin-${randomUUID()}`);
  mkdirSync(bin, { recursive: true });
  for (const tool of ['npx', 'uvx']) {
    // Each start leaves its arguments in <tool>.args, one per line: what the user's npx or uvx would have been asked to run.
    writeFileSync(join(bin, tool), `#!/bin/sh\nprintf '%s\\n' "$@" > "$0.args"\nexec "${process.execPath}" "${FIXTURE_AGENT}" --scenario echo\n`);
    chmodSync(join(bin, tool), 0o755);
  }
  return bin;
}

async function withPath<T>(path: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env['PATH'];
  process.env['PATH'] = path;
  try {
    return await run();
  } finally {
    process.env['PATH'] = saved;
  }
}

describe('agents from the ACP Registry', function () {
  this.timeout(60_000);

  before(async () => {
    server = await RegistryServer.start();
  });

  after(async () => {
    await closeAllChats();
    await vscode.workspace.getConfiguration('acp').update('registry.url', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  afterEach(async () => {
    await closeAllChats();
  });

  it('installs a binary agent from every archive type, and a chat with each answers', async () => {
    const members = launcher();
    server.route('/fixture-1.0.0.tar.gz', { body: tgz(members) });
    server.route('/fixture-1.0.0.tgz', { body: tgz(members) });
    server.route('/fixture-1.0.0.zip', { body: zipArchive(members) });
    server.route('/fixture-1.0.0.tar.bz2', { body: readFileSync(launcherTarBz2()) });
    server.route('/fixture-1.0.0.tar', { body: tarArchive(members) });
    const script = members.find((m) => m.name.endsWith('bin/fixture-agent'));
    server.route('/fixture-agent-1.0.0', { body: Buffer.from(script?.content ?? '') });
    const entries = [
      binaryEntry('fixture-targz', '1.0.0', '/fixture-1.0.0.tar.gz'),
      binaryEntry('fixture-tgz', '1.0.0', '/fixture-1.0.0.tgz'),
      binaryEntry('fixture-zip', '1.0.0', '/fixture-1.0.0.zip'),
      binaryEntry('fixture-tbz', '1.0.0', '/fixture-1.0.0.tar.bz2'),
      binaryEntry('fixture-tar', '1.0.0', '/fixture-1.0.0.tar'),
      binaryEntry('fixture-raw', '1.0.0', '/fixture-agent-1.0.0', { cmd: './fixture-agent' }),
    ];
    await useRegistry(serveRegistry(entries));
    for (const entry of entries) {
      const outcome = installed(await addFromRegistry(entry.id));
      assert.equal(outcome.agent, entry.name);
      assert.equal(outcome.version, '1.0.0');
      assert.ok(outcome.command.includes(join(entry.id, '1.0.0')), `${outcome.command} is in its version's folder`);
      agentsRoot ??= rootOf(outcome.command);
      const chat = await newChat(entry.name);
      assert.equal(await within(chat.send('hello'), 15_000, `a turn with ${entry.name}`), 'end_turn');
      assert.equal(agentText(chat), 'You said: hello');
      chat.close();
    }
    const root = agentsRoot!;
    assert.deepEqual(
      readdirSync(root).filter((name) => name.startsWith('.install-')),
      [],
      'no temporary folder or download is left behind',
    );
  });

  it('removes what an install that crashed left behind, once no window is installing', async () => {
    const root = agentsRoot!;
    mkdirSync(join(root, '.install-crashed-1234', 'fixture-agent'), { recursive: true });
    writeFileSync(join(root, '.install-crashed-1234.download'), 'half an archive');
    // Any cleanup removes them: one runs after each agent process ends.
    const chat = await newChat('Registry fixture-zip');
    assert.equal(await within(chat.send('hello'), 15_000, 'a turn'), 'end_turn');
    chat.close();
    await waitFor(() => readdirSync(root).filter((name) => name.startsWith('.install-')).length === 0, {
      timeoutMs: 15_000,
      what: 'the leftovers of a crashed install to go',
    });
  });

  it('is tested like any agent: Test Connection names where it came from', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', 'Registry fixture-zip');
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    assert.match(text, /Result: connected/);
    assert.match(text, /Installed from the ACP Registry: fixture-zip 1\.0\.0/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('pins npx and uvx to the version picked, and names the tool to install when it is missing', async () => {
    const url = serveRegistry([
      {
        id: 'npx-agent',
        name: 'Npx Agent',
        version: '1.2.3',
        description: 'runs with npx',
        distribution: { npx: { package: '@acp-test/agent', args: ['--acp'] } },
      },
      {
        id: 'uvx-agent',
        name: 'Uvx Agent',
        version: '0.4.0',
        description: 'runs with uvx',
        distribution: { uvx: { package: 'acp-test-agent', args: ['acp'] } },
      },
      {
        id: 'npx-cmd-agent',
        name: 'Npx Cmd Agent',
        version: '2.0.0',
        description: 'a program of a package with several',
        distribution: { npx: { package: '@acp-test/tools', cmd: 'tools-acp', args: ['--acp'] } },
      },
      {
        id: 'uvx-cmd-agent',
        name: 'Uvx Cmd Agent',
        version: '0.5.0',
        description: 'a program of a package with several',
        distribution: { uvx: { package: 'acp-test-tools', cmd: 'tools-acp' } },
      },
    ]);
    await useRegistry(url);
    const empty = join(tmpdir(), `acp-empty-${randomUUID()}`);
    mkdirSync(empty);
    assert.match(refused(await withPath(empty, () => addFromRegistry('npx-agent'))), /runs with npx, which is not on PATH\. npx comes with Node\.js/);
    assert.match(refused(await withPath(empty, () => addFromRegistry('uvx-agent'))), /runs with uvx, which is not on PATH\. uvx comes with uv/);

    const bin = fakePackageRunners();
    const saved = process.env['PATH'] ?? '';
    await withPath(`${bin}:${saved}`, async () => {
      const npx = installed(await addFromRegistry('npx-agent'));
      assert.deepEqual([npx.command, ...npx.args], ['npx', '-y', '@acp-test/agent@1.2.3', '--acp']);
      const uvx = installed(await addFromRegistry('uvx-agent'));
      assert.deepEqual([uvx.command, ...uvx.args], ['uvx', 'acp-test-agent==0.4.0', 'acp']);
      // An entry that names a cmd runs that program of its package, pinned, not the package's default one. Installed
      // before any chat opens: a chat that loads takes the focus, which would close the next install's quick pick.
      const npxCmd = installed(await addFromRegistry('npx-cmd-agent'));
      assert.deepEqual([npxCmd.command, ...npxCmd.args], ['npx', '-y', '--package', '@acp-test/tools@2.0.0', 'tools-acp', '--acp']);
      const uvxCmd = installed(await addFromRegistry('uvx-cmd-agent'));
      assert.deepEqual([uvxCmd.command, ...uvxCmd.args], ['uvx', '--from', 'acp-test-tools==0.5.0', 'tools-acp']);
      const chat = await newChat('Uvx Agent');
      assert.equal(await within(chat.send('pinned?'), 15_000, 'a turn with the uvx agent'), 'end_turn');
      assert.equal(agentText(chat), 'You said: pinned?');
      assert.deepEqual(readFileSync(join(bin, 'uvx.args'), 'utf8').split('\n').filter(Boolean), ['acp-test-agent==0.4.0', 'acp']);
      const cmdChat = await newChat('Npx Cmd Agent');
      assert.equal(await within(cmdChat.send('which program?'), 15_000, 'a turn with the npx cmd agent'), 'end_turn');
      assert.deepEqual(readFileSync(join(bin, 'npx.args'), 'utf8').split('\n').filter(Boolean), [
        '-y',
        '--package',
        '@acp-test/tools@2.0.0',
        'tools-acp',
        '--acp',
      ]);
    });
  });

  it('skips registry entries it cannot read, with a log line, and still installs the others', async () => {
    const members = launcher();
    server.route('/valid-1.0.0.tar.gz', { body: tgz(members) });
    await useRegistry(
      serveRegistry([
        { id: 'broken-version', name: 'Broken', version: 'latest', description: 'x', distribution: { npx: { package: 'x' } } },
        { id: 'Not An Id', name: 'Bad id', version: '1.0.0', description: 'x', distribution: { npx: { package: 'x' } } },
        binaryEntry('valid', '1.0.0', '/valid-1.0.0.tar.gz'),
      ]),
    );
    assert.match(refused(await addFromRegistry('broken-version')), /does not list an agent "broken-version"/);
    installed(await addFromRegistry('valid'));
    const log = acpLog();
    assert.match(log, /\[registry\] The registry's agent "broken-version" was skipped: its version is not x\.y\.z/);
    assert.match(log, /\[registry\] The registry's agent "Not An Id" was skipped: its id is not lowercase/);
  });

  it('updates beside the old version: open chats keep theirs, new chats get the new one, and the old files go with the last chat', async () => {
    const members = launcher();
    server.route('/upd-1.0.0.tar.gz', { body: tgz(members) });
    server.route('/upd-2.0.0.tar.gz', { body: tgz(members) });
    await useRegistry(serveRegistry([binaryEntry('upd', '1.0.0', '/upd-1.0.0.tar.gz')]));
    const first = installed(await addFromRegistry('upd'));
    const old = await newChat('Registry upd');
    assert.equal(await within(old.send('one'), 15_000, 'a turn on 1.0.0'), 'end_turn');
    const oldPid = old.agentPid;

    serveRegistry([binaryEntry('upd', '2.0.0', '/upd-2.0.0.tar.gz')]);
    const updated = await vscode.commands.executeCommand<RegistryOutcome>('acp.updateAgent', 'Registry upd');
    const second = installed(updated);
    assert.equal(second.done, 'updated');
    assert.ok(second.command.includes(join('upd', '2.0.0')));
    assert.ok(existsSync(first.command), 'the old version stays while its chat runs');

    const fresh = await newChat('Registry upd');
    assert.equal(await within(fresh.send('two'), 15_000, 'a turn on 2.0.0'), 'end_turn');
    assert.notEqual(fresh.agentPid, oldPid, 'a new chat runs the new version in a process of its own');
    assert.equal(await within(old.send('still here'), 15_000, 'a turn on the old process'), 'end_turn');
    assert.equal(old.agentPid, oldPid, 'the open chat kept its process');

    old.close();
    await waitFor(() => !existsSync(dirname(dirname(dirname(first.command)))), { what: 'the old version to be removed once nothing runs it' });
    assert.ok(existsSync(second.command), 'the new version stays');

    // An update that fails switches nothing: 2.0.0 stays installed and runs.
    server.route('/upd-3.0.0.tar.gz', { body: tgz([...launcher(), { name: '../../outside.txt', content: 'x' }]) });
    serveRegistry([binaryEntry('upd', '3.0.0', '/upd-3.0.0.tar.gz')]);
    assert.match(refused(await vscode.commands.executeCommand<RegistryOutcome>('acp.updateAgent', 'Registry upd')), /3\.0\.0 was not installed/);
    assert.ok(!existsSync(join(dirname(dirname(dirname(second.command))), '..', '3.0.0')), 'no 3.0.0 folder');
    const after = await newChat('Registry upd');
    assert.equal(await within(after.send('three?'), 15_000, 'a turn after the failed update'), 'end_turn');
    const uri = await vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', 'Registry upd');
    assert.match((await vscode.workspace.openTextDocument(uri)).getText(), /Installed from the ACP Registry: upd 2\.0\.0/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('uninstalls: the agent leaves the lists at once, and its files go when its last chat closes', async () => {
    const members = launcher();
    server.route('/gone-1.0.0.zip', { body: zipArchive(members) });
    await useRegistry(serveRegistry([binaryEntry('gone', '1.0.0', '/gone-1.0.0.zip')]));
    const outcome = installed(await addFromRegistry('gone'));
    const chat = await newChat('Registry gone');
    assert.equal(await within(chat.send('hi'), 15_000, 'a turn'), 'end_turn');
    const pid = chat.agentPid;
    await vscode.commands.executeCommand('acp.uninstallAgent', 'Registry gone');
    const fresh = await vscode.commands.executeCommand('acp.newChat', 'Registry gone');
    assert.equal(fresh, undefined, 'no new chat with an uninstalled agent');
    assert.ok(pid !== undefined && alive(pid), 'the open chat keeps running');
    assert.ok(existsSync(outcome.command), 'its files stay while it runs');
    chat.close();
    await waitFor(() => !existsSync(outcome.command), { what: 'the files to be removed after the last chat closed' });
  });

  it('reads the registry with HTTP caching, then offline from the last copy, then from the shipped snapshot with its date', async () => {
    const bin = fakePackageRunners();
    const saved = process.env['PATH'] ?? '';
    const url = serveRegistry(
      [{ id: 'cached-agent', name: 'Cached Agent', version: '3.0.0', description: 'cached', distribution: { npx: { package: 'cached-agent' } } }],
      '/cached/registry.json',
    );
    await useRegistry(url);
    await withPath(`${bin}:${saved}`, async () => {
      assert.equal(installed(await addFromRegistry('cached-agent')).origin, 'network');
      await vscode.commands.executeCommand('acp.uninstallAgent', 'Cached Agent');
      assert.equal(installed(await addFromRegistry('cached-agent')).origin, 'network', 'unchanged (304) is as good as fetched');
      const asked = server.requests.filter((r) => r.path === '/cached/registry.json');
      assert.ok(asked.length >= 2);
      assert.ok(asked[asked.length - 1]?.headers['if-none-match'], 'the second read asked with the ETag of the first');

      // The server goes away: the last copy fetched from this URL answers.
      server.route('/cached/registry.json', { status: 503 });
      await vscode.commands.executeCommand('acp.uninstallAgent', 'Cached Agent');
      assert.equal(installed(await addFromRegistry('cached-agent')).origin, 'cache');

      // A URL never fetched, offline: the snapshot shipped in the VSIX.
      const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
      const snapshot = JSON.parse(readFileSync(join(extension.extensionPath, 'media', 'registry-snapshot.json'), 'utf8')) as {
        date: string;
        registry: { agents: { id: string; version: string; distribution: { npx?: { package: string } } }[] };
      };
      assert.ok(!Number.isNaN(Date.parse(snapshot.date)), 'the snapshot says its date');
      const npxAgent = snapshot.registry.agents.find((a) => a.distribution.npx);
      assert.ok(npxAgent, 'the snapshot has an npx agent');
      await useRegistry(`http://127.0.0.1:9/never-${randomUUID()}.json`);
      const fromSnapshot = installed(await addFromRegistry(npxAgent.id));
      assert.equal(fromSnapshot.origin, 'snapshot');
      assert.ok(
        fromSnapshot.args.some((arg) => arg.startsWith(npxAgent.distribution.npx!.package.replace(/@[^@/]*$/, ''))),
        'pinned from the snapshot',
      );
      await vscode.commands.executeCommand('acp.uninstallAgent', fromSnapshot.agent);
    });
  });

  it('pins a built-in preset to the registry\u2019s version only, after the user agreed to the new command line', async () => {
    const readList = async () =>
      assert.match(refused(await vscode.commands.executeCommand<RegistryOutcome>('acp.addAgentFromRegistry', 'no-such-agent')), /does not list/);
    const gemini = (version: string, pkg = '@google/gemini-cli') => ({
      id: 'gemini',
      name: 'Gemini CLI',
      version,
      description: 'g',
      // The registry's args and env are not the preset's: only the version may change.
      distribution: { npx: { package: `${pkg}@${version}`, args: ['--experimental-acp'], env: { GEMINI_SOMETHING: '1' } } },
    });
    const testConnection = async (answer?: string) => {
      const run = () => vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', 'Gemini CLI');
      const uri = answer
        ? await answeringQuickInput(run, answer, 'the question about the new command line')
        : await within(Promise.resolve(run()), 20_000, 'Test Connection');
      const text = (await vscode.workspace.openTextDocument(uri)).getText();
      assert.match(text, /A built-in preset/);
      assert.match(text, /Result: connected/);
      assert.doesNotMatch(text, /GEMINI_SOMETHING|experimental-acp/);
      return /Command: `([^`]*)`/.exec(text)?.[1];
    };
    const bin = fakePackageRunners();
    const saved = process.env['PATH'] ?? '';
    try {
      await withPath(`${bin}:${saved}`, async () => {
        await useRegistry(serveRegistry([gemini('0.99.0')], '/presets/registry.json'));
        await readList();
        // Enter runs the new command line, and it is not asked again.
        assert.equal(await testConnection(ENTER), 'npx -y @google/gemini-cli@0.99.0 --acp');
        assert.equal(await testConnection(), 'npx -y @google/gemini-cli@0.99.0 --acp');
        // A newer pin asks again; Escape keeps what was agreed, this time.
        serveRegistry([gemini('0.99.1')], '/presets/registry.json');
        await readList();
        assert.equal(await testConnection('workbench.action.closeQuickOpen'), 'npx -y @google/gemini-cli@0.99.0 --acp');
        // Another package under the preset's id changes nothing, and asks nothing.
        serveRegistry([gemini('5.0.0', 'gemini-cli-but-not-google')], '/presets/registry.json');
        await readList();
        assert.equal(await testConnection(), 'npx -y @google/gemini-cli --acp');
      });
    } finally {
      // The list without it puts the built-in preset back, for the tests that follow.
      serveRegistry([], '/presets/registry.json');
      await readList();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('shows a user who ran the old Codex preset the old and the new command line once, and runs the maintained package as agreed', async () => {
    // The user has a chat with Codex from before: its transcript is kept (run here by a fixture under that name).
    await vscode.workspace
      .getConfiguration('acp')
      .update(
        'agents',
        { Codex: { command: process.execPath, args: [FIXTURE_AGENT, '--scenario', 'echo'], env: { ELECTRON_RUN_AS_NODE: '1' } } },
        vscode.ConfigurationTarget.Global,
      );
    const chat = await newChat('Codex');
    await within(chat.send('from before'), 10_000, 'the earlier turn');
    const sessionId = chat.sessionId;
    await waitFor(async () => (await (await api()).previousSessions('Codex')).some((s) => s.sessionId === sessionId), {
      what: 'the earlier chat to be kept',
    });
    chat.close();
    await vscode.workspace.getConfiguration('acp').update('agents', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(
      () =>
        vscode.workspace.getConfiguration('acp').get('agents') === undefined ||
        Object.keys(vscode.workspace.getConfiguration('acp').get<object>('agents') ?? {}).length === 0,
      {
        what: 'the preset back',
      },
    );
    const testConnection = async (answer?: string) => {
      const run = () => vscode.commands.executeCommand<vscode.Uri>('acp.testConnection', 'Codex');
      const uri = answer
        ? await answeringQuickInput(run, answer, 'the question about the new command line')
        : await within(Promise.resolve(run()), 20_000, 'Test Connection');
      const text = (await vscode.workspace.openTextDocument(uri)).getText();
      assert.match(text, /Result: connected/);
      return /Command: `([^`]*)`/.exec(text)?.[1];
    };
    const bin = fakePackageRunners();
    const saved = process.env['PATH'] ?? '';
    try {
      await withPath(`${bin}:${saved}`, async () => {
        // Escape keeps what the user ran before, this time, and asks again at the next start.
        assert.equal(await testConnection('workbench.action.closeQuickOpen'), 'npx -y @zed-industries/codex-acp');
        // Enter runs the maintained package, and it is not asked again.
        assert.equal(await testConnection(ENTER), 'npx -y @agentclientprotocol/codex-acp');
        assert.equal(await testConnection(), 'npx -y @agentclientprotocol/codex-acp');
        assert.equal(readFileSync(join(bin, 'npx.args'), 'utf8'), '-y\n@agentclientprotocol/codex-acp\n');
      });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('refuses registry URLs that are not https or loopback http, and a workspace cannot set the URL', async () => {
    await useRegistry('http://example.com/registry.json');
    assert.match(
      refused(await vscode.commands.executeCommand<RegistryOutcome>('acp.addAgentFromRegistry')),
      /plain http, which is only fetched from this machine/,
    );
    await useRegistry('file:///etc/passwd');
    assert.match(refused(await vscode.commands.executeCommand<RegistryOutcome>('acp.addAgentFromRegistry')), /is not an https URL/);

    // Machine scope: VS Code refuses a workspace value, and the extension reads only the user's.
    const url = serveRegistry([], '/user/registry.json');
    await useRegistry(url);
    await assert.rejects(
      Promise.resolve(
        vscode.workspace.getConfiguration('acp').update('registry.url', 'https://evil.example/registry.json', vscode.ConfigurationTarget.Workspace),
      ),
    );
  });

  describe('hostile downloads: the whole install fails with a sentence, and nothing is written outside', () => {
    const sentinel = `escape-${randomUUID()}`;
    const absolute = join(tmpdir(), `${sentinel}-absolute.txt`);
    const cases: { name: string; path: string; body: () => Buffer; expect: RegExp; cmd?: string }[] = [
      {
        name: 'a "../" member',
        path: '/dotdot.tar.gz',
        body: () => tgz([...launcher(), { name: `../${sentinel}.txt`, content: 'x' }]),
        expect: /was not installed\. The archive was refused: its member "\.\.\/escape-[\w-]+\.txt" climbs out of the folder with "\.\."/,
      },
      {
        name: 'a nested "../" member',
        path: '/nested.zip',
        body: () => zipArchive([...launcher(), { name: `a/../../${sentinel}.txt`, content: 'x' }]),
        expect: /refused/,
      },
      {
        name: 'an absolute member',
        path: '/absolute.tar.gz',
        body: () => tgz([...launcher(), { name: absolute, content: 'x' }]),
        expect: /its member "[^"]+-absolute\.txt" has an absolute path/,
      },
      {
        name: 'a drive-letter member',
        path: '/drive.zip',
        body: () => zipArchive([...launcher(), { name: `C:/${sentinel}.txt`, content: 'x' }]),
        expect: /refused/,
      },
      {
        name: 'a symlink out of the folder',
        path: '/symlink.tar.gz',
        body: () => tgz([...launcher(), { name: 'fixture-agent/out', type: 'symlink', target: '../../..' }]),
        expect: /links outside the folder/,
      },
      {
        name: 'an absolute symlink in a zip',
        path: '/symlink.zip',
        body: () => zipArchive([...launcher(), { name: 'fixture-agent/tmp', type: 'symlink', target: tmpdir() }]),
        expect: /links to an absolute path/,
      },
      {
        name: 'a hard link out of the folder',
        path: '/hardlink.tar.gz',
        body: () => tgz([...launcher(), { name: 'fixture-agent/passwd', type: 'hardlink', target: '../etc/passwd' }]),
        expect: /links outside the folder/,
      },
      {
        name: 'a member claiming more than the extracted bound',
        path: '/bomb.tar.gz',
        body: () => tgz([...launcher(), { name: 'fixture-agent/huge', content: Buffer.alloc(0), claimSize: 3 * 1024 * 1024 * 1024 } as Member]),
        expect: /unpacks to more than 2048 MB/,
      },
      { name: 'a truncated archive', path: '/truncated.tar.gz', body: () => tgz(launcher()).subarray(0, 40), expect: /damaged/ },
      {
        name: 'a file that is not the archive its name says',
        path: '/corrupt.zip',
        body: () => Buffer.from('<html>not found</html>'),
        expect: /is not a zip archive/,
      },
      {
        name: 'a command outside the install folder',
        path: '/cmd.tar.gz',
        body: () => tgz(launcher()),
        cmd: '../../../bin/sh',
        expect: /not inside the install folder/,
      },
    ];
    before(async () => {
      // Where installs go, learnt from one good install (when this suite runs alone).
      if (agentsRoot) return;
      server.route('/probe-1.0.0.tar.gz', { body: tgz(launcher()) });
      await useRegistry(serveRegistry([binaryEntry('probe', '1.0.0', '/probe-1.0.0.tar.gz')]));
      agentsRoot = rootOf(installed(await addFromRegistry('probe')).command);
    });

    for (const c of cases) {
      it(`refuses ${c.name}`, async () => {
        server.route(c.path, { body: c.body() });
        const id = `hostile-${c.path.replace(/\W+/g, '-').replace(/^-|-$/g, '')}`;
        await useRegistry(serveRegistry([binaryEntry(id, '1.0.0', c.path, c.cmd ? { cmd: c.cmd } : {})]));
        assert.match(refused(await addFromRegistry(id)), c.expect);
        const root = agentsRoot!;
        assert.ok(!existsSync(join(root, id)), 'no install folder');
        assert.deepEqual(
          readdirSync(root).filter((name) => name.startsWith('.install-') || name.includes(sentinel)),
          [],
          'no temporary folder, download or escaped file in the agents folder',
        );
        assert.ok(!existsSync(join(dirname(root), `${sentinel}.txt`)), 'nothing above it');
        assert.ok(!existsSync(absolute), 'nothing at the absolute path');
        const names = vscode.commands.executeCommand('acp.newChat', `Registry ${id}`);
        assert.equal(await names, undefined, 'the agent is not listed');
      });
    }

    it('refuses a download over the size bound from its Content-Length, before reading it', async () => {
      server.route('/huge.tar.gz', { truncate: Buffer.alloc(16), claim: 600 * 1024 * 1024 });
      await useRegistry(serveRegistry([binaryEntry('huge', '1.0.0', '/huge.tar.gz')]));
      assert.match(refused(await addFromRegistry('huge')), /over the limit of 512 MB/);
    });

    it('refuses a download the server cuts short', async () => {
      server.route('/short.tar.gz', { truncate: tgz(launcher()).subarray(0, 100), claim: 5000 });
      await useRegistry(serveRegistry([binaryEntry('short', '1.0.0', '/short.tar.gz')]));
      assert.match(refused(await addFromRegistry('short')), /connection closed after/);
    });

    it('refuses a redirect to a plain-http host', async () => {
      server.route('/redirect.tar.gz', { status: 302, location: 'http://example.com/agent.tar.gz' });
      await useRegistry(serveRegistry([binaryEntry('redirected', '1.0.0', '/redirect.tar.gz')]));
      assert.match(refused(await addFromRegistry('redirected')), /a redirect was refused: http:\/\/example\.com is plain http/);
    });
  });

  it('keeps the registry env out of the log, however the agent leaks it', async () => {
    const secret = `sk-registry-${randomUUID()}`;
    server.route('/leaky-1.0.0.tar.gz', { body: tgz(launcher()) });
    await useRegistry(
      serveRegistry([binaryEntry('leaky', '1.0.0', '/leaky-1.0.0.tar.gz', { scenario: 'secrets', env: { ACP_FIXTURE_SECRET: secret } })]),
    );
    installed(await addFromRegistry('leaky'));
    const chat = await newChat('Registry leaky');
    assert.equal(await within(chat.send('leak it'), 15_000, 'the turn'), 'end_turn');
    await waitFor(() => acpLog().includes('<redacted ACP_FIXTURE_SECRET>'), { what: 'the leak to reach the log, redacted' });
    assert.ok(!acpLog().includes(secret), 'the secret is not in the log');
  });
});
