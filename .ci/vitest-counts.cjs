// Counts a vitest JSON report: prints "N passed, N failed" as its last line. A file that fails to
// load has no failed test in it but is a failure all the same, and so is a vitest that exited
// non-zero with nothing failed in its report (or no report at all).
// Usage: node .ci/vitest-counts.cjs REPORT VITEST_EXIT_STATUS [--slowest]
// With KILLPOINT_CI_FAILURES set to a file, each failed test (or file that failed to load) is
// appended to it as one line, its file, its name and the first line of its error, so that the end
// of CI's output names what failed whichever leg it was in.
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
if (process.env.KILLPOINT_CI_FAILURES) {
  const lines = [];
  const leg = `node ${process.versions.node}`;
  for (const f of report?.testResults ?? []) {
    const file = path.relative(process.cwd(), f.name);
    const failedTests = f.assertionResults.filter((a) => a.status === 'failed');
    for (const a of failedTests) lines.push(`${leg}: ${file} > ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    if (f.status === 'failed' && failedTests.length === 0) lines.push(`${leg}: ${file}: ${firstLine(f.message)}`);
  }
  if (lines.length === 0 && failed > 0) lines.push(`${leg}: ${reportFile}: vitest exited ${status} with no failed test in its report`);
  if (lines.length > 0) fs.appendFileSync(process.env.KILLPOINT_CI_FAILURES, lines.join('\n') + '\n');
}
if (report && slowest === '--slowest') {
  // Where the suite spends its time: the ten slowest files, each from its start to its end.
  const files = report.testResults.map((f) => ({ name: path.relative(process.cwd(), f.name), s: (f.endTime - f.startTime) / 1000 }));
  files.sort((a, b) => b.s - a.s);
  console.log('slowest test files:');
  for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
}
console.log(`${passed} passed, ${failed} failed`);

function firstLine(text) {
  const line = String(text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
