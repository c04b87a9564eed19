// `npm test` after the typecheck and the build: the unit tests (mocha in plain Node), the integration tests (mocha
// in code-server's real extension host), the agents tests (the same host, with the real adapters pinned in
// test/agents/pins.ts behind fake model servers) and the UI tests (playwright-core driving the workbench in Chromium).
// Every layer runs and prints its counts; any failure fails the run.
//
//   node out/test/harness/run.js [--layer unit|integration|agents|ui]...
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runIntegration } from './lib/integration';
import { ensureAgents, ensureToolchain, SetupError, type Toolchain } from './lib/setup';

const LAYERS = ['unit', 'integration', 'agents', 'ui'] as const;
type Layer = (typeof LAYERS)[number];

interface Results {
  readonly stats?: { passes?: number; failures?: number; pending?: number; tests?: number; duration?: number };
  readonly tests?: readonly { title: string; state: string; error?: string }[];
}

interface Outcome {
  readonly layer: Layer;
  readonly passed: number;
  readonly failed: number;
  readonly pending: number;
  readonly seconds: number;
  /** Why the layer could not run or report, when that happened. */
  readonly problem?: string;
}

const repoRoot = resolve(__dirname, '..', '..', '..');
const outputDir = join(repoRoot, 'test-output');
const workRoot = join(outputDir, 'work');

function readResults(file: string): Results | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

