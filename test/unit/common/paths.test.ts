import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import { checkPath, isWithin, MAX_LINKS, networkPathRefusal, realPath } from '../../../src/common/paths';

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
    assert.deepEqual(checkPath(join(workspace, 'new', 'deep', 'b.ts'), [workspace]), {
      kind: 'inside',
      path: join(workspace, 'new', 'deep', 'b.ts'),
    });
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
    assert.equal(realPath('/no-such-root-xyz/a/../b/./c'), '/no-such-root-xyz/b/c');
  });

  describe('against a hostile agent or repository', () => {
    it('takes a dangling link inside the workspace that points outside for outside', () => {
      symlinkSync(join(outside, 'not-yet.txt'), join(workspace, 'dangling-out'));
      assert.deepEqual(checkPath(join(workspace, 'dangling-out'), [workspace]), { kind: 'outside', path: join(outside, 'not-yet.txt') });
      // A relative target, under a missing folder, through a link to a folder: still resolved.
      symlinkSync('../../outside/new/deeper', join(workspace, 'src', 'dangling-rel'));
      assert.deepEqual(checkPath(join(workspace, 'src', 'dangling-rel', 'f.txt'), [workspace]), {
        kind: 'outside',
        path: join(outside, 'new', 'deeper', 'f.txt'),
      });
    });

    it('keeps a dangling link that points inside the workspace inside', () => {
      symlinkSync('src/later.ts', join(workspace, 'dangling-in'));
      assert.deepEqual(checkPath(join(workspace, 'dangling-in'), [workspace]), { kind: 'inside', path: join(workspace, 'src', 'later.ts') });
    });

    it('follows a chain of links, each level resolved', () => {
      // workspace/chain1 -> chain2 -> ../outside-ish link -> outside (dangling at the end).
      symlinkSync(join(outside, 'end.txt'), join(workspace, 'chain3'));
      symlinkSync('chain3', join(workspace, 'chain2'));
      symlinkSync(join(workspace, 'chain2'), join(workspace, 'chain1'));
      assert.deepEqual(checkPath(join(workspace, 'chain1'), [workspace]), { kind: 'outside', path: join(outside, 'end.txt') });
      symlinkSync(join(workspace, 'src'), join(workspace, 'chain-in2'));
      symlinkSync('chain-in2', join(workspace, 'chain-in1'));
      assert.deepEqual(checkPath(join(workspace, 'chain-in1', 'x', 'y.ts'), [workspace]), {
        kind: 'inside',
        path: join(workspace, 'src', 'x', 'y.ts'),
      });
    });

    it('takes a link loop, or too many links, for outside', () => {
      symlinkSync('loop-b', join(workspace, 'loop-a'));
      symlinkSync('loop-a', join(workspace, 'loop-b'));
      assert.deepEqual(checkPath(join(workspace, 'loop-a', 'f.txt'), [workspace]), { kind: 'outside', path: join(workspace, 'loop-a', 'f.txt') });
      // A chain one link longer than followed, ending inside the workspace.
      for (let i = 0; i <= MAX_LINKS; i++) symlinkSync(i === MAX_LINKS ? 'src' : `long-${i + 1}`, join(workspace, `long-${i}`));
      assert.equal(checkPath(join(workspace, 'long-0', 'new.ts'), [workspace]).kind, 'outside');
      assert.equal(checkPath(join(workspace, `long-1`, 'new.ts'), [workspace]).kind, 'inside');
    });

    it('refuses very long paths at once, without quoting them whole', () => {
      for (const size of [200_000, 1_000_000]) {
        const long = `${workspace}${'/a'.repeat(size / 2)}`;
        // Its time is bench:text's ("an agent's path of a megabyte").
        const verdict = checkPath(long, [workspace]);
        assert.equal(verdict.kind, 'invalid');
        assert.ok(verdict.kind === 'invalid' && verdict.reason.length < 200, 'a short reason');
      }
    });

    it('keeps a long path that is missing from a depth on as written, under the real folder', () => {
      const tail = '/a'.repeat(2000);
      assert.deepEqual(checkPath(`${join(workspace, 'escape')}${tail}`, [workspace]), { kind: 'outside', path: `${outside}${tail}` });
    });
  });
});

describe('Windows paths an agent gives, before anything touches them (path.win32)', () => {
  const roots = ['C:\\work\\app', '\\\\fileserver\\team\\app'];
  it('takes drive paths, in either case and with either slash, to the usual check', () => {
    for (const p of ['C:\\work\\app\\a.ts', 'c:/work/app/a.ts', 'D:\\elsewhere\\b.ts'])
      assert.equal(networkPathRefusal(p, roots, win32), undefined, p);
  });
  it('refuses a UNC path on another machine or share, which would hand it the user’s credentials, and device paths', () => {
    assert.match(networkPathRefusal('\\\\attacker.example\\share\\x.txt', roots, win32) ?? '', /on another machine/);
    assert.match(networkPathRefusal('//attacker.example/share/x.txt', roots, win32) ?? '', /on another machine/);
    assert.match(networkPathRefusal('\\\\fileserver\\other\\x.txt', roots, win32) ?? '', /on another machine/, 'another share of the same server');
    assert.match(networkPathRefusal('\\\\?\\C:\\work\\app\\a.ts', roots, win32) ?? '', /device path/);
    assert.match(networkPathRefusal('\\\\.\\pipe\\acp-editor-tools', roots, win32) ?? '', /device path/);
  });
  it('takes a UNC path on the share of a workspace folder (a workspace on a network drive)', () => {
    assert.equal(networkPathRefusal('\\\\FileServer\\Team\\app\\a.ts', roots, win32), undefined);
  });
  it('leaves POSIX paths alone', () => {
    assert.equal(networkPathRefusal('//server/share/x', ['/w']), undefined);
  });
});
