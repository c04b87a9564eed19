// terminal/* against real processes: shell and direct commands, the output limit, exit status, kill and release.
import * as assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpError } from '../../src/acp/errors';
import { shellFor, TerminalManager } from '../../src/acp/terminals';
import { waitFor, within } from '../lib/wait';

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
    assert.deepEqual(terminals.output({ sessionId, terminalId }), { output: `hi\n${cwd}\n`, truncated: false, exitStatus: { exitCode: 0, signal: null } });
  });

  it('spawns a command with args directly, with the env merged and the cwd given', async () => {
    const sub = join(cwd, 'sub');
    const { terminalId } = terminals.create(
      { ...node('process.stdout.write(process.env.GREETING + " " + process.cwd()); process.stderr.write("!"); process.exit(3)'), env: [{ name: 'GREETING', value: 'hello' }], cwd: cwd },
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
    for (const call of [() => terminals.output({ sessionId, terminalId: 'nope' }), () => terminals.kill({ sessionId: 'other', terminalId }), () => terminals.create({ sessionId, command: ' ' }, cwd)]) {
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
});
