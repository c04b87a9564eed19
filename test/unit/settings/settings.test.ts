import * as assert from 'node:assert/strict';
import { parseAgents, presetEntry, PRESETS, withPresets } from '../../../src/settings/agentConfig';

describe('parseAgents (the acp.agents setting)', () => {
  it('reads agents keyed by display name, with defaults for args and env, and a quirk override only when set', () => {
    const { agents, problems } = parseAgents({
      'Gemini CLI': { command: 'npx', args: ['-y', '@google/gemini-cli', '--acp'] },
      Local: { command: '/opt/agent', env: { TOKEN: 'x' }, readMissingAsEmpty: true },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(agents, [
      { name: 'Gemini CLI', command: 'npx', args: ['-y', '@google/gemini-cli', '--acp'], env: {} },
      { name: 'Local', command: '/opt/agent', args: [], env: { TOKEN: 'x' }, readMissingAsEmpty: true },
    ]);
  });

  it('is empty, without problems, when unset', () => {
    assert.deepEqual(parseAgents(undefined), { agents: [], problems: [] });
    assert.deepEqual(parseAgents({}), { agents: [], problems: [] });
  });

  it('skips each bad entry with a sentence that names it, and keeps the good ones', () => {
    const { agents, problems } = parseAgents({
      Good: { command: 'good' },
      NoCommand: { args: [] },
      Blank: { command: '   ' },
      BadArgs: { command: 'x', args: 'not a list' },
      BadEnv: { command: 'x', env: { N: 1 } },
      NotObject: 'npx gemini',
    });
    assert.deepEqual(
      agents.map((a) => a.name),
      ['Good'],
    );
    assert.deepEqual(problems, [
      'The agent "NoCommand" in "acp.agents" was skipped: it has no "command" or "url".',
      'The agent "Blank" in "acp.agents" was skipped: its "command" is empty.',
      'The agent "BadArgs" in "acp.agents" was skipped: its "args" must be a list of strings.',
      'The agent "BadEnv" in "acp.agents" was skipped: its "env" must map names to string values.',
      'The agent "NotObject" in "acp.agents" must be an object with a "command".',
    ]);
  });

  it('reads an agent at a URL, with terminals off unless it says so, and refuses a mixed entry', () => {
    const { agents, problems } = parseAgents({
      Remote: { url: 'wss://agents.example.com/acp' },
      Trusted: { url: 'wss://build.example.com/acp', terminals: true },
      Both: { command: 'x', url: 'wss://a.example.com' },
      WithArgs: { url: 'wss://a.example.com', args: ['--x'] },
    });
    assert.deepEqual(
      agents.map((a) => [a.name, a.url, a.command, a.terminals]),
      [
        ['Remote', 'wss://agents.example.com/acp', 'wss://agents.example.com/acp', undefined],
        ['Trusted', 'wss://build.example.com/acp', 'wss://build.example.com/acp', true],
      ],
    );
    assert.deepEqual(problems, [
      'The agent "Both" in "acp.agents" was skipped: it has both a "command" and a "url".',
      'The agent "WithArgs" in "acp.agents" was skipped: an agent at a "url" takes no "args" or "env".',
    ]);
    assert.deepEqual(presetEntry(agents[1]!), { url: 'wss://build.example.com/acp', terminals: true }, 'copied as it was written');
  });

  it('explains a value of the wrong shape', () => {
    assert.deepEqual(parseAgents(['npx']).problems, ['The "acp.agents" setting must be an object whose keys are agent names.']);
  });
});

describe('agent presets', () => {
  it('offers Gemini CLI, Claude Code, Codex and Copilot CLI with the launch commands their projects document', () => {
    assert.deepEqual(
      PRESETS.map((p) => [p.name, [p.command, ...p.args].join(' ')]),
      [
        ['Gemini CLI', 'npx -y @google/gemini-cli --acp'],
        ['Claude Code', 'npx -y @agentclientprotocol/claude-agent-acp'],
        ['Codex', 'npx -y @agentclientprotocol/codex-acp'],
        ['GitHub Copilot CLI', 'copilot --acp'],
      ],
    );
  });

  it('lists the configured agents first, and a configured agent with a preset name replaces the preset', () => {
    const { agents } = parseAgents({ Mine: { command: 'mine' }, Codex: { command: '/opt/codex-acp' } });
    const all = withPresets(agents);
    assert.deepEqual(
      all.map((a) => a.name),
      ['Mine', 'Codex', 'Gemini CLI', 'Claude Code', 'GitHub Copilot CLI'],
    );
    assert.equal(all.find((a) => a.name === 'Codex')?.command, '/opt/codex-acp');
    assert.equal(all.find((a) => a.name === 'Codex')?.preset, undefined);
    assert.equal(all.find((a) => a.name === 'Gemini CLI')?.preset, true);
  });

  it('copies a preset as a settings entry that parses back to the same command', () => {
    const gemini = PRESETS[0]!;
    const { agents, problems } = parseAgents({ [gemini.name]: presetEntry(gemini) });
    assert.deepEqual(problems, []);
    const { preset, ...asConfigured } = gemini;
    assert.equal(preset, true);
    assert.deepEqual(agents[0], asConfigured);
  });
});
