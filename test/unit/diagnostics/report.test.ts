// The diagnostics file: what a bug report needs, and no secret in it.
import * as assert from 'node:assert/strict';
import { SecretScrubber, secretsIn } from '../../../src/acp/redact';
import type { AgentSnapshot } from '../../../src/agents/manager';
import { defaultFileName, fenced, formatReport, RecentLines, type DiagnosticsFacts } from '../../../src/diagnostics/report';

const SECRET = 'sk-test-0123456789';

function agent(overrides: Partial<AgentSnapshot> = {}): AgentSnapshot {
  return {
    name: 'Claude Code',
    command: 'npx',
    args: ['-y', '@zed-industries/claude-agent-acp', '--model', 'a b'],
    envNames: ['ANTHROPIC_API_KEY'],
    options: { readMissingAsEmpty: false },
    startedAt: new Date('2026-11-22T10:00:00Z'),
    state: 'running',
    pid: 4242,
    initialize: {
      protocolVersion: 1,
      agentInfo: { name: 'claude-agent-acp', title: 'Claude Code', version: '0.9.1' },
      agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true } },
      authMethods: [{ id: 'claude-login', name: 'Log in with Claude' }],
    },
    openSessions: 2,
    exit: undefined,
    failure: undefined,
    stderrTail: ['booting', `using key ${SECRET}`],
    ...overrides,
  };
}

function facts(overrides: Partial<DiagnosticsFacts> = {}): DiagnosticsFacts {
  return {
    exportedAt: new Date('2026-11-22T10:05:00Z'),
    environment: {
      extensionVersion: '0.1.0',
      vscodeVersion: '1.139.1',
      app: 'code-server, web UI',
      platform: 'linux x64 (Linux 6.1.0)',
      node: '22.20.0',
      remoteName: undefined,
      workspaceTrusted: true,
      workspaceFolders: 1,
    },
    settings: {
      'acp.agents': { 'Claude Code': { command: 'npx', args: ['-y', '@zed-industries/claude-agent-acp'], env: { ANTHROPIC_API_KEY: SECRET } } },
      'acp.trace': 'verbose',
    },
    settingSources: { 'acp.agents': 'user settings', 'acp.trace': 'user settings' },
    agents: [agent()],
    recentLog: [
      '2026-11-22T10:00:01.000Z [info] [Claude Code] starting: npx -y @zed-industries/claude-agent-acp',
      `2026-11-22T10:00:02.000Z [info] [trace Claude Code] ← notification x ${SECRET}`,
    ],
    recentLogCapacity: 1000,
    ...overrides,
  };
}

function scrubberFor(settings: unknown): SecretScrubber {
  const scrubber = new SecretScrubber();
  scrubber.learn(secretsIn(settings));
  return scrubber;
}

