// Every function that runs over text an agent, a workspace, a terminal or a registry controls, on its worst known
// input of 1 MB: each returns what it should, within the test's time bound (a quadratic one would take minutes).
// The figures are `npm run bench:text`'s.
import { TEXT_CASES } from '../lib/textCases';

describe('text an agent or a workspace controls, at its worst (1 MB)', () => {
  for (const textCase of TEXT_CASES) {
    it(textCase.name, () => {
      const run = textCase.run as (input: unknown) => void;
      run(textCase.make(1024 * 1024));
    });
  }
});
