// What the harness needs on the machine, installed on first use and reused afterwards:
//   - Debian packages: chromium for the UI tests, and the headers code-server's native modules build against;
//   - Node 24 (code-server's engine) from the npm package node-linux-<arch>;
//   - code-server, the real VS Code workbench and Node extension host, from npm;
//   - for the agents layer, the real adapters pinned in test/agents/pins.ts, from npm.
// Node and code-server live in a cache outside the repository, one folder per version, so a version bump installs
// beside the old one and an interrupted install is never mistaken for a finished one.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { AGENT_PINS } from '../../agents/pins';

const CODE_SERVER_VERSION = '4.139.1';
const NODE_VERSION = '24.21.0';

/** Packages that code-server's node-gyp builds need (libkrb5-dev above all: without it the install rolls back). */
const BUILD_PACKAGES = ['libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'libx11-dev', 'pkg-config'];
const BROWSER_PACKAGE = 'chromium';

/** Environment variable naming a Chromium or Chrome binary to use instead of Debian's chromium. */
const CHROMIUM_ENV = 'CHROMIUM_PATH';

export class SetupError extends Error {}

export interface Toolchain {
  /** Node 24's `bin/node`. */
  readonly node: string;
  /** code-server's entry script, run with `node`. */
  readonly codeServer: string;
  /** The browser binary for playwright-core. */
  readonly chromium: string;
}

function cacheRoot(): string {
  const base = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'acp-client');
}

function say(line: string): void {
  process.stdout.write(`[setup] ${line}\n`);
}

