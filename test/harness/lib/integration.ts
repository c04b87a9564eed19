// The integration layer: mocha inside code-server's real Node extension host. The extension is loaded from the
// working tree as an extension under development, and the workbench runs test/integration/index.js, then reports
// the exit code through the smoke-test driver's codeAutomationExit hook.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { launchBrowser } from './browser';
import { remoteUri, startCodeServer } from './server';
import type { Toolchain } from './setup';

/** Lines that index.ts logs around the mocha run. */
const SUITE_START = '[acp-integration] start';
const SUITE_END = '[acp-integration] end';

export interface IntegrationRun {
  readonly exitCode: number;
  readonly resultsFile: string;
}

/** Files the sample workspace starts with; tests create what else they need in their own subfolders. */
const WORKSPACE_FILES: Record<string, string> = {
  'README.md': '# Sample workspace\n\nUsed by the integration tests.\n',
  'src/hello.ts': 'export const hello = "world";\n',
};

export function makeWorkspace(dir: string, files: Record<string, string> = WORKSPACE_FILES): string {
  rmSync(dir, { recursive: true, force: true });
  for (const [name, text] of Object.entries(files)) {
    const file = join(dir, name);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  }
  return dir;
}

export async function runIntegration(options: {
  readonly toolchain: Toolchain;
  readonly repoRoot: string;
  readonly workDir: string;
  readonly resultsFile: string;
  /** Bound on the whole suite, server start included. */
  readonly timeoutMs?: number;
  /** What the extension host runs instead of the integration suite (a benchmark's host side, the agents layer). */
  readonly testsPath?: string;
  /** More environment for the extension host. */
  readonly env?: Readonly<Record<string, string>>;
}): Promise<IntegrationRun> {
  const { toolchain, repoRoot, workDir, resultsFile } = options;
  rmSync(workDir, { recursive: true, force: true });
  rmSync(resultsFile, { force: true });
  const workspace = makeWorkspace(join(workDir, 'workspace'));
  const server = await startCodeServer({
    toolchain,
    dataDir: join(workDir, 'server'),
    extensionsDir: join(workDir, 'extensions'),
    // Unsaved edits stay unsaved until a test saves them (in the browser, VS Code saves after a delay by default).
    settings: { 'files.autoSave': 'off' },
    smokeTestDriver: true,
    // ACP_TEST_LOGS: where the extension host writes output channels, so tests can read the "ACP" log.
    env: {
      // The workspace is inside this project's checkout: git stops looking for a repository at the work folder, so
      // the workspace is a folder outside git until a test makes it a repository of its own.
      GIT_CEILING_DIRECTORIES: workDir,
      ACP_TEST_RESULTS: resultsFile,
      ACP_TEST_LOGS: join(workDir, 'server', 'user-data', 'logs'),
      // A wss:// agent on loopback uses a certificate only this VS Code trusts (test/fixtures/tls/README.md).
      NODE_EXTRA_CA_CERTS: join(repoRoot, 'test', 'fixtures', 'tls', 'ca.pem'),
      ...(process.env['ACP_TEST_GREP'] ? { ACP_TEST_GREP: process.env['ACP_TEST_GREP'] } : {}),
      ...options.env,
    },
  });
  const browser = await launchBrowser(toolchain.chromium, join(workDir, 'browser'));
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    let settle: (code: number) => void = () => {};
    const exit = new Promise<number>((resolve) => (settle = resolve));
    const log = join(workDir, 'workbench.log');
    let showing = false;
    await page.exposeFunction('codeAutomationLog', (type: unknown, args: unknown) => {
      // mocha's output arrives as console arguments with printf placeholders; format them as Node would.
      const parts = Array.isArray(args) ? args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))) : [String(args)];
      const line = format(...(parts as [string, ...string[]]));
      writeFileSync(log, `${String(type)} ${line}\n`, { flag: 'a' });
      // Only the suite's own output is shown; the workbench's noise (offline gallery lookups) stays in the log.
      if (line.includes(SUITE_START)) showing = true;
      else if (line.includes(SUITE_END)) showing = false;
      else if (showing) process.stdout.write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code: unknown) => settle(typeof code === 'number' ? code : 1));
    const url = server.workbenchUrl(workspace, [
      ['extensionDevelopmentPath', remoteUri(repoRoot)],
      ['extensionTestsPath', remoteUri(options.testsPath ?? join(repoRoot, 'out', 'test', 'integration', 'index.js'))],
      ['skipWelcome', 'true'],
    ]);
    await page.goto(url);
    // A backstop for a host that hangs, not a budget: each test has its own bound, and the layer takes about 10 minutes
    // on a quiet machine and half again on a loaded one.
    const timeoutMs = options.timeoutMs ?? 30 * 60_000;
    let timer: NodeJS.Timeout | undefined;
    const exitCode = await Promise.race([
      exit,
      new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          process.stdout.write(`integration: no result after ${timeoutMs / 1000} s; see ${server.logFile}\n`);
          resolve(1);
        }, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (exitCode !== 0) process.stdout.write(`integration: the workbench log is ${log}; the server's logs are under ${server.userDataDir}/logs\n`);
    return { exitCode, resultsFile };
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
}
