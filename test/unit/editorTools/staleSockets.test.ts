// The stdio bridge's socket folders that killed extension hosts leave behind, for real: hosts are child processes
// that make their folder and listen, then are killed with SIGKILL (no clean-up runs), in a temporary folder of the
// test's own (TMPDIR). A starting pipe removes what they left, and nothing that is alive or not ours.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { silentLogger } from '../../../src/acp/log';
import { Grants } from '../../../src/editorTools/grants';
import { EditorToolsPipe } from '../../../src/editorTools/pipe';
import { sweepStaleSocketFolders } from '../../../src/editorTools/staleSockets';
import { waitFor } from '../../lib/wait';

/**
 * A process that makes its socket folder, as pipe.ts names it, and listens there; kept in `children` (killed after
 * each test) from the moment it starts. Resolves with the folder once it listens.
 */
async function host(dir: string, children: ChildProcess[]): Promise<{ child: ChildProcess; folder: string }> {
  const script = `
    const { mkdirSync } = require('node:fs');
    const folder = require('node:path').join(process.argv[1], 'acp-tools-' + process.pid + '-Ab12Cd');
    mkdirSync(folder, { mode: 0o700 });
    require('node:net').createServer().listen(require('node:path').join(folder, 's'), () => process.stdout.write(folder + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const listening = once(child.stdout!, 'data') as Promise<[Buffer]>;
  const ended = once(child, 'exit').then(([code]) => Promise.reject(new Error(`the host exited (${String(code)}) before it listened`)));
  const [line] = await Promise.race([listening, ended]);
  return { child, folder: line.toString('utf8').trim() };
}

/** Dates a folder `minutes` back, as one made that long ago. */
function age(folder: string, minutes = 2): void {
  const then = new Date(Date.now() - minutes * 60_000);
  utimesSync(folder, then, then);
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe('editor tools: socket folders left behind by killed hosts', function () {
  this.timeout(20_000);
  if (process.platform === 'win32') {
    it('has nothing to remove on Windows, where a named pipe goes with its process', async () => {
      assert.equal(await sweepStaleSocketFolders(silentLogger), 0);
    });
    return;
  }
  let dir: string;
  let savedTmp: string | undefined;
  const children: ChildProcess[] = [];
  const servers: Server[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acp-sweep-'));
    savedTmp = process.env['TMPDIR'];
    process.env['TMPDIR'] = dir;
  });

  afterEach(async () => {
    if (savedTmp === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmp;
    await Promise.all(children.splice(0).map(kill));
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes the folders of killed hosts, and keeps a live host’s, a listening socket’s, its own, a new one, and other names', async () => {
    const killed = await host(dir, children);
    const live = await host(dir, children);
    await kill(killed.child);
    assert.ok(existsSync(join(killed.folder, 's')), 'a killed host leaves its socket file');

    /** A folder of `name`; with a server listening in it when `listening`. */
    const folder = async (name: string, listening = false) => {
      const made = join(dir, name);
      mkdirSync(made, { mode: 0o700 });
      if (listening) {
        const server = createServer().listen(join(made, 's'));
        servers.push(server);
        await once(server, 'listening');
      }
      return made;
    };
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    // A dead process id whose socket still answers: a host in another PID namespace that shares this folder.
    const elsewhere = await folder(`acp-tools-${gone}-Zz99Yy`, true);
    // The name earlier versions gave, without a process id: gone when its socket does not answer, kept when it does.
    const older = await folder('acp-tools-Ab12Cd');
    const olderLive = await folder('acp-tools-Cd34Ef', true);
    // This process's own, and a name that is not a socket folder's.
    const own = await folder(`acp-tools-${process.pid}-Ef56Gh`);
    const other = await folder(`acp-other-${gone}-Ab12Cd`);
    // A killed host's folder made just now: its host may have been between making it and listening.
    const fresh = await host(dir, children);
    await kill(fresh.child);
    for (const old of [killed.folder, live.folder, elsewhere, older, olderLive, own, other]) age(old);

    assert.equal(await sweepStaleSocketFolders(silentLogger), 2);
    for (const removed of [killed.folder, older]) assert.ok(!existsSync(removed), `${removed} is removed`);
    for (const kept of [live.folder, elsewhere, olderLive, own, other, fresh.folder]) assert.ok(existsSync(kept), `${kept} is kept`);
  });

  it('is done when a pipe starts, which makes its own folder named for its process', async () => {
    const killed = await host(dir, children);
    await kill(killed.child);
    age(killed.folder);
    const pipe = new EditorToolsPipe(new Grants(silentLogger), () => [], silentLogger);
    try {
      const address = await pipe.address();
      assert.ok(address.startsWith(join(dir, `acp-tools-${process.pid}-`)), address);
      await waitFor(() => !existsSync(killed.folder), { what: 'the killed host’s folder to be removed' });
      assert.ok(existsSync(address), 'the pipe’s own socket stays');
    } finally {
      pipe.dispose();
    }
  });
});
