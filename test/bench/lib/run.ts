// How a workbench benchmark starts and ends: one watchdog for the whole run, the figures on stdout, and exit code 1
// when a measurement broke (a figure over budget is reported, never a failure).

export const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Lists what broke and returns the exit code: 1 when anything did. */
export function brokenExitCode(broken: readonly string[]): number {
  if (broken.length === 0) return 0;
  out();
  out(`Broken (${broken.length}), so the exit code is 1:`);
  for (const line of broken) out(`  - ${line}`);
  return 1;
}

/** Runs `main` and exits with its code; gives up after `overallMs` (code-server's group dies with this process). */
export function runBench(name: string, overallMs: number, main: () => Promise<number>): void {
  const watchdog = setTimeout(() => {
    process.stderr.write(`${name}: still running after ${overallMs / 60_000} min; giving up\n`);
    process.exit(1);
  }, overallMs);
  watchdog.unref();
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
