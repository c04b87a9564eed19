// Where a command runs from: PATH (and PATHEXT on Windows) only, never the working folder.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { commandToSpawn, findOnPath, type Platform } from '../../../src/acp/commandPath';

const windows = (files: string[]): Platform => {
  const have = new Set(files.map((f) => f.toLowerCase()));
  return { os: 'win32', path: path.win32, exists: (file) => have.has(file.toLowerCase()) };
};
const posix = (files: string[]): Platform => ({ os: 'linux', path: path.posix, exists: (file) => files.includes(file) });

describe('command lookup', () => {
  it('on Windows, finds a bare name through PATH and PATHEXT, never in the working folder or a relative PATH entry', () => {
    // A cloned repository's npx.cmd in the working folder (and in "." and "" PATH entries) is never what runs.
    const platform = windows(['C:\\work\\repo\\npx.cmd', 'npx.cmd', '.\\npx.cmd', 'C:\\Program Files\\nodejs\\npx.cmd']);
    const env = { Path: '.;;C:\\Program Files\\nodejs', PATHEXT: '.COM;.EXE;.BAT;.CMD' };
    assert.equal(findOnPath('npx', env, platform), 'C:\\Program Files\\nodejs\\npx.cmd');
    assert.equal(commandToSpawn('npx', env, platform), 'C:\\Program Files\\nodejs\\npx.cmd');
  });

  it('on Windows, tries PATHEXT in its order, and a name with a suffix as it is first', () => {
    const platform = windows(['C:\\bin\\copilot.exe', 'C:\\bin\\copilot.cmd', 'C:\\bin\\tool.cmd']);
    const env = { PATH: 'C:\\bin', PATHEXT: '.EXE;.CMD' };
    assert.equal(findOnPath('copilot', env, platform), 'C:\\bin\\copilot.exe');
    assert.equal(findOnPath('tool.cmd', env, platform), 'C:\\bin\\tool.cmd');
    assert.equal(findOnPath('missing', env, platform), undefined);
  });

  it('a name PATH does not have becomes a path where it is not, so the OS never searches the working folder', () => {
    const platform = windows(['C:\\work\\repo\\uvx.exe']);
    const spawned = commandToSpawn('uvx', { PATH: 'C:\\bin' }, platform);
    assert.equal(spawned, 'C:\\bin\\uvx');
    assert.equal(path.win32.isAbsolute(spawned), true);
    assert.equal(path.posix.isAbsolute(commandToSpawn('uvx', { PATH: '.:relative' }, posix([]))), true);
  });

  it('keeps a command that has a path, and on POSIX skips empty and relative PATH entries', () => {
    assert.equal(commandToSpawn('./agent', {}, posix([])), './agent');
    assert.equal(commandToSpawn('/opt/agent/bin/agent', {}, posix([])), '/opt/agent/bin/agent');
    assert.equal(commandToSpawn('C:\\agents\\a.exe', {}, windows([])), 'C:\\agents\\a.exe');
    assert.equal(findOnPath('npx', { PATH: ':.:bin:/usr/bin' }, posix(['npx', './npx', 'bin/npx', '/usr/bin/npx'])), '/usr/bin/npx');
  });
});
