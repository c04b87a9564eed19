// terminal/* against real processes: shell and direct commands, the output limit, exit status, kill and release,
// and what a hostile agent could try: background jobs that outlive the command, huge limits, many terminals.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpError } from '../../../src/acp/errors';
import type { Logger } from '../../../src/acp/log';
import { MAX_OUTPUT_LIMIT, MAX_TERMINALS_PER_SESSION, OutputTail, shellFor, TerminalManager } from '../../../src/acp/terminals';
import { waitFor, within } from '../../lib/wait';

/** True while `pid` runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): the signal said it exists
  }
}

describe('TerminalManager', function () {
  this.timeout(10_000);
  let terminals: TerminalManager;
  let cwd: string;
  const sessionId = 's1';

  beforeEach(() => {
    terminals = new TerminalManager();
    cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-term-')));
  });

  afterEach(() => {
    terminals.dispose();
    rmSync(cwd, { recursive: true, force: true });
  });

  const node = (code: string) => ({ sessionId, command: process.execPath, args: ['-e', code] });

  it('runs a command line without args through the shell, in the session folder', async () => {
    const { terminalId } = terminals.create({ sessionId, command: 'echo hi && pwd' }, cwd);
    assert.deepEqual(await within(terminals.waitForExit({ sessionId, terminalId }), 5000, 'the exit'), { exitCode: 0, signal: null });
    assert.deepEqual(terminals.output({ sessionId, terminalId }), {
      output: `hi\n${cwd}\n`,
      truncated: false,
      exitStatus: { exitCode: 0, signal: null },
    });
  });

  it('spawns a command with args directly, with the env merged and the cwd given', async () => {
    const sub = join(cwd, 'sub');
    const { terminalId } = terminals.create(
      {
        ...node('process.stdout.write(process.env.GREETING + " " + process.cwd()); process.stderr.write("!"); process.exit(3)'),
        env: [{ name: 'GREETING', value: 'hello' }],
        cwd: cwd,
      },
      sub,
    );
    assert.deepEqual(await terminals.waitForExit({ sessionId, terminalId }), { exitCode: 3, signal: null });
    assert.equal(terminals.output({ sessionId, terminalId }).output, `hello ${cwd}!`);
  });

  it('keeps the tail within outputByteLimit, cut at a character boundary', async () => {
    // 400 × "é" (2 bytes each) then "END": a 101-byte limit cannot keep half a character.
    const { terminalId } = terminals.create({ ...node('process.stdout.write("é".repeat(400) + "END")'), outputByteLimit: 101 }, cwd);
    await terminals.waitForExit({ sessionId, terminalId });
    const out = terminals.output({ sessionId, terminalId });
    assert.equal(out.truncated, true);
    assert.equal(out.output, `${'é'.repeat(49)}END`);
    assert.ok(Buffer.byteLength(out.output) <= 101);
  });

  it('streams output as it arrives and reports the exit', async () => {
    const seen: string[] = [];
    const exits: unknown[] = [];
    terminals.onDidOutput((e) => seen.push(e.text));
    terminals.onDidExit((e) => exits.push(e.exitStatus));
    const { terminalId } = terminals.create(node('console.log("a"); setTimeout(() => console.log("b"), 50)'), cwd);
    await terminals.waitForExit({ sessionId, terminalId });
    assert.equal(seen.join(''), 'a\nb\n');
    assert.deepEqual(exits, [{ exitCode: 0, signal: null }]);
  });

  it('kill ends the whole process group and keeps the output; release frees the id', async () => {
    const { terminalId } = terminals.create({ sessionId, command: 'echo started; sleep 30 & sleep 30; echo never' }, cwd);
    await waitFor(() => terminals.output({ sessionId, terminalId }).output === 'started\n', { what: 'the command to start' });
    terminals.kill({ sessionId, terminalId });
    const status = await within(terminals.waitForExit({ sessionId, terminalId }), 5000, 'the kill');
    assert.equal(status.signal, 'SIGTERM');
    assert.equal(terminals.output({ sessionId, terminalId }).output, 'started\n');
    terminals.release({ sessionId, terminalId });
    assert.throws(() => terminals.output({ sessionId, terminalId }), /unknown terminal: term-1/);
  });

  it('answers unknown ids, other sessions\u2019 terminals and empty commands with InvalidParams', () => {
    const { terminalId } = terminals.create({ sessionId, command: 'true' }, cwd);
    for (const call of [
      () => terminals.output({ sessionId, terminalId: 'nope' }),
      () => terminals.kill({ sessionId: 'other', terminalId }),
      () => terminals.create({ sessionId, command: ' ' }, cwd),
    ]) {
      assert.throws(call, (e: unknown) => e instanceof AcpError && e.code === -32602);
    }
  });

  it('reports a command that cannot start as exit 127 with the reason in the output', async () => {
    const { terminalId } = terminals.create({ sessionId, command: 'acp-no-such-binary-xyz', args: [] }, cwd);
    assert.deepEqual(await terminals.waitForExit({ sessionId, terminalId }), { exitCode: 127, signal: null });
    assert.match(terminals.output({ sessionId, terminalId }).output, /ENOENT/);
  });

  it('uses the user\u2019s shell, or cmd.exe on Windows', () => {
    assert.deepEqual(shellFor('linux', { SHELL: '/bin/zsh' }).file, '/bin/zsh');
    assert.deepEqual(shellFor('linux', {}).args('ls'), ['-c', 'ls']);
    assert.deepEqual(shellFor('win32', {}).args('dir'), ['/d', '/s', '/c', 'dir']);
  });

  describe('against a hostile agent', () => {
    /**
     * Runs a command whose shell exits at once and leaves `sleep 300` behind: holding the output pipe, or detached
     * from it like nohup (then the pipes close with the shell, and nothing but the process group still knows it).
     */
    async function backgroundJob(session = sessionId, holdsOutput = false): Promise<{ terminalId: string; pid: number }> {
      const pidfile = join(cwd, `pid-${Math.random().toString(36).slice(2)}`);
      const job = holdsOutput ? 'sleep 300' : 'sleep 300 >/dev/null 2>&1';
      const { terminalId } = terminals.create({ sessionId: session, command: `${job} & echo $! > ${pidfile}` }, cwd);
      const pid = await waitFor(() => Number(readFileSync(pidfile, 'utf8').trim()), { what: 'the background job to start' });
      assert.ok(alive(pid), 'the background job runs');
      return { terminalId, pid };
    }

    const gone = (pid: number) => waitFor(() => !alive(pid), { timeoutMs: 5000, what: `process ${pid} to be gone` });

    it('answers wait_for_exit when the command exits, though a background job still holds its output', async () => {
      const { terminalId, pid } = await backgroundJob(sessionId, true);
      assert.deepEqual(await within(terminals.waitForExit({ sessionId, terminalId }), 3000, 'the exit'), { exitCode: 0, signal: null });
      assert.deepEqual(terminals.output({ sessionId, terminalId }).exitStatus, { exitCode: 0, signal: null });
      assert.ok(alive(pid), 'the exit does not kill the job by itself');
    });

    it('still collects what a background job prints after the command exited', async () => {
      const { terminalId } = terminals.create({ sessionId, command: '(while [ ! -f go ]; do sleep 0.02; done; echo late) & echo early' }, cwd);
      await within(terminals.waitForExit({ sessionId, terminalId }), 3000, 'the exit');
      writeFileSync(join(cwd, 'go'), '');
      await waitFor(() => terminals.output({ sessionId, terminalId }).output === 'early\nlate\n', { what: 'the late output' });
    });

    it('ends a background job on release, even after the command exited', async () => {
      const { terminalId, pid } = await backgroundJob();
      await terminals.waitForExit({ sessionId, terminalId });
      terminals.release({ sessionId, terminalId });
      await gone(pid);
    });

    it('ends the background jobs of a closed session, and only those', async () => {
      const mine = await backgroundJob();
      const theirs = await backgroundJob('s2', true);
      await terminals.waitForExit({ sessionId, terminalId: mine.terminalId });
      terminals.releaseAll(sessionId);
      await gone(mine.pid);
      assert.ok(alive(theirs.pid), 'the other session keeps its job');
      terminals.releaseAll(); // the agent stopped
      await gone(theirs.pid);
    });

    it('ends background jobs on dispose', async () => {
      const { terminalId, pid } = await backgroundJob();
      await terminals.waitForExit({ sessionId, terminalId });
      terminals.dispose();
      await gone(pid);
    });

    it('clamps outputByteLimit to its own maximum and says so once', async () => {
      const warnings: string[] = [];
      const log: Logger = { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
      const own = new TerminalManager(log);
      try {
        const big = own.create({ ...node(`process.stdout.write("x".repeat(${MAX_OUTPUT_LIMIT + 1000}))`), outputByteLimit: 1e15 }, cwd);
        const none = own.create({ ...node('process.stdout.write("abc")'), outputByteLimit: -5 }, cwd);
        own.create({ sessionId, command: 'true', outputByteLimit: Number.MAX_SAFE_INTEGER }, cwd);
        await within(own.waitForExit({ sessionId, terminalId: big.terminalId }), 5000, 'the big output');
        await own.waitForExit({ sessionId, terminalId: none.terminalId });
        const out = own.output({ sessionId, terminalId: big.terminalId });
        assert.equal(out.output.length, MAX_OUTPUT_LIMIT);
        assert.equal(out.truncated, true);
        assert.deepEqual(own.output({ sessionId, terminalId: none.terminalId }).output, '');
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]!, /keeping at most 16777216/);
      } finally {
        own.dispose();
      }
    });

    it(`refuses more than ${MAX_TERMINALS_PER_SESSION} terminals in one session until one is released`, () => {
      const ids = Array.from({ length: MAX_TERMINALS_PER_SESSION }, () => terminals.create({ sessionId, command: 'true' }, cwd).terminalId);
      assert.throws(
        () => terminals.create({ sessionId, command: 'true' }, cwd),
        (e: unknown) => e instanceof AcpError && e.code === -32600 && /holds 32 terminals.*release one/.test(e.message),
      );
      terminals.create({ sessionId: 's2', command: 'true' }, cwd); // other sessions are not affected
      terminals.release({ sessionId, terminalId: ids[0]! });
      terminals.create({ sessionId, command: 'true' }, cwd);
    });
  });
});

