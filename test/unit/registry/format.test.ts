import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../lib/transcripts';
import {
  compareVersions,
  howToRun,
  packageCommand,
  parseRegistry,
  pinnedPackage,
  platformKey,
  type RegistryAgent,
} from '../../../src/registry/format';
import { installedConfigs, registryPresets } from '../../../src/registry/presets';
import { PRESETS, withPresets } from '../../../src/settings/agentConfig';

const binary = (cmd = './agent') => ({ archive: 'https://example.com/a-1.0.0.tar.gz', cmd });
const agent = (overrides: Record<string, unknown> = {}) => ({
  id: 'sample',
  name: 'Sample',
  version: '1.0.0',
  description: 'A sample agent',
  distribution: { npx: { package: '@sample/agent' } },
  ...overrides,
});

describe('parseRegistry (the ACP Registry format)', () => {
  it('reads agents with every distribution', () => {
    const { registry, problems } = parseRegistry({
      version: '1.0.0',
      agents: [agent({ distribution: { binary: { 'linux-x86_64': binary() }, npx: { package: 'x' }, uvx: { package: 'y', args: ['acp'] } } })],
      extensions: [],
    });
    assert.deepEqual(problems, []);
    assert.equal(registry.agents.length, 1);
    assert.equal(registry.agents[0]?.distribution.binary?.['linux-x86_64']?.cmd, './agent');
  });

  it('skips each bad entry with a sentence naming it, and keeps the others', () => {
    const { registry, problems } = parseRegistry({
      version: '1.0.0',
      agents: [
        agent({ id: 'good' }),
        agent({ id: 'Bad Id' }),
        agent({ id: 'no-version', version: 'latest' }),
        agent({ id: 'no-distribution', distribution: {} }),
        agent({ id: 'bad-platform', distribution: { binary: { 'plan9-mips': binary() } } }),
        agent({ id: 'bad-archive', distribution: { binary: { 'linux-x86_64': { archive: 'not a url', cmd: './x' } } } }),
        agent({ id: 'good' }),
        'not an object',
        agent({ id: 'also-good', name: 'Also' }),
      ],
    });
    assert.deepEqual(
      registry.agents.map((a) => a.id),
      ['good', 'also-good'],
    );
    assert.equal(problems.length, 7);
    assert.match(problems[0]!, /"Bad Id" was skipped: its id is not lowercase/);
    assert.match(problems[1]!, /"no-version" was skipped: its version is not x\.y\.z/);
    assert.match(problems[2]!, /"no-distribution" was skipped: it has no distribution/);
    assert.match(problems[5]!, /"good" was skipped: its id is listed twice/);
    assert.match(problems[6]!, /#8 was skipped/);
  });

  it('refuses a document that is not a registry, or a format it does not know, with a sentence', () => {
    assert.throws(() => parseRegistry([]), /not a JSON object/);
    assert.throws(() => parseRegistry({ version: '1.0.0' }), /no "agents" list/);
    assert.throws(() => parseRegistry({ version: '2.0.0', agents: [] }), /newer than this extension reads/);
  });

  it('bounds what it keeps: long texts and huge lists are refused per entry', () => {
    const { registry, problems } = parseRegistry({
      version: '1.0.0',
      agents: [agent({ description: 'x'.repeat(5000) }), ...Array.from({ length: 600 }, (_, i) => agent({ id: `a${i}` }))],
    });
    assert.equal(registry.agents.length, 499);
    assert.match(problems[0]!, /lists 601 agents; only the first 500/);
  });
});

describe('howToRun and the pinned command line', () => {
  const sample = parseRegistry({
    version: '1.0.0',
    agents: [
      agent({ distribution: { binary: { 'linux-x86_64': binary(), 'darwin-aarch64': binary() }, npx: { package: '@s/a', args: ['--acp'] } } }),
      agent({ id: 'bin-only', distribution: { binary: { 'darwin-aarch64': binary() } } }),
      agent({ id: 'uv', version: '0.3.1', distribution: { uvx: { package: 'sample-agent', args: ['acp'] } } }),
    ],
  }).registry.agents as RegistryAgent[];

  it('maps Node platforms to registry targets', () => {
    assert.equal(platformKey('linux', 'x64'), 'linux-x86_64');
    assert.equal(platformKey('darwin', 'arm64'), 'darwin-aarch64');
    assert.equal(platformKey('win32', 'x64'), 'windows-x86_64');
    assert.equal(platformKey('freebsd', 'x64'), undefined);
    assert.equal(platformKey('linux', 'ia32'), undefined);
  });

  it("prefers this platform's binary, then npx, then uvx, and says why none fits", () => {
    assert.equal(howToRun(sample[0]!, 'linux-x86_64').kind, 'binary');
    assert.equal(howToRun(sample[0]!, 'windows-x86_64').kind, 'npx');
    const none = howToRun(sample[1]!, 'linux-x86_64');
    assert.deepEqual(none, { kind: 'unsupported', why: 'it has no build for linux-x86_64 (only darwin-aarch64)' });
    assert.equal(howToRun(sample[2]!, 'linux-x86_64').kind, 'uvx');
  });

  it('pins npx to pkg@version and uvx to pkg==version, keeping a version the registry already wrote', () => {
    assert.equal(pinnedPackage('npx', '@s/a', '1.2.3'), '@s/a@1.2.3');
    assert.equal(pinnedPackage('npx', 'plain', '1.2.3'), 'plain@1.2.3');
    assert.equal(pinnedPackage('npx', '@s/a@1.2.0', '1.2.3'), '@s/a@1.2.0');
    assert.equal(pinnedPackage('uvx', 'sample-agent', '0.3.1'), 'sample-agent==0.3.1');
    assert.equal(pinnedPackage('uvx', 'sample-agent==0.3.0', '0.3.1'), 'sample-agent==0.3.0');
    assert.deepEqual(packageCommand('npx', { package: '@s/a', args: ['--acp'] }, '1.0.0'), { command: 'npx', args: ['-y', '@s/a@1.0.0', '--acp'] });
    assert.deepEqual(packageCommand('uvx', { package: 'sample-agent', args: ['acp'] }, '0.3.1'), {
      command: 'uvx',
      args: ['sample-agent==0.3.1', 'acp'],
    });
  });

  it('runs the program a package entry names with cmd, and refuses a cmd that is a path or an option', () => {
    assert.deepEqual(packageCommand('npx', { package: '@s/tools', cmd: 'tools-acp', args: ['--acp'] }, '2.0.0'), {
      command: 'npx',
      args: ['-y', '--package', '@s/tools@2.0.0', 'tools-acp', '--acp'],
    });
    assert.deepEqual(packageCommand('uvx', { package: 'py-tools', cmd: 'py-tools-acp' }, '0.5.0'), {
      command: 'uvx',
      args: ['--from', 'py-tools==0.5.0', 'py-tools-acp'],
    });
    const entry = (cmd: string) => ({
      version: '1.0.0',
      agents: [{ id: 'a', name: 'A', version: '1.0.0', description: 'x', distribution: { npx: { package: 'p', cmd } } }],
    });
    assert.equal(parseRegistry(entry('tools-acp')).registry.agents[0]?.distribution.npx?.cmd, 'tools-acp');
    for (const bad of ['--eval=1', '../bin/x', '/usr/bin/env', 'a b', '']) {
      const read = parseRegistry(entry(bad));
      assert.equal(read.registry.agents.length, 0, `cmd ${JSON.stringify(bad)} is refused`);
      assert.match(read.problems[0] ?? '', /cmd/);
    }
  });

  it('compares versions numerically, with pre-releases before their release', () => {
    assert.ok(compareVersions('1.10.0', '1.9.9') > 0);
    assert.ok(compareVersions('0.9.2', '0.10.0') < 0);
    assert.equal(compareVersions('1.0.0', '1.0.0'), 0);
    assert.ok(compareVersions('1.0.0-beta.2', '1.0.0') < 0);
    assert.ok(compareVersions('1.0.0-beta.10', '1.0.0-beta.2') > 0);
  });
});

describe('registry presets and installed agents', () => {
  const registry = parseRegistry({
    version: '1.0.0',
    agents: [
      agent({
        id: 'gemini',
        name: 'Gemini CLI',
        version: '0.27.3',
        distribution: { npx: { package: '@google/gemini-cli@0.27.3', args: ['--experimental-acp'] } },
      }),
      agent({ id: 'codex-acp', name: 'Codex CLI', version: '0.9.2', distribution: { binary: { 'linux-x86_64': binary('./codex-acp') } } }),
      agent({ id: 'sample', version: '2.0.0' }),
    ],
  }).registry;

  it('pins a preset the registry lists as a package to its version only, and keeps a binary-only one as built in', () => {
    const presets = registryPresets(PRESETS, registry);
    const gemini = presets.find((p) => p.name === 'Gemini CLI');
    // The registry's args (--experimental-acp) are not the preset's: only the version is taken.
    assert.deepEqual([gemini?.command, ...(gemini?.args ?? [])], ['npx', '-y', '@google/gemini-cli@0.27.3', '--acp']);
    assert.deepEqual(gemini?.env, {});
    assert.equal(gemini?.preset, true);
    assert.deepEqual(
      presets.find((p) => p.name === 'Codex'),
      PRESETS.find((p) => p.name === 'Codex'),
    );
    assert.deepEqual(registryPresets(PRESETS, undefined), [...PRESETS]);
  });

  it('never lets the registry change a preset\u2019s package, args or env', () => {
    const hostile = parseRegistry({
      version: '1.0.0',
      agents: [
        // Another package under the preset's id: the preset stays as built in.
        agent({ id: 'claude-acp', version: '9.9.9', distribution: { npx: { package: 'other-package', args: ['--evil'], env: { TOKEN: 'x' } } } }),
        // The same package with args and env: only the version is taken.
        agent({
          id: 'gemini',
          version: '1.2.3',
          distribution: { npx: { package: '@google/gemini-cli@1.2.3', args: ['--yolo'], env: { GEMINI_FLAG: '1' } } },
        }),
        // A package whose name only starts like the preset's.
        agent({ id: 'codex-acp', version: '1.0.0', distribution: { npx: { package: '@zed-industries/codex-acp-evil' } } }),
      ],
    });
    assert.deepEqual(hostile.problems, []);
    const presets = registryPresets(PRESETS, hostile.registry);
    const byName = (name: string) => presets.find((p) => p.name === name);
    assert.deepEqual(
      byName('Claude Code'),
      PRESETS.find((p) => p.name === 'Claude Code'),
    );
    assert.deepEqual(
      byName('Codex'),
      PRESETS.find((p) => p.name === 'Codex'),
    );
    assert.deepEqual(byName('Gemini CLI'), { ...PRESETS.find((p) => p.name === 'Gemini CLI')!, args: ['-y', '@google/gemini-cli@1.2.3', '--acp'] });
  });

  it('refuses loader and search-path variables, option-like or invalid package names and versions that are not semver', () => {
    const refused = (distribution: unknown, version = '1.0.0') => {
      const { registry: r, problems } = parseRegistry({ version: '1.0.0', agents: [agent({ distribution, version })] });
      assert.equal(r.agents.length, 0, JSON.stringify(distribution) + ' ' + version);
      return problems[0] ?? '';
    };
    for (const name of [
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'DYLD_INSERT_LIBRARIES',
      'PATH',
      'Path',
      'PYTHONPATH',
      'PYTHONSTARTUP',
      'NODE_PATH',
      'BASH_ENV',
      'ENV',
      'npm_config_registry',
      'UV_INDEX_URL',
      'GIT_SSH_COMMAND',
    ]) {
      assert.match(refused({ npx: { package: 'x', env: { [name]: 'v' } } }), new RegExp(`sets ${name}, which changes what runs`));
      assert.match(refused({ binary: { 'linux-x86_64': { ...binary(), env: { [name]: 'v' } } } }), /which changes what runs/);
    }
    for (const pkg of ['-y', '--package=evil', '@scope', 'a b', 'x;rm', '../x', '@a/b/c', '']) {
      assert.match(refused({ npx: { package: pkg } }), /not an npm package name|too_small|Too small/i, pkg);
    }
    for (const pkg of ['-e', '--from=x', 'a b', 'x;y', '.x']) assert.match(refused({ uvx: { package: pkg } }), /not a PyPI package name/, pkg);
    for (const version of ['1.0.0/../../x', '1.0.0 --evil', '1.0.0\n', '1.0']) refused({ npx: { package: 'x' } }, version);
    const fine = parseRegistry({
      version: '1.0.0',
      agents: [
        agent({ id: 'a', distribution: { npx: { package: '@scope/name@1.2.3-beta.1', env: { MY_AGENT_MODE: 'acp' } } } }),
        agent({ id: 'b', version: '2.0.0-rc.1+build.5', distribution: { uvx: { package: 'my_agent[acp]==2.0.0' } } }),
      ],
    });
    assert.deepEqual(fine.problems, []);
    assert.equal(fine.registry.agents.length, 2);
  });

  it('lists installed agents with the newer version the registry has', () => {
    const base = { kind: 'npx' as const, command: 'npx', args: ['-y', '@sample/agent@1.0.0'], env: { K: 'v' }, installedAt: '' };
    const [sample] = installedConfigs([{ ...base, id: 'sample', name: 'Sample', version: '1.0.0' }], registry);
    assert.deepEqual(sample?.installed, { id: 'sample', version: '1.0.0', update: '2.0.0' });
    const [current] = installedConfigs([{ ...base, id: 'sample', name: 'Sample', version: '2.0.0' }], registry);
    assert.deepEqual(current?.installed, { id: 'sample', version: '2.0.0' });
  });

  it('orders configured, installed, presets; a configured name hides an installed one, an installed one hides a preset', () => {
    const configured = [{ name: 'Mine', command: 'mine', args: [], env: {} }];
    const installed = [
      { name: 'Gemini CLI', command: '/g/agent', args: [], env: {}, installed: { id: 'gemini', version: '1.0.0' } },
      { name: 'Mine', command: '/m/agent', args: [], env: {}, installed: { id: 'mine', version: '1.0.0' } },
    ];
    const all = withPresets(configured, PRESETS, installed);
    assert.deepEqual(
      all.map((a) => [a.name, a.command]),
      [['Mine', 'mine'], ['Gemini CLI', '/g/agent'], ...PRESETS.filter((p) => p.name !== 'Gemini CLI').map((p) => [p.name, p.command])],
    );
  });
});

describe('the shipped registry snapshot', () => {
  it('is a registry this extension reads without skipping an entry, and says its date and source', () => {
    const snapshot = JSON.parse(readFileSync(join(repoRoot(), 'media', 'registry-snapshot.json'), 'utf8')) as {
      date: string;
      source: string;
      registry: unknown;
    };
    assert.ok(!Number.isNaN(Date.parse(snapshot.date)));
    assert.match(snapshot.source, /agentclientprotocol/);
    const { registry, problems } = parseRegistry(snapshot.registry);
    assert.deepEqual(problems, []);
    assert.ok(registry.agents.length > 0);
  });
});
