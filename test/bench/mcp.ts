// `npm run bench:mcp`: the latency of the editor tools' MCP calls, p50 and p99, for get_diagnostics, find_references
// and workspace_symbols on a TypeScript workspace of 1,000 files, against calling the same VS Code API directly in the
// same run (see mcpHost.ts, which the extension host runs). A benchmark, not a test: it prints figures and exits 0
// unless something broke. Environment: BENCH_CALLS (default 40) calls of each.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runIntegration } from '../harness/lib/integration';
import { ensureToolchain } from '../harness/lib/setup';
import { repoRoot } from '../ui/lib/workbench';
import { brokenExitCode, out, runBench } from './lib/run';

interface Figures {
  readonly files: number;
  readonly calls: number;
  readonly direct: Record<string, number[]>;
  readonly viaMcp: Record<string, number[]>;
  readonly hostile: { requests: number; seconds: number; statuses: Record<string, number>; heapGrowthMb: number; directCallDuringMs: number };
  readonly broken: string[];
}

function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const f = (x: number) => `${x.toFixed(1)} ms`.padStart(10);

runBench('bench:mcp', 20 * 60_000, async () => {
  const workDir = join(repoRoot, 'test-output', 'work', 'bench-mcp');
  const resultsFile = join(workDir, '..', 'bench-mcp.json');
  const run = await runIntegration({
    toolchain: await ensureToolchain({ browser: true }),
    repoRoot,
    workDir,
    resultsFile,
    timeoutMs: 15 * 60_000,
    testsPath: join(repoRoot, 'out', 'test', 'bench', 'mcpHost.js'),
  });
  if (!existsSync(resultsFile)) return brokenExitCode([`the extension host wrote no figures (exit ${run.exitCode}); see ${workDir}`]);
  const figures = JSON.parse(readFileSync(resultsFile, 'utf8')) as Figures;
  out(`a TypeScript workspace of ${figures.files} files, ${figures.calls} calls of each tool, each way`);
  out(
    `${'tool'.padEnd(20)}${'direct p50'.padStart(12)}${'direct p99'.padStart(12)}${'MCP p50'.padStart(12)}${'MCP p99'.padStart(12)}   MCP p50 - direct p50`,
  );
  for (const tool of Object.keys(figures.direct)) {
    const d = figures.direct[tool]!;
    const m = figures.viaMcp[tool] ?? [];
    out(
      `${tool.padEnd(20)}${f(percentile(d, 50))}  ${f(percentile(d, 99))}  ${f(percentile(m, 50))}  ${f(percentile(m, 99))}   ${percentile(m, 50) - percentile(d, 50) >= 0 ? '+' : ''}${(percentile(m, 50) - percentile(d, 50)).toFixed(1)} ms`,
    );
  }
  const h = figures.hostile;
  out();
  out(
    `a hostile client: ${h.requests} requests in ${h.seconds.toFixed(1)} s (2,000 without a secret, 100 bodies of 300 KB, 200 reference searches at once)`,
  );
  out(
    `  answered: ${Object.entries(h.statuses)
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ')}`,
  );
  out(`  (0: the connection was closed before an answer, as for a body past the bound)`);
  out(
    `  the host's heap kept ${h.heapGrowthMb.toFixed(1)} MB more afterwards; a direct API call meanwhile took at most ${h.directCallDuringMs.toFixed(1)} ms`,
  );
  const broken = [...figures.broken];
  if ((h.statuses['200'] ?? 0) > 200) broken.push('requests without a secret or too large were served');
  return brokenExitCode(broken);
});
