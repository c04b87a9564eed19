// The lock on the folder of installs, shared by windows: real files, a real dead process for a stale owner.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLock } from '../../../src/registry/lock';
import { waitFor } from '../../lib/wait';

describe('the install lock', () => {
  let folder: string;
  let file: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'acp-lock-'));
    file = join(folder, '.lock');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('runs one holder at a time: the second waits until the first lets go, and the file is gone after', async () => {
    const order: string[] = [];
    let release: (() => void) | undefined;
    const first = withLock(file, async () => {
      order.push('first in');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first out');
    });
    await new Promise<void>((resolve) => {
      const check = () => (existsSync(file) && release ? resolve() : setImmediate(check));
      check();
    });
    const second = withLock(file, async () => void order.push('second'));
    release?.();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first in', 'first out', 'second']);
    assert.equal(existsSync(file), false);
  });

  it('takes over a lock whose owner is gone, one too old, and one that cannot be read', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    for (const content of [
      JSON.stringify({ pid: dead, at: Date.now(), token: 'dead' }),
      JSON.stringify({ pid: process.pid, at: Date.now() - 2 * 60 * 60 * 1000, token: 'old' }),
      '{"pid": 1, "at"',
    ]) {
      writeFileSync(file, content);
      // A lock that cannot be read may be being written: it is stale only once it is older than a few seconds.
      const old = new Date(Date.now() - 60_000);
      utimesSync(file, old, old);
      assert.equal(await withLock(file, async () => 'taken'), 'taken', content);
    }
  });

  it('renews the lock while the work runs, so a long install is never taken for stale', async () => {
    let release: (() => void) | undefined;
    const order: string[] = [];
    const first = withLock(
      file,
      async () => {
        await new Promise<void>((resolve) => (release = resolve));
        order.push('first');
      },
      { renewMs: 20 },
    );
    await waitFor(() => existsSync(file) && release !== undefined, { what: 'the first holder' });
    const taken = (JSON.parse(readFileSync(file, 'utf8')) as { at: number }).at;
    const second = withLock(file, async () => void order.push('second'), { staleMs: 200 });
    // Well past the stale bound, renewed all along: the second still waits.
    await waitFor(() => (JSON.parse(readFileSync(file, 'utf8')) as { at: number }).at > taken + 400, { what: 'the lock renewed past the bound' });
    assert.deepEqual(order, []);
    release?.();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first', 'second']);
  });

  it('stops waiting when the install is cancelled', async () => {
    writeFileSync(file, JSON.stringify({ pid: process.pid, at: Date.now(), token: 'held' }));
    const controller = new AbortController();
    const waiting = withLock(file, async () => 'after the owner let go');
    const cancelled = withLock(file, async () => 'never', { signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await assert.rejects(cancelled, /cancelled/);
    rmSync(file);
    assert.equal(await waiting, 'after the owner let go');
  });
});
