// Paths in and out of the editor's tools, on a real folder: relative paths are the session's folders', a multi-root
// path may name its folder first, and nothing outside the folders is reached, a link out included; answers bounded to
// 64 KB keep the first entries that fit and say how many were cut.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shownPath, toolPath } from '../../../src/editorTools/paths';
import { bounded } from '../../../src/editorTools/tools';

describe('editor tools: paths and bounds', () => {
  let root: string;
  let one: string;
  let two: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-tools-')));
    one = join(root, 'one');
    two = join(root, 'two');
    mkdirSync(join(one, 'src'), { recursive: true });
    mkdirSync(two);
    writeFileSync(join(one, 'src', 'a.ts'), 'a');
    writeFileSync(join(two, 'notes.md'), 'n');
    writeFileSync(join(root, 'secret.txt'), 's');
    symlinkSync(join(root, 'secret.txt'), join(one, 'link.txt'));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('takes relative paths in the session’s folders, absolute ones inside them, and a folder’s name first', () => {
    assert.deepEqual(toolPath('src/a.ts', [one, two]), { path: join(one, 'src', 'a.ts') });
    assert.deepEqual(toolPath('notes.md', [one, two]), { path: join(two, 'notes.md') }, 'the folder that has it');
    assert.deepEqual(toolPath('two/notes.md', [one, two]), { path: join(two, 'notes.md') });
    assert.deepEqual(toolPath(join(one, 'src', 'a.ts'), [one]), { path: join(one, 'src', 'a.ts') });
    assert.equal(shownPath(join(one, 'src', 'a.ts'), [one]), 'src/a.ts');
    assert.equal(shownPath(join(two, 'notes.md'), [one, two]), 'two/notes.md');
    assert.equal(shownPath('/elsewhere/x.ts', [one]), '/elsewhere/x.ts');
  });

  it('reaches nothing outside the folders: not by .., not absolute, not through a link', () => {
    assert.match(JSON.stringify(toolPath('../secret.txt', [one])), /outside this session's workspace/);
    assert.match(JSON.stringify(toolPath(join(root, 'secret.txt'), [one])), /outside this session's workspace/);
    assert.match(JSON.stringify(toolPath('link.txt', [one])), /outside this session's workspace/);
    // A missing file inside is inside (opening it then says it is missing), as the path policy has it for fs/*.
    assert.deepEqual(toolPath('src/missing.ts', [one]), { path: join(one, 'src', 'missing.ts') });
    assert.match(JSON.stringify(toolPath('a\0b', [one])), /not valid/);
    assert.match(JSON.stringify(toolPath('src/a.ts', [])), /no workspace folder/);
  });

  it('bounds an answer: the first entries that fit and a note, or cut text with a note', () => {
    const small = { items: [1, 2, 3] };
    assert.equal(bounded(small), JSON.stringify(small));
    const many = { items: Array.from({ length: 5000 }, (_, i) => ({ path: `src/file${i}.ts`, line: i })) };
    const out = JSON.parse(bounded(many, 4096)) as { items: unknown[]; cut: string };
    assert.ok(Buffer.byteLength(bounded(many, 4096)) <= 4096);
    assert.ok(out.items.length > 10 && out.items.length < 5000);
    assert.deepEqual(out.items[0], many.items[0], 'the first ones');
    assert.match(out.cut, new RegExp(`^${5000 - out.items.length} of 5000 entries were cut`));
    const text = bounded({ markdown: 'x'.repeat(10_000) }, 4096);
    assert.ok(Buffer.byteLength(text) <= 4096);
    assert.match(text, /\[cut: the answer is bounded at 4 KB\]$/);
  });
});
