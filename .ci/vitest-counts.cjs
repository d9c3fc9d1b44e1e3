// Counts a vitest JSON report: prints "N passed, N failed" as its last line. A file that fails to
// load has no failed test in it but is a failure all the same, and so is a vitest that exited
// non-zero with nothing failed in its report (or no report at all).
// Usage: node .ci/vitest-counts.cjs REPORT VITEST_EXIT_STATUS [--slowest]
const fs = require('fs');
const path = require('path');
const [reportFile, status, slowest] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let report;
try {
  report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  passed = report.numPassedTests;
  const brokenFiles = report.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'));
  failed = report.numFailedTests + brokenFiles.length;
} catch {
  failed = 1;
}
if (status !== '0' && failed === 0) failed = 1;
if (report && slowest === '--slowest') {
  // Where the suite spends its time: the ten slowest files, each from its start to its end.
  const files = report.testResults.map((f) => ({ name: path.relative(process.cwd(), f.name), s: (f.endTime - f.startTime) / 1000 }));
  files.sort((a, b) => b.s - a.s);
  console.log('slowest test files:');
  for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
}
console.log(`${passed} passed, ${failed} failed`);