describe('diagnostics report', () => {
  it('says where the editor tools listen and how many sessions hold a secret, never a secret', () => {
    const text = formatReport({ ...facts(), editorTools: { http: '127.0.0.1:41234', bridge: false, sessions: 2 } });
    assert.match(text, /## Editor tools\n\n- HTTP: listening on 127\.0\.0\.1:41234\n- stdio bridge: not started\n- Sessions with access: 2\n/);
    assert.doesNotMatch(formatReport(facts()), /## Editor tools/, 'nothing when the window has none');
  });

  it('has the versions, the settings, each agent\u2019s command, initialize answer and stderr, and the recent log', () => {
    const f = facts();
    const text = formatReport(f, scrubberFor(f.settings));
    for (const expected of [
      '- ACP Client: 0.1.0',
      '- VS Code: 1.139.1 (code-server, web UI)',
      '- Platform: linux x64',
      '- Node.js: 22.20.0',
      '- Remote: none (local window)',
      '- Workspace trusted: yes',
      '"acp.trace": "verbose"',
      '`acp.agents` (user settings)',
      '### Claude Code: running',
      '- Command: `npx -y @zed-industries/claude-agent-acp --model "a b"`',
      '- Environment variables set: `ANTHROPIC_API_KEY` (values not shown)',
      '- Open sessions: 2',
      '"name": "claude-agent-acp"',
      '"loadSession": true',
      '"id": "claude-login"',
      'booting',
      '[trace Claude Code] ← notification x',
      '## Recent log (last 2 of at most 1000 lines)',
    ]) {
      assert.ok(text.includes(expected), `missing ${JSON.stringify(expected)} in:\n${text}`);
    }
  });

  it('never contains an env value: settings are redacted by shape, stderr and log lines are scrubbed', () => {
    const f = facts();
    const text = formatReport(f, scrubberFor(f.settings));
    assert.ok(!text.includes(SECRET), text);
    assert.ok(text.includes('"ANTHROPIC_API_KEY": "<redacted>"'));
    assert.ok(text.includes('using key <redacted ANTHROPIC_API_KEY>'));
  });

  it('shows why an agent failed to start and how one ended', () => {
    const text = formatReport(
      facts({
        agents: [
          agent({
            name: 'Missing',
            state: 'failed to start',
            pid: undefined,
            initialize: undefined,
            failure: "command 'gemini' was not found; install it or set the path",
            stderrTail: [],
          }),
          agent({
            name: 'Crashed',
            state: 'stopped',
            exit: { code: 3, signal: null, expected: false, message: 'the agent exited with code 3: giving up' },
            stderrTail: ['giving up'],
          }),
        ],
      }),
    );
    assert.match(text, /### Missing: failed to start\n\n[^#]*- Failed to start: command 'gemini' was not found/);
    assert.match(text, /It wrote nothing to stderr\./);
    assert.match(text, /### Crashed: stopped\n[^#]*- Exit: code 3 \(the agent exited with code 3: giving up\)/);
    assert.ok(!/### Crashed[^#]*Open sessions/.test(text), 'a stopped agent has no open sessions to speak of');
  });

  it('says so when no agent ran', () => {
    assert.match(formatReport(facts({ agents: [] })), /No agent was started in this window/);
  });

  it('fences blocks so that backticks inside cannot end them', () => {
    assert.deepEqual(fenced('text', 'a ``` b'), ['````text', 'a ``` b', '````']);
    assert.deepEqual(fenced('json', '{}'), ['```json', '{}', '```']);
    const text = formatReport(facts({ recentLog: ['agent said: ```js', 'evil()', '```'] }));
    assert.ok(text.includes('````text\n'), 'the log block has a longer fence');
  });
});

describe('RecentLines', () => {
  it('keeps the last lines in order, up to its capacity', () => {
    const recent = new RecentLines(3);
    for (const n of [1, 2, 3, 4, 5]) recent.push(`line ${n}`);
    assert.deepEqual(recent.snapshot(), ['line 3', 'line 4', 'line 5']);
    assert.equal(recent.length, 3);
  });

  it('cuts very long lines and says by how much', () => {
    const recent = new RecentLines(3, 10);
    recent.push('x'.repeat(25));
    assert.deepEqual(recent.snapshot(), [`${'x'.repeat(10)}… (15 more characters)`]);
  });

  it('keeps to a fixed memory budget, whatever is logged', () => {
    const recent = new RecentLines(1000, 2000, 64 * 1024);
    // Flat, as a line read from an agent is ('y'.repeat makes a rope, which each cut would flatten again).
    const long = Buffer.alloc(32 * 1024 * 1024, 'y').toString('latin1');
    for (let i = 0; i < 5000; i++) recent.push(i % 2 ? long : `line ${i}`);
    recent.push('the last line');
    const lines = recent.snapshot();
    const bytes = lines.reduce((sum, l) => sum + 2 * l.length, 0);
    assert.ok(bytes <= 64 * 1024, `${bytes} bytes`);
    assert.ok(lines.every((l) => l.length < 2100));
    assert.equal(lines.at(-1), 'the last line', 'the newest line is kept');
    assert.ok(lines.length > 30 && lines.length === recent.length, `${lines.length} lines`);
  });
});

describe('defaultFileName', () => {
  it('is acp-diagnostics-<yyyymmdd-hhmm>.md in local time', () => {
    assert.equal(defaultFileName(new Date(2026, 0, 5, 9, 7)), 'acp-diagnostics-20260105-0907.md');
  });
});
