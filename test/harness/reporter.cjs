// Mocha reporter for every layer: mocha's spec output, plus a JSON summary (counts and failures) written to the
// file named by ACP_TEST_RESULTS, from which the harness prints each layer's totals.
'use strict';
const Mocha = require('mocha');
const { writeFileSync } = require('node:fs');

class HarnessReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const file = process.env.ACP_TEST_RESULTS;
    const tests = [];
    const record = (state) => (test, error) =>
      tests.push({
        title: test.fullTitle(),
        state,
        durationMs: test.duration ?? 0,
        error: error ? String((error && error.stack) || error) : undefined,
      });
    runner.on('pass', record('passed'));
    runner.on('fail', record('failed'));
    runner.on('pending', record('pending'));
    runner.once('end', () => {
      if (file) writeFileSync(file, JSON.stringify({ stats: this.stats, tests }, null, 2));
    });
  }
}

module.exports = HarnessReporter;
