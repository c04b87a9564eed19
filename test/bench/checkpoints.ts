// `npm run bench:checkpoints`: what a checkpoint costs on folders of 1k, 10k and 50k files.
//
// Each folder is realistic: nested packages and modules, text files of 1 to 4 KB, and a .gitignore that ignores a
// build folder full of output. For each size it prints, for our shadow repository (src/checkpoints/shadowGit.ts):
// the first snapshot, an unchanged snapshot, a snapshot after 10 files changed, and a diff of that change; and as
// the baseline, measured in the same run on the same tree, `git status --porcelain` in a real git repository of the
// same files (the folder itself, committed). Budget: an unchanged snapshot of 10,000 files well under 200 ms.
//
// Environment: BENCH_SIZES (default "1000,10000,50000"), BENCH_RUNS (default 5; each figure but the first snapshot
// is the median of that many).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShadowRepo } from '../../src/checkpoints/shadowGit';
import { random } from './lib/random';
import { brokenExitCode, out, runBench } from './lib/run';

const SIZES = (process.env['BENCH_SIZES'] ?? '1000,10000,50000').split(',').map(Number);
const RUNS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 5));
const BUDGET_MS = 200;
const CHANGED = 10;

/** `count` files under packages/ (nested: package / src / module / part), 1 to 4 KB each, plus an ignored build folder. */
function makeTree(folder: string, count: number): string[] {
  const next = random(count);
  const files: string[] = [];
  const made = new Set<string>();
  for (let i = 0; i < count; i++) {
    // About 15 files a folder, as in a real source tree: 20 packages of 30 modules, in parts of 9,000 files.
    const d = Math.floor(i / 15);
    const dir = `packages/pkg${d % 20}/src/module${Math.floor(d / 20) % 30}/part${Math.floor(d / 600)}`;
    if (!made.has(dir)) {
      mkdirSync(join(folder, dir), { recursive: true });
      made.add(dir);
    }
    const rel = `${dir}/file${i}.ts`;
    const lines = Math.round((1024 + next() * 3072) / 40);
    let text = '';
    for (let line = 0; line < lines; line++) text += `export const value${line} = ${Math.floor(next() * 1e9)}; //pad\n`;
    writeFileSync(join(folder, rel), text);
    files.push(rel);
  }
  writeFileSync(join(folder, '.gitignore'), 'build/\nnode_modules/\n');
  mkdirSync(join(folder, 'build'));
  for (let i = 0; i < 500; i++) writeFileSync(join(folder, 'build', `out${i}.js`), `// build output ${i}\n`);
  return files;
}

function userGit(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });
  return execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const ms = (value: number) => `${value.toFixed(1).padStart(8)} ms`;

async function benchSize(count: number, broken: string[]): Promise<{ unchanged: number }> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'acp-bench-checkpoints-')));
  try {
    const folder = join(base, 'workspace');
    mkdirSync(folder);
    const files = makeTree(folder, count);
    // The baseline: the same folder as a real repository, all committed.
    userGit(folder, 'init', '-q');
    userGit(folder, 'add', '-A');
    userGit(folder, 'commit', '-q', '-m', 'tree');

    const repo = await ShadowRepo.open({ git: 'git', gitDir: join(base, 'storage', 'checkpoints', 'bench.git'), workTree: folder });
    try {
      const first = await timed(() => repo.snapshot('bench/0'));
      const tracked = userGit(
        folder,
        `--git-dir=${join(base, 'storage', 'checkpoints', 'bench.git')}`,
        'ls-tree',
        '-r',
        '--name-only',
        first.value.commit,
      )
        .split('\n')
        .filter(Boolean).length;
      if (tracked !== count + 1) broken.push(`${count} files: the first snapshot holds ${tracked} files, expected ${count + 1}`);

      const unchanged: number[] = [];
      const status: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        unchanged.push((await timed(() => repo.snapshot(`bench/unchanged-${run}`))).ms);
        const result = await timed(() => userGit(folder, 'status', '--porcelain'));
        if (result.value !== '') broken.push(`${count} files: git status of the unchanged tree was not empty`);
        status.push(result.ms);
      }

      const changed: number[] = [];
      const changedStatus: number[] = [];
      const diffs: number[] = [];
      let last = first.value;
      const next = random(count + 1);
      for (let run = 0; run < RUNS; run++) {
        for (let i = 0; i < CHANGED; i++) {
          const rel = files[Math.floor(next() * files.length)] as string;
          writeFileSync(join(folder, rel), `// changed in run ${run}\n`, { flag: 'a' });
        }
        const snap = await timed(() => repo.snapshot(`bench/changed-${run}`));
        changed.push(snap.ms);
        changedStatus.push((await timed(() => userGit(folder, 'status', '--porcelain'))).ms);
        const diff = await timed(() => repo.diff(last.commit, snap.value.commit));
        if (diff.value.length < 1 || diff.value.length > CHANGED)
          broken.push(`${count} files: the diff of run ${run} has ${diff.value.length} files`);
        diffs.push(diff.ms);
        last = snap.value;
      }

      const u = median(unchanged);
      const s = median(status);
      const c = median(changed);
      const cs = median(changedStatus);
      out(`${count.toLocaleString('en-US')} files:`);
      out(`  first snapshot              ${ms(first.ms)}`);
      out(`  unchanged snapshot          ${ms(u)}   git status ${ms(s)}   ratio ${(u / s).toFixed(2)}x`);
      out(`  snapshot after ${CHANGED} changes   ${ms(c)}   git status ${ms(cs)}   ratio ${(c / cs).toFixed(2)}x`);
      out(`  diff of ${CHANGED} changes          ${ms(median(diffs))}`);
      return { unchanged: u };
    } finally {
      repo.dispose();
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

runBench('bench:checkpoints', 30 * 60_000, async () => {
  const broken: string[] = [];
  out(
    `git ${userGit(tmpdir(), '--version')
      .trim()
      .replace(/^git version /, '')}, node ${process.version}, load ${loadavg()[0]?.toFixed(2)}`,
  );
  out(`medians of ${RUNS} runs (the first snapshot is one run)`);
  out();
  const results = new Map<number, number>();
  for (const size of SIZES) results.set(size, (await benchSize(size, broken)).unchanged);
  const tenK = results.get(10_000);
  if (tenK !== undefined) {
    out();
    out(`unchanged snapshot of 10,000 files: ${tenK.toFixed(1)} ms (budget < ${BUDGET_MS} ms, ${tenK < BUDGET_MS ? 'met' : 'MISSED'})`);
  }
  return brokenExitCode(broken);
});
