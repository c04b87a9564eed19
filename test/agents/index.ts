// Entry point of the agents layer inside a real extension host: every out/test/agents/**/*.test.js, run as the
// integration suite runs (test/integration/index.ts).
import { runSuite } from '../integration/index';

export function run(): Promise<void> {
  return runSuite(__dirname);
}
