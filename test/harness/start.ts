// `npm start`: code-server on 127.0.0.1 with the extension loaded from the working tree, a sample workspace, and
// the fixture agent configured as "Demo (fixture agent)" next to the real agents. It prints the URL and runs until
// Ctrl+C. The profile lives in test-output/start/ and survives restarts; settings already there are kept.
//
//   ACP_START_PORT=8080 npm start
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeWorkspace } from './lib/integration';
import { freePort, startCodeServer } from './lib/server';
import { ensureToolchain, SetupError } from './lib/setup';

const repoRoot = resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
const stateDir = join(repoRoot, 'test-output', 'start');
const DEMO_AGENT = 'Demo (fixture agent)';

const SAMPLE_FILES: Record<string, string> = {
  'README.md':
    '# Sample workspace\n\nOpen the command palette and run "ACP: New Chat". Try editing this file without saving: the demo agent reads your unsaved text.\n',
  'src/greet.ts': 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n',
  'package.json': '{\n  "name": "sample-workspace",\n  "private": true\n}\n',
};

function machineSettings(): Record<string, unknown> {
  return {
    'acp.agents': {
      [DEMO_AGENT]: {
        command: process.execPath,
        args: [join(repoRoot, 'out', 'test', 'fixtures', 'agent.js'), '--scenario', 'demo'],
        env: { ACP_FIXTURE_MAX_LIFETIME_MS: String(7 * 24 * 3600 * 1000), ACP_FIXTURE_STATE_DIR: join(stateDir, 'demo-agent-sessions') },
      },
      // Everything the chat can show (plan, tool cards, markdown, usage…) in one reply.
      'Showcase (fixture agent)': {
        command: process.execPath,
        args: [join(repoRoot, 'out', 'test', 'fixtures', 'agent.js'), '--scenario', 'showcase'],
        env: { ACP_FIXTURE_MAX_LIFETIME_MS: String(7 * 24 * 3600 * 1000), ACP_FIXTURE_STATE_DIR: join(stateDir, 'demo-agent-sessions') },
      },
      'Gemini CLI': { command: 'npx', args: ['-y', '@google/gemini-cli', '--acp'] },
      'Claude Code': { command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'] },
      Codex: { command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp'] },
      'GitHub Copilot CLI': { command: 'copilot', args: ['--acp'] },
    },
  };
}

async function main(): Promise<void> {
  const toolchain = await ensureToolchain({ browser: false });
  const workspace = join(stateDir, 'workspace');
  if (!existsSync(workspace)) makeWorkspace(workspace, SAMPLE_FILES);
  const extensionsDir = join(stateDir, 'extensions');
  rmSync(extensionsDir, { recursive: true, force: true });
  mkdirSync(extensionsDir, { recursive: true });
  symlinkSync(repoRoot, join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');

  const dataDir = join(stateDir, 'server');
  const settingsExist = (layer: string) => existsSync(join(dataDir, 'user-data', layer, 'settings.json'));
  const requestedPort = Number(process.env['ACP_START_PORT'] ?? 0);
  const server = await startCodeServer({
    toolchain,
    dataDir,
    extensionsDir,
    // Keep what the user changed in an earlier run; write the demo settings only the first time.
    settings: settingsExist('User') ? undefined : { 'acp.trace': 'messages' },
    machineSettings: settingsExist('Machine') ? undefined : machineSettings(),
    port: requestedPort > 0 ? requestedPort : await freePort(),
  });
  const url = server.workbenchUrl(workspace);
  process.stdout.write(
    [
      '',
      `code-server is running the extension from ${repoRoot}`,
      '',
      `  Open ${url}`,
      '',
      `Then run "ACP: New Chat" from the command palette (F1) and pick "${DEMO_AGENT}".`,
      'The real agents are configured too; each needs its own CLI and sign-in.',
      `Edit agents in the Remote settings ("acp.agents"). Server log: ${server.logFile}`,
      'After changing the code, run "npm run build" and reload the window. Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const stop = () => {
    process.stdout.write('\nstopping code-server…\n');
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof SetupError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
