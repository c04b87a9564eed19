// `npm run bench:text`: each worst-case text input (test/lib/textCases.ts) timed at 256 KB and at 1 MB. A linear
// function takes about 4 times as long on the larger; a quadratic one about 16 times. Prints the figures; a case
// that throws is reported and makes the exit code 1.
import { TEXT_CASES } from '../lib/textCases';
import { brokenExitCode, out, runBench } from './lib/run';

const SMALL = 256 * 1024;
const LARGE = 1024 * 1024;

function time(run: (input: unknown) => void, input: unknown): number {
  const started = process.hrtime.bigint();
  run(input);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The best of three: the least disturbed by the rest of the machine. */
function best(run: (input: unknown) => void, bytes: number, make: (bytes: number) => unknown): number {
  return Math.min(...[0, 1, 2].map(() => time(run, make(bytes))));
}

runBench('bench:text', 10 * 60_000, async () => {
  const broken: string[] = [];
  out(
    `Worst-case text inputs: ms at ${SMALL / 1024} KB and ${LARGE / 1024} KB, and their ratio (linear ≈ ${LARGE / SMALL}, quadratic ≈ ${(LARGE / SMALL) ** 2})`,
  );
  out();
  for (const textCase of TEXT_CASES) {
    const run = textCase.run as (input: unknown) => void;
    try {
      const small = best(run, SMALL, textCase.make);
      const large = best(run, LARGE, textCase.make);
      out(
        `${large.toFixed(1).padStart(9)} ms  ${small.toFixed(1).padStart(8)} ms  ×${(large / Math.max(small, 0.01)).toFixed(1).padStart(5)}  ${textCase.name}`,
      );
    } catch (error) {
      broken.push(`${textCase.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return brokenExitCode(broken);
});
