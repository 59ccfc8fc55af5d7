#!/usr/bin/env node
// Reads one or more Jest --json reports and prints the closing line CI reads:
// "N passed, N failed", totalled over every report. A suite that could not run (a compile error,
// a crash) counts as one failure, and so does a run whose report is missing or unreadable, or
// whose Jest exited non-zero although no test failed.
import { readFileSync } from 'node:fs';

const USAGE =
  'usage: test-summary.mjs <jest-report.json> <jest exit status> [<report> <status> ...]';
const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error(USAGE);
  process.exit(2);
}

let [passed, failed, skipped] = [0, 0, 0];
const lines = [];

for (let i = 0; i < args.length; i += 2) {
  const [file, jestStatus] = args.slice(i, i + 2);
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`No readable Jest report at ${file}: ${error.message}`);
    lines.push(`${file}: no report`);
    failed += 1;
    continue;
  }
  const runPassed = report.numPassedTests ?? 0;
  let runFailed = report.numFailedTests ?? 0;
  for (const suite of (report.testResults ?? []).filter((s) => s.status === 'failed')) {
    // A failed suite with no failed test could not run.
    if ((suite.assertionResults ?? []).every((test) => test.status !== 'failed')) runFailed += 1;
    if (suite.message) console.error(`\nFAILED ${suite.name}\n${suite.message.slice(0, 4000)}`);
  }
  if (jestStatus !== '0' && runFailed === 0) {
    // Jest failed for a reason outside any test (for example a failed global setup).
    console.error(`${file}: Jest exited with status ${jestStatus} although no test failed`);
    runFailed = 1;
  }
  lines.push(`${file}: ${runPassed} passed, ${runFailed} failed`);
  passed += runPassed;
  failed += runFailed;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

if (args.length > 2) for (const line of lines) console.log(`  ${line}`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
