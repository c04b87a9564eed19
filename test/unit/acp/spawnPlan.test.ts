import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { commandToSpawn, type Platform } from '../../../src/acp/commandPath';
import { spawnPlan, UnsafeArgumentError, windowsTool, type SpawnPlatform } from '../../../src/acp/spawnPlan';

const NODE_DIR = 'C:\\Program Files\\nodejs';
const env = { Path: `${NODE_DIR};C:\\Windows\\System32`, PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };
const files = new Set([`${NODE_DIR}\\npx.cmd`, `${NODE_DIR}\\node.exe`, 'C:\\Windows\\System32\\git.exe']);
const windows: Platform & SpawnPlatform = { os: 'win32', path: path.win32, exists: (file) => files.has(file), env };

/** How a program built with the Microsoft C runtime splits its command line (CommandLineToArgvW's rules). */
function argv(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      let n = 0;
      while (line[i + n] === '\\') n++;
      if (line[i + n] === '"') {
        word += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) word += '"';
        else quoted = !quoted;
        i += n;
      } else {
        word += '\\'.repeat(n);
        i += n - 1;
      }
      inWord = true;
    } else if (c === '"') {
      quoted = !quoted;
      inWord = true;
    } else if ((c === ' ' || c === '\t') && !quoted) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** What cmd.exe /s /c runs: the line between its first and last quote. */
function cmdLine(plan: { args: readonly string[] }): string {
  assert.deepEqual(plan.args.slice(0, 3), ['/d', '/s', '/c']);
  const line = plan.args[3]!;
  assert.ok(line.startsWith('"') && line.endsWith('"'));
  return line.slice(1, -1);
}

describe('starting a command on Windows (a spawn plan, with path.win32)', () => {
  it('starts npx through cmd.exe by its full path, since Node refuses to spawn a .cmd without a shell', () => {
    const file = commandToSpawn('npx', env, windows);
    assert.equal(file, `${NODE_DIR}\\npx.cmd`);
    const plan = spawnPlan(file, ['-y', '@agentclientprotocol/claude-agent-acp'], windows);
    assert.equal(plan.file, 'C:\\Windows\\system32\\cmd.exe');
    assert.equal(plan.windowsVerbatimArguments, true);
    assert.deepEqual(argv(cmdLine(plan)), [`${NODE_DIR}\\npx.cmd`, '-y', '@agentclientprotocol/claude-agent-acp']);
  });

  it('keeps words with spaces, a trailing backslash, an empty word and cmd’s separators whole', () => {
    const words = ['my file.txt', 'C:\\Users\\Ada Lovelace\\', '', 'a,b;c=d', 'x|y', '(1)', '<in>', 'tab\there'];
    const plan = spawnPlan(`${NODE_DIR}\\npx.cmd`, words, windows);
    assert.deepEqual(argv(cmdLine(plan)).slice(1), words);
    // Outside quotes cmd would read |, <, > and ( as its own: every such word is quoted.
    for (const word of ['x|y', '(1)', '<in>']) assert.ok(cmdLine(plan).includes(`"${word}"`), word);
  });

  it('refuses what cmd.exe would read as its own: %PATH%, ^, &, a quote and a line break', () => {
    for (const [word, character] of [
      ['%PATH%', '%'],
      ['a^b', '^'],
      ['a & calc', '&'],
      ['say "hi"', '"'],
      ['one\ntwo', '\n'],
      ['one\rtwo', '\r'],
    ] as const) {
      assert.throws(
        () => spawnPlan(`${NODE_DIR}\\npx.cmd`, ['-y', word], windows),
        (error: unknown) =>
          error instanceof UnsafeArgumentError && error.character === character && error.message.includes('cannot be passed safely'),
        JSON.stringify(word),
      );
    }
  });

  it('starts .exe files, and everything off Windows, as they are, without a shell', () => {
    const git = commandToSpawn('git', env, windows);
    assert.equal(git, 'C:\\Windows\\System32\\git.exe', 'PATHEXT finds git.exe');
    assert.deepEqual(spawnPlan(git, ['status', '%NOT_EXPANDED%'], windows), { file: git, args: ['status', '%NOT_EXPANDED%'] });
    const linux: SpawnPlatform = { os: 'linux', path: path.win32, env: {} };
    assert.deepEqual(spawnPlan('/usr/bin/npx.cmd', ['a & b'], linux), { file: '/usr/bin/npx.cmd', args: ['a & b'] });
  });

  it('finds cmd.exe under SystemRoot without ComSpec, and never takes a relative ComSpec', () => {
    const bare = { ...windows, env: { SystemRoot: 'D:\\Win', ComSpec: 'cmd.exe' } };
    assert.equal(spawnPlan('C:\\tools\\uvx.bat', ['--from', 'x'], bare).file, 'D:\\Win\\System32\\cmd.exe');
  });

  it('ends an agent’s tree with Windows’ own taskkill, by its full path, never one in the working folder', () => {
    assert.equal(windowsTool('taskkill.exe', { ...windows, env: { SystemRoot: 'C:\\Windows' } }), 'C:\\Windows\\System32\\taskkill.exe');
    assert.equal(windowsTool('taskkill.exe', { ...windows, env: { SystemRoot: 'relative' } }), 'C:\\Windows\\System32\\taskkill.exe');
  });

  it('never takes an npx.cmd from the working folder: a bare name is looked up in PATH only', () => {
    const planted: Platform = { ...windows, exists: (file) => file === 'C:\\repo\\npx.cmd' };
    assert.equal(commandToSpawn('npx', { Path: '', PATHEXT: '.CMD' }, planted).startsWith('C:\\repo'), false);
  });
});