function isInstalled(pkg: string): boolean {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/**
 * Runs an install step with its output in a log file under the cache, printing a progress line every 20 s. On failure
 * the error quotes the last lines and names the log.
 */
function run(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; label: string }): Promise<void> {
  mkdirSync(cacheRoot(), { recursive: true });
  const logFile = join(cacheRoot(), 'install.log');
  appendFileSync(logFile, `\n$ ${command} ${args.join(' ')}\n`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail: string[] = [];
    let lines = 0;
    const collect = (data: Buffer) => {
      appendFileSync(logFile, data);
      for (const line of data.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        lines++;
        tail = [...tail.slice(-19), line];
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const progress = setInterval(
      () => say(`${options.label}: ${Math.round((Date.now() - started) / 1000)} s, ${lines} lines of output so far`),
      20_000,
    );
    const finish = (error?: Error) => {
      clearInterval(progress);
      if (error) reject(error);
      else resolve();
    };
    child.on('error', (error) => finish(new SetupError(`could not run ${command}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) finish();
      else
        finish(
          new SetupError(
            `${options.label} failed (${signal ?? `exit ${code}`}). The full output is in ${logFile}; its last lines:\n${tail.join('\n')}`,
          ),
        );
    });
  });
}

/** Installs missing Debian packages when running as root, or stops with a message that names them. */
async function ensurePackages(packages: readonly string[], why: string): Promise<void> {
  if (process.platform !== 'linux') return; // elsewhere the user provides the tools; the errors below name them
  const hasDpkg = spawnSync('dpkg-query', ['--version']).status === 0;
  if (!hasDpkg) return;
  const missing = packages.filter((p) => !isInstalled(p));
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new SetupError(
      `${why} needs these system packages, which are missing: ${missing.join(' ')}. ` +
        `Install them with: sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  say(`installing system packages for ${why}: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { env, label: 'apt-get update' });
  await run('apt-get', ['install', '-y', ...missing], { env, label: `apt-get install ${missing.join(' ')}` });
}

/** Installs an npm package into `dir` atomically: into a scratch folder first, renamed when complete. */
async function npmInstallInto(dir: string, specs: string | readonly string[], env: NodeJS.ProcessEnv, npmCli: string, node: string): Promise<void> {
  const spec = typeof specs === 'string' ? specs : specs.join(' ');
  say(`npm install ${spec} (output in ${join(cacheRoot(), 'install.log')})`);
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(join(partial, 'package.json'), '{"private":true}\n');
  await run(
    node,
    [
      npmCli,
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--foreground-scripts',
      '--loglevel=error',
      ...(typeof specs === 'string' ? [specs] : specs),
    ],
    {
      cwd: partial,
      env,
      label: `npm install ${spec}`,
    },
  );
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
}

function npmCliPath(): string {
  // The npm that runs this script (npm test / npm start) tells us where it lives.
  const fromEnv = process.env['npm_execpath'];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const guess = join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(guess)) return guess;
  throw new SetupError('could not find npm; run this through npm (npm test or npm start)');
}

async function ensureNode(): Promise<string> {
  const arch = process.arch === 'arm64' ? 'arm64' : process.arch === 'x64' ? 'x64' : undefined;
  if (process.platform !== 'linux' || !arch) {
    throw new SetupError(`the code-server harness runs on Linux x64 or arm64; this is ${process.platform} ${process.arch}`);
  }
  const dir = join(cacheRoot(), `node-${NODE_VERSION}-${arch}`);
  const node = join(dir, 'node_modules', `node-linux-${arch}`, 'bin', 'node');
  if (existsSync(node)) return node;
  say(`installing Node ${NODE_VERSION} (code-server's engine) into ${dir}`);
  await npmInstallInto(dir, `node-linux-${arch}@${NODE_VERSION}`, process.env, npmCliPath(), process.execPath);
  if (!existsSync(node)) throw new SetupError(`Node ${NODE_VERSION} installed, but ${node} is missing`);
  return node;
}

async function ensureCodeServer(node: string): Promise<string> {
  const dir = join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  const entry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (existsSync(entry)) return entry;
  await ensurePackages(BUILD_PACKAGES, `building code-server ${CODE_SERVER_VERSION}`);
  say(`installing code-server ${CODE_SERVER_VERSION} into ${dir}; this builds native modules and takes about 3 minutes, once`);
  const nodeHome = join(node, '..', '..');
  // code-server's postinstall reads the Node version from npm's user agent, so npm itself must run under Node 24,
  // and node-gyp must build against Node 24's headers.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(nodeHome, 'bin')}:${process.env['PATH'] ?? ''}`,
    npm_config_nodedir: nodeHome,
  };
  for (const key of Object.keys(env)) {
    // Settings of the outer npm run (npm test) would otherwise leak into the inner install.
    if (key.startsWith('npm_') && key !== 'npm_config_nodedir' && key !== 'npm_config_cache' && key !== 'npm_config_registry') delete env[key];
  }
  const started = Date.now();
  await npmInstallInto(dir, `code-server@${CODE_SERVER_VERSION}`, env, npmCliPath(), node);
  if (!existsSync(entry)) throw new SetupError(`code-server installed, but ${entry} is missing`);
  say(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return entry;
}

async function ensureChromium(): Promise<string> {
  const override = process.env[CHROMIUM_ENV];
  if (override) {
    if (!existsSync(override)) throw new SetupError(`${CHROMIUM_ENV} is set to ${override}, which does not exist`);
    return override;
  }
  await ensurePackages([BROWSER_PACKAGE], 'the UI tests');
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (existsSync(candidate)) return candidate;
  }
  throw new SetupError(`no Chromium found; install the chromium package, or set ${CHROMIUM_ENV} to a Chromium or Chrome binary`);
}

/**
 * The pinned adapters, installed once into one cache folder per set of pins (about 850 MB: each bundles its native
 * CLI). Returns the folder whose node_modules holds them.
 */
export async function ensureAgents(): Promise<string> {
  const pins = Object.entries(AGENT_PINS).map(([name, version]) => `${name}@${version}`);
  const key = createHash('sha256').update(pins.join('\n')).digest('hex').slice(0, 12);
  const dir = join(cacheRoot(), `agents-${key}`);
  if (pins.every((pin) => existsSync(join(dir, 'node_modules', pin.slice(0, pin.lastIndexOf('@')), 'package.json')))) return dir;
  const started = Date.now();
  await npmInstallInto(dir, pins, process.env, npmCliPath(), process.execPath);
  say(`the pinned adapters installed in ${Math.round((Date.now() - started) / 1000)} s: ${pins.join(', ')}`);
  return dir;
}

/** Makes sure everything is installed, installing what is missing, and says where it is. */
export async function ensureToolchain(options: { browser: boolean }): Promise<Toolchain> {
  const node = await ensureNode();
  const codeServer = await ensureCodeServer(node);
  const chromium = options.browser ? await ensureChromium() : '';
  return { node, codeServer, chromium };
}
