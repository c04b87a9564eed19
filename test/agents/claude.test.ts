// The real claude-agent-acp (pinned in test/agents/pins.ts, with the Claude Code it bundles) behind a fake Anthropic
// Messages API. It starts every session in its mode `auto`, where it asks nothing; at Ask the client moves it to
// `default` ("Manual"). Newer Claude Code defers MCP tools behind its ToolSearch tool, so the script loads the
// editor tool first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeEnv, FakeAnthropic } from './lib/anthropic';
import { agentSuite } from './lib/suite';

agentSuite({
  name: 'Claude Code',
  package: '@agentclientprotocol/claude-agent-acp',
  askingMode: 'default',
  speaksV2: true,
  overloads: true,
  async start(adapter, paths) {
    const model = new FakeAnthropic({
      edit: [
        { name: 'Read', input: { file_path: paths.notes } },
        { name: 'Edit', input: { file_path: paths.notes, old_string: 'one', new_string: 'two' } },
      ],
      write: [{ name: 'Write', input: { file_path: paths.created, content: 'written by the agent\n' } }],
      command: [{ name: 'Bash', input: { command: `echo ran > ${paths.ran}`, description: 'Write ran.txt' } }],
      slow: [{ name: 'Bash', input: { command: paths.slow, description: 'Wait, then write late.txt' } }],
      tools: [
        { name: 'ToolSearch', input: { query: 'select:mcp__vscode__get_diagnostics', max_results: 5 } },
        { name: 'mcp__vscode__get_diagnostics', input: { path: paths.broken } },
      ],
    });
    const url = await model.start();
    const home = mkdtempSync(join(tmpdir(), 'acp-claude-home-'));
    return {
      close: () => model.close(),
      entry: {
        command: process.execPath,
        args: [adapter],
        env: { ELECTRON_RUN_AS_NODE: '1', ...claudeCodeEnv(url, model.key, home) },
      },
    };
  },
  done: {
    allowedEdit: /DONE edit: \[Read\] ok .*\| \[Edit\] ok/,
    rejectedEdit: /DONE edit: \[Read\] ok .*\| \[Edit\] error/,
    tools: /DONE tools: \[ToolSearch\] ok .*\| \[mcp__vscode__get_diagnostics\] ok .*broken\.ts.*not assignable/,
  },
});
