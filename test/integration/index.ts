// Entry point of the integration suite inside a real extension host, for code-server (via the workbench payload's
// extensionTestsPath) and for @vscode/test-electron alike. Runs every out/test/integration/**/*.test.js.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

export function run(): Promise<void> {
  return runSuite(__dirname);
}

/** Runs every test file under `dir` (the agents layer runs its own folder the same way). */
export function runSuite(dir: string): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 30_000,
    // The harness reporter writes the summary the harness prints (ACP_TEST_RESULTS).
    reporter: join(__dirname, '..', '..', '..', 'test', 'harness', 'reporter.cjs'),
    // `ACP_TEST_GREP=follow npm run test:integration` runs only the matching tests, while working on them.
    ...(process.env['ACP_TEST_GREP'] ? { grep: process.env['ACP_TEST_GREP'] } : {}),
  });
  for (const file of testFiles(dir).sort()) mocha.addFile(file);
  // The harness shows only what is logged between these two markers (see test/harness/lib/integration.ts).
  console.log('[acp-integration] start');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      console.log('[acp-integration] end');
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
  });
}