function mocha(args: readonly string[], env: Record<string, string>): Promise<number> {
  const bin = join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

function heading(text: string): void {
  process.stdout.write(`\n=== ${text} ===\n`);
}

/** `ACP_TEST_GREP=pattern` runs only the matching tests of each layer, while working on them. */
const grep = process.env['ACP_TEST_GREP'] ? ['--grep', process.env['ACP_TEST_GREP']] : [];

async function runLayer(layer: Layer, toolchain: () => Promise<Toolchain>): Promise<Outcome> {
  const started = Date.now();
  const resultsFile = join(outputDir, `${layer}-results.json`);
  let exitCode: number;
  let problem: string | undefined;
  try {
    switch (layer) {
      case 'unit':
        heading('unit tests (mocha in Node)');
        exitCode = await mocha(['--reporter', join(repoRoot, 'test', 'harness', 'reporter.cjs'), ...grep], { ACP_TEST_RESULTS: resultsFile });
        break;
      case 'integration': {
        const tools = await toolchain();
        heading('integration tests (mocha in the code-server extension host)');
        ({ exitCode } = await runIntegration({ toolchain: tools, repoRoot, workDir: join(workRoot, 'integration'), resultsFile }));
        break;
      }
      case 'agents': {
        const tools = await toolchain();
        const agents = await ensureAgents();
        heading('agents tests (the pinned real adapters behind fake model servers, in the code-server extension host)');
        ({ exitCode } = await runIntegration({
          toolchain: tools,
          repoRoot,
          workDir: join(workRoot, 'agents'),
          resultsFile,
          testsPath: join(repoRoot, 'out', 'test', 'agents', 'index.js'),
          env: { ACP_AGENTS_DIR: agents },
        }));
        break;
      }
      case 'ui': {
        const tools = await toolchain();
        // One UI test meets the real claude-agent-acp, as a user does.
        const agents = await ensureAgents();
        heading('UI tests (playwright-core driving the workbench in Chromium)');
        rmSync(join(outputDir, 'ui'), { recursive: true, force: true }); // failures of an earlier run

        exitCode = await mocha(
          [
            '--no-config',
            '--reporter',
            join(repoRoot, 'test', 'harness', 'reporter.cjs'),
            '--timeout',
            '120000',
            '--enable-source-maps',
            'out/test/ui/**/*.test.js',
            ...grep,
          ],
          {
            ACP_TEST_RESULTS: resultsFile,
            ACP_TOOLCHAIN: JSON.stringify(tools),
            ACP_AGENTS_DIR: agents,
            ACP_TEST_OUTPUT: join(outputDir, 'ui'),
            ACP_TEST_WORK: join(workRoot, 'ui'),
          },
        );
        break;
      }
    }
  } catch (error) {
    exitCode = 1;
    problem =
      error instanceof SetupError ? `setup failed: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  const results = readResults(resultsFile);
  const stats = results?.stats ?? {};
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  if (!problem && !results) problem = `the layer exited with code ${exitCode} without reporting results`;
  if (!problem && exitCode !== 0 && !stats.failures) problem = `the layer exited with code ${exitCode}`;
  if (!problem && (stats.tests ?? 0) === 0) problem = 'no tests ran';
  if (!problem && (stats.pending ?? 0) > 0) problem = 'skipped tests are not allowed: finish them or delete them';
  return { layer, passed: stats.passes ?? 0, failed: stats.failures ?? 0, pending: stats.pending ?? 0, seconds, problem };
}

async function main(): Promise<void> {
  const requested = process.argv.flatMap((arg, i, all) => (all[i - 1] === '--layer' ? [arg] : []));
  for (const layer of requested) {
    if (!(LAYERS as readonly string[]).includes(layer)) {
      process.stderr.write(`unknown layer "${layer}"; the layers are ${LAYERS.join(', ')}\n`);
      process.exit(2);
    }
  }
  const layers = requested.length > 0 ? LAYERS.filter((l) => requested.includes(l)) : [...LAYERS];
  mkdirSync(outputDir, { recursive: true });

  // Setup is its own step, timed apart from the layers: on a fresh machine it is most of the run.
  let setup: { seconds: number; problem?: string } | undefined;
  let tools: Promise<Toolchain> | undefined;
  const toolchain = () => {
    if (!tools) {
      heading('setup (code-server, Node 24, Chromium)');
      const started = Date.now();
      tools = ensureToolchain({ browser: true });
      const seconds = () => Math.round((Date.now() - started) / 100) / 10;
      tools.then(
        () => (setup = { seconds: seconds() }),
        (error: unknown) => (setup = { seconds: seconds(), problem: error instanceof Error ? error.message : String(error) }),
      );
    }
    return tools;
  };

  // The run's processes (tests, code-server, extension hosts, agents) make their temporary folders under one of the
  // run's own, removed at its end: a process killed with the server cannot remove its own. On macOS under /tmp, not
  // the long per-user TMPDIR: the sockets made in it (VS Code's IPC hooks) must stay within 104 characters.
  const runTmp = mkdtempSync(join(process.platform === 'darwin' ? '/tmp' : tmpdir(), 'acp-test-'));
  for (const name of ['TMPDIR', 'TEMP', 'TMP']) process.env[name] = runTmp;
  const outcomes: Outcome[] = [];
  try {
    for (const layer of layers) {
      if (layer !== 'unit') await toolchain().catch(() => undefined); // the layer reports the failure
      outcomes.push(await runLayer(layer, toolchain));
    }
  } finally {
    try {
      rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // A process still writing there (or holding a file, on Windows) costs a leftover folder, never the summary.
      process.stderr.write(`could not remove the run's temporary folder ${runTmp}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }

  heading('summary');
  let ok = true;
  if (setup)
    process.stdout.write(
      `${'setup'.padEnd(12)} ${setup.problem ? 'FAIL ' : 'ok   '} (${setup.seconds} s)${setup.problem ? `\n             ${setup.problem}` : ''}\n`,
    );
  for (const o of outcomes) {
    const counts = `${o.passed} passed, ${o.failed} failed${o.pending ? `, ${o.pending} pending` : ''}`;
    const status = o.problem || o.failed > 0 ? 'FAIL' : 'ok';
    if (status !== 'ok') ok = false;
    process.stdout.write(`${o.layer.padEnd(12)} ${status.padEnd(5)} ${counts} (${o.seconds} s)${o.problem ? `\n             ${o.problem}` : ''}\n`);
  }
  if (!ok) process.stdout.write(`\nSome tests failed. Screenshots and logs of failed UI tests are in ${join(outputDir, 'ui')}.\n`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