describe('OutputTail (a terminal\u2019s kept output)', () => {
  it('keeps the last 32 MiB of 64 MiB, in order', () => {
    // Its time is bench:text's ("the kept bytes of a command's output past its bound"): the old way joined everything
    // kept on each chunk past the limit, 2,048 joins of 32 MiB here.
    const tail = new OutputTail(32 * 1024 * 1024);
    const chunk = Buffer.alloc(16 * 1024);
    for (let i = 0; i < 4096; i++) tail.append(chunk.fill(97 + (i % 26)));
    const text = tail.text();
    assert.equal(text.length, 32 * 1024 * 1024);
    assert.equal(text[0], String.fromCharCode(97 + (2048 % 26)));
    assert.equal(text.at(-1), String.fromCharCode(97 + (4095 % 26)));
  });

  it('cuts at a character boundary when the cut falls inside a character split across chunks', () => {
    const tail = new OutputTail(5);
    const bytes = Buffer.from('a€b€'); // € is 3 bytes: 1 + 3 + 1 + 3 = 8
    for (const byte of bytes) tail.append(Buffer.of(byte));
    assert.equal(tail.text(), 'b€');
    assert.equal(tail.truncated, true);
    tail.append(Buffer.from('xyz'));
    assert.equal(tail.text(), 'xyz'); // 5 bytes would start inside the €
  });

  it('keeps everything under the limit, and nothing with a zero limit', () => {
    const tail = new OutputTail(10);
    tail.append(Buffer.from('hello'));
    assert.deepEqual([tail.text(), tail.truncated], ['hello', false]);
    const none = new OutputTail(0);
    none.append(Buffer.from('hello'));
    assert.deepEqual([none.text(), none.truncated], ['', true]);
  });
});
