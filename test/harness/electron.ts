// `npm run test:electron`: the same integration suite in desktop VS Code through @vscode/test-electron, wherever
// desktop VS Code can be downloaded. Not part of `npm test`; offline it fails with one sentence.
import { join, resolve } from 'node:path';
import { downloadAndUnzipVSCode, runTests, SilentReporter } from '@vscode/test-electron';
import { makeWorkspace } from './lib/integration';

const repoRoot = resolve(__dirname, '..', '..', '..');
const workDir = join(repoRoot, 'test-output', 'work', 'electron');

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.trim() || 'unknown error';
}

async function main(): Promise<number> {
  let executable: string;
  try {
    process.stdout.write('Downloading desktop VS Code (stable) into .vscode-test/ unless it is there already…\n');
    executable = await downloadAndUnzipVSCode({
      version: 'stable',
      cachePath: join(repoRoot, '.vscode-test'),
      reporter: new SilentReporter(),
      timeout: 30_000,
    });
  } catch (error) {
    process.stderr.write(
      `Desktop VS Code could not be downloaded (${reason(error)}), so the desktop run cannot happen on this machine; ` +
        '`npm test` runs the same integration suite in code-server.\n',
    );
    return 1;
  }
  const workspace = makeWorkspace(join(workDir, 'workspace'));
  return runTests({
    vscodeExecutablePath: executable,
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: join(repoRoot, 'out', 'test', 'integration', 'index.js'),
    extensionTestsEnv: {
      ACP_TEST_RESULTS: join(repoRoot, 'test-output', 'electron-results.json'),
      ACP_TEST_LOGS: join(workDir, 'user-data', 'logs'),
    },
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${join(workDir, 'user-data')}`],
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`The desktop run failed: ${reason(error)}\n`);
    process.exit(1);
  },
);
