import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPath, isWithin, realPath } from '../../src/paths';

describe('checkPath (where an agent may read and write)', () => {
  let base: string;
  let workspace: string;
  let outside: string;

  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'acp-paths-')));
    workspace = join(base, 'workspace');
    outside = join(base, 'outside');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(workspace, 'escape'));
    symlinkSync(join(workspace, 'src'), join(outside, 'back-in'));
  });

  after(() => rmSync(base, { recursive: true, force: true }));

  it('allows paths inside a workspace folder, existing or not', () => {
    assert.deepEqual(checkPath(join(workspace, 'src', 'a.ts'), [workspace]), { kind: 'inside', path: join(workspace, 'src', 'a.ts') });
    assert.deepEqual(checkPath(join(workspace, 'new', 'deep', 'b.ts'), [workspace]), { kind: 'inside', path: join(workspace, 'new', 'deep', 'b.ts') });
    assert.equal(checkPath(workspace, [workspace]).kind, 'inside');
  });

  it('refuses relative, empty and NUL paths with a reason', () => {
    assert.deepEqual(checkPath('src/a.ts', [workspace]), { kind: 'invalid', reason: 'the path must be absolute: src/a.ts' });
    assert.equal(checkPath('', [workspace]).kind, 'invalid');
    assert.equal(checkPath(42, [workspace]).kind, 'invalid');
    assert.equal(checkPath(`${workspace}/a\0b`, [workspace]).kind, 'invalid');
  });

  it('resolves .. before checking', () => {
    assert.deepEqual(checkPath(join(workspace, 'src', '..', '..', 'outside', 'secret.txt'), [workspace]), {
      kind: 'outside',
      path: join(outside, 'secret.txt'),
    });
  });

  it('resolves symlinks, including for files that do not exist yet under a linked folder', () => {
    assert.deepEqual(checkPath(join(workspace, 'escape', 'secret.txt'), [workspace]), { kind: 'outside', path: join(outside, 'secret.txt') });
    assert.deepEqual(checkPath(join(workspace, 'escape', 'new.txt'), [workspace]), { kind: 'outside', path: join(outside, 'new.txt') });
    assert.deepEqual(checkPath(join(outside, 'back-in', 'a.ts'), [workspace]), { kind: 'inside', path: join(workspace, 'src', 'a.ts') });
  });

  it('does not take a sibling with a common prefix for the folder', () => {
    assert.equal(isWithin('/work/app', '/work/app-secrets/key'), false);
    assert.equal(isWithin('/work/app', '/work/app/key'), true);
    assert.equal(isWithin('/', '/etc/passwd'), true);
  });

  it('keeps a path whose whole ancestry is missing as written', () => {
    assert.equal(realPath('/no-such-root-xyz/a/b', () => {
      throw new Error('ENOENT');
    }), '/no-such-root-xyz/a/b');
  });
});
