// The real codex-acp (pinned in test/agents/pins.ts, over the @openai/codex it depends on) behind a fake OpenAI
// Responses API, configured through CODEX_HOME's config.toml. It starts every session in its mode `agent` (Auto
// review), which asks a review model rather than the user; at Ask the client moves it to `read-only`, where an edit
// and a command that asks to leave the sandbox (`sandbox_permissions: require_escalated`) are the user's. A rejection
// ends Codex's turn: the model is not asked again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAI } from './lib/openai';
import { agentSuite } from './lib/suite';

const escalated = (cmd: string, workdir: string) => ({
  kind: 'exec' as const,
  args: { cmd, workdir, yield_time_ms: 1000, sandbox_permissions: 'require_escalated', justification: 'The test writes a file' },
});

agentSuite({
  name: 'Codex',
  package: '@agentclientprotocol/codex-acp',
  askingMode: 'read-only',
  speaksV2: true,
  retriesCutStreams: true,
  async start(adapter, paths) {
    const model = new FakeOpenAI({
      edit: [{ kind: 'patch', patch: `*** Begin Patch\n*** Update File: ${paths.notes}\n@@\n-one\n+two\n*** End Patch\n` }],
      write: [{ kind: 'patch', patch: `*** Begin Patch\n*** Add File: ${paths.created}\n+written by the agent\n*** End Patch\n` }],
      command: [escalated(`echo ran > ${paths.ran}`, paths.folder)],
      slow: [escalated(paths.slow, paths.folder)],
      tools: [{ kind: 'mcp', namespace: 'mcp__vscode', name: 'get_diagnostics', args: { path: paths.broken } }],
    });
    const url = await model.start();
    const home = mkdtempSync(join(tmpdir(), 'acp-codex-home-'));
    writeFileSync(
      join(home, 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        '',
        '[model_providers.fake]',
        'name = "Fake"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        'requires_openai_auth = false',
        'request_max_retries = 0',
        // One retry of a stream cut short (the scenario `disconnect`), which Codex says as it makes it.
        'stream_max_retries = 1',
        '',
        '[analytics]',
        'enabled = false',
        '',
        // Without these Codex syncs plugins from its own services.
        '[features]',
        'plugins = false',
        'remote_plugin = false',
        'apps = false',
        '',
      ].join('\n'),
    );
    return {
      close: () => model.close(),
      entry: {
        command: process.execPath,
        args: [adapter],
        env: { ELECTRON_RUN_AS_NODE: '1', CODEX_HOME: home, HOME: home, FAKE_OPENAI_KEY: model.key },
      },
    };
  },
  done: {
    allowedEdit: /DONE edit: \[patch\] .*Success/,
    tools: /DONE tools: \[mcp\] .*broken\.ts.*not assignable/,
  },
});
