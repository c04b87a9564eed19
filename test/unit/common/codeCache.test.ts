import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWithCodeCache } from '../../../src/common/codeCache';
import { FIXTURE_AGENT } from '../lib/fixture-agent';

/** Each load in a node process of its own, as each extension host is: V8 keeps what it compiled while a process lives. */
const LOADER = join(FIXTURE_AGENT, '..', 'codeCacheLoad.js');

interface Load {
  outcome: string;
  greeting: string;
  problem?: string;
}

/** A bundle as esbuild writes one: `module.exports` assigned, a sibling required, its own file and folder read. */
const bundle = (word: string) => `"use strict";
const helper = require('./helper.js');
module.exports = { greet: (name) => '${word}, ' + name + '!', helper: helper.name, where: { file: __filename, dir: __dirname }, stack: () => new Error('here').stack };
`;

describe('loadWithCodeCache (the core compiled from its code cache)', () => {
  let base: string;
  let dist: string;
  let cache: string;
  let file: string;
  const caches = () => readdirSync(cache).sort();
  const load = (save = true): Load =>
    JSON.parse(execFileSync(process.execPath, [LOADER, file, cache, ...(save ? ['--save'] : [])], { encoding: 'utf8', timeout: 15_000 })) as Load;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'acp-code-cache-')));
    dist = join(base, 'dist');
    cache = join(base, 'storage', 'code-cache');
    mkdirSync(dist);
    file = join(dist, 'main.js');
    writeFileSync(join(dist, 'helper.js'), "exports.name = 'the helper';\n");
    writeFileSync(file, bundle('Hello'));
  });

  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('loads a module as require would: its exports, its own require, file and folder', () => {
    const loaded = loadWithCodeCache<{ greet(name: string): string; helper: string; where: unknown; stack(): string }>(file, cache);
    assert.equal(loaded.outcome, 'none');
    assert.equal(loaded.exports.greet('Ada'), 'Hello, Ada!');
    assert.equal(loaded.exports.helper, 'the helper');
    assert.deepEqual(loaded.exports.where, { file, dir: dist });
    // Stack traces name the module's own lines, as with require.
    assert.match(loaded.exports.stack(), new RegExp(`${file.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}:3:\\d+`));
  });

  it('compiles afresh the first time, and takes the code from the cache in the next process', () => {
    assert.deepEqual(load(), { outcome: 'none', greeting: 'Hello, Ada!' });
    assert.equal(caches().length, 1);
    assert.match(caches()[0]!, /^code-main-[0-9a-f]{32}\.v8cache$/);
    const written = readFileSync(join(cache, caches()[0]!));
    assert.deepEqual(load(), { outcome: 'used', greeting: 'Hello, Ada!' });
    // A load that used the cache writes nothing.
    assert.deepEqual(readFileSync(join(cache, caches()[0]!)), written);
  });

  it('compiles a changed bundle afresh, even one of the same length, and its cache replaces the old one', () => {
    load();
    const old = caches();
    writeFileSync(file, bundle('Howdy')); // as long as 'Hello': V8's own check would take the old code
    assert.deepEqual(load(), { outcome: 'none', greeting: 'Howdy, Ada!' });
    assert.equal(caches().length, 1);
    assert.notDeepEqual(caches(), old);
    assert.deepEqual(load(false), { outcome: 'used', greeting: 'Howdy, Ada!' });
  });

  it('compiles afresh when V8 refuses the cache, and writes a good one', () => {
    load();
    const name = caches()[0]!;
    const garbage = Buffer.from('not a code cache at all, but about as long as one could be. '.repeat(20));
    writeFileSync(join(cache, name), Buffer.concat([createHash('sha256').update(garbage).digest(), garbage]));
    assert.deepEqual(load(), { outcome: 'refused', greeting: 'Hello, Ada!' });
    assert.deepEqual(caches(), [name]);
    assert.deepEqual(load(false), { outcome: 'used', greeting: 'Hello, Ada!' });
  });

  it('never gives V8 a damaged cache (V8 checks only its header), and writes a good one', () => {
    load();
    const file = join(cache, caches()[0]!);
    const good = readFileSync(file);
    for (const at of [32 + 24, 32 + 60, good.length - 1]) {
      const damaged = Buffer.from(good);
      damaged[at] = damaged[at]! ^ 0xff;
      writeFileSync(file, damaged);
      assert.deepEqual(load(false), { outcome: 'damaged', greeting: 'Hello, Ada!' }, `a byte changed at ${at}`);
    }
    writeFileSync(file, good.subarray(0, 20));
    assert.deepEqual(load(), { outcome: 'damaged', greeting: 'Hello, Ada!' });
    assert.deepEqual(load(false), { outcome: 'used', greeting: 'Hello, Ada!' });
  });

  it('says why a cache cannot be written, and the load stands', () => {
    mkdirSync(join(base, 'storage'));
    writeFileSync(cache, 'a file where the cache folder would be');
    const { outcome, greeting, problem } = load();
    assert.deepEqual({ outcome, greeting }, { outcome: 'none', greeting: 'Hello, Ada!' });
    assert.match(problem ?? '', /^could not write the code cache .*code-main-[0-9a-f]{32}\.v8cache: /);
  });

  it('removes a half-written cache a process left long ago, not one being written now, nor other bundles’ caches', () => {
    mkdirSync(cache, { recursive: true });
    const key = 'a'.repeat(32);
    const abandoned = `code-main-${key}.v8cache.4242.partial`;
    const young = `code-main-${key}.v8cache.4343.partial`;
    const older = `code-main-${key}.v8cache`;
    const other = `code-other-${key}.v8cache`;
    for (const name of [abandoned, young, older, other]) writeFileSync(join(cache, name), 'x');
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(join(cache, abandoned), hourAgo, hourAgo);
    load();
    const left = caches();
    const current = left.filter((name) => /^code-main-[0-9a-f]{32}\.v8cache$/.test(name));
    assert.equal(current.length, 1, left.join(', '));
    assert.notEqual(current[0], older);
    assert.ok(left.includes(young) && left.includes(other), left.join(', '));
    assert.equal(left.length, 3, left.join(', '));
  });
});
