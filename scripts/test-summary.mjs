#!/usr/bin/env node
// Reads Jest's --json report and prints the closing line CI reads: "N passed, N failed".
// A suite that could not run (a compile error, a crash) counts as one failure.
import { readFileSync } from 'node:fs';

// usage: test-summary.mjs <jest-report.json> [jest exit status]
const [file, jestStatus = '0'] = process.argv.slice(2);
if (!file) {
  console.error('usage: test-summary.mjs <jest-report.json> [jest exit status]');
  process.exit(2);
}

let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`No readable Jest report at ${file}: ${error.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const passed = report.numPassedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const brokenSuites = (report.testResults ?? []).filter(
  (suite) =>
    suite.status === 'failed' &&
    (suite.assertionResults ?? []).every((test) => test.status !== 'failed'),
).length;
let failed = (report.numFailedTests ?? 0) + brokenSuites;
if (jestStatus !== '0' && failed === 0) {
  // Jest failed for a reason outside any test (for example a failed global setup).
  console.error(`Jest exited with status ${jestStatus} although no test failed`);
  failed = 1;
}

for (const suite of report.testResults ?? []) {
  if (suite.status === 'failed' && suite.message) {
    console.error(`\nFAILED ${suite.name}\n${suite.message.slice(0, 4000)}`);
  }
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
