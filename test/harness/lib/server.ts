// code-server on 127.0.0.1, in its own process group so that stopping it also stops its extension hosts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Toolchain } from './setup';

export interface ServerOptions {
  readonly toolchain: Toolchain;
  /** Holds User/, Machine/, logs/ and the XDG scratch folders. Created if missing. */
  readonly dataDir: string;
  readonly extensionsDir: string;
  /** User settings written before start (on top of QUIET_SETTINGS); when absent the file is left as it is. */
  readonly settings?: Record<string, unknown>;
  /**
   * Remote machine settings (Machine/settings.json). The workbench counts code-server as a remote, so this is where
   * machine-scoped settings such as `acp.agents` take effect; in User settings they are ignored. When absent the
   * file is left as it is.
   */
  readonly machineSettings?: Record<string, unknown>;
  /** Honour extensionDevelopmentPath/extensionTestsPath in the URL payload (hides notification toasts). */
  readonly smokeTestDriver?: boolean;
  /** Keep VS Code's workspace trust on (tests of Restricted Mode); it is off otherwise. */
  readonly workspaceTrust?: boolean;
  /** Extra environment for the server and so for its extension hosts. */
  readonly env?: Record<string, string>;
  /** Port to listen on; a free one when absent. */
  readonly port?: number;
}

export interface CodeServer {
  readonly url: string;
  readonly port: number;
  readonly logFile: string;
  readonly userDataDir: string;
  /** The workbench URL for `folder` (or a .code-workspace file), with an optional payload for extension development and tests. */
  workbenchUrl(folder: string, payload?: readonly (readonly [string, string])[]): string;
  stop(): Promise<void>;
}

/** Settings that keep code-server quiet and offline-friendly. */
const QUIET_SETTINGS: Record<string, unknown> = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.enabled': false,
  'window.commandCenter': false,
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`${url}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

export async function startCodeServer(options: ServerOptions): Promise<CodeServer> {
  const port = options.port ?? (await freePort());
  const userDataDir = join(options.dataDir, 'user-data');
  for (const dir of [
    join(userDataDir, 'User'),
    join(userDataDir, 'Machine'),
    options.extensionsDir,
    join(options.dataDir, 'xdg-config'),
    join(options.dataDir, 'xdg-data'),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  if (options.settings) {
    writeFileSync(join(userDataDir, 'User', 'settings.json'), `${JSON.stringify({ ...QUIET_SETTINGS, ...options.settings }, null, 2)}\n`);
  }
  if (options.machineSettings) {
    writeFileSync(join(userDataDir, 'Machine', 'settings.json'), `${JSON.stringify(options.machineSettings, null, 2)}\n`);
  }
  const logFile = join(options.dataDir, 'code-server.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const args = [
    options.toolchain.codeServer,
    '--config',
    '/dev/null',
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    options.extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--reconnection-grace-time',
    '5',
    '--ignore-last-opened',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
  const child = spawn(options.toolchain.node, args, {
    detached: true, // its own process group: stop() signals the server and every extension host together
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: join(options.dataDir, 'xdg-config'),
      XDG_DATA_HOME: join(options.dataDir, 'xdg-data'),
      ...options.env,
    },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopOnExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', stopOnExit);

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  let ready = false;
  while (!ready && Date.now() < deadline && child.exitCode === null) {
    ready = await healthy(url);
    if (!ready) await Promise.race([exited, new Promise((r) => setTimeout(r, 200))]);
  }
  if (!ready) {
    killGroup(child, 'SIGKILL');
    throw new Error(
      `code-server did not start on ${url} (${child.exitCode === null ? 'no answer in 60 s' : `exit ${child.exitCode}`}); see ${logFile}`,
    );
  }

  return {
    url,
    port,
    logFile,
    userDataDir,
    workbenchUrl(folder, payload) {
      // A .code-workspace file opens as a (multi-root) workspace; anything else as a folder.
      const query = new URLSearchParams(folder.endsWith('.code-workspace') ? { workspace: folder } : { folder });
      if (payload) query.set('payload', JSON.stringify(payload));
      return `${url}/?${query.toString()}`;
    },
    async stop() {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        killGroup(child, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      killGroup(child, 'SIGKILL'); // extension hosts that ignored SIGTERM
      log.end();
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** The payload value for a folder or file on the server: the authority is literally "remote". */
export function remoteUri(path: string): string {
  return `vscode-remote://remote${path}`;
}
