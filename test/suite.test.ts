// The heavy files that run a sample under `npm test` (test/suite.ts) are the files `npm run
// engines` runs whole: a file left out of the script would have its other tests run by nothing in
// CI, and a file named there that takes no sample runs twice for nothing.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

/** The test files `npm run engines` names, as written in package.json's script. */
function filesOfScript(script: string): string[] {
  return script.split(/\s+/).filter((word) => word.endsWith('.test.ts')).sort();
}

/** The files under test/ that import test/suite.ts (a line of its own), by their path from the project's root. */
function filesTakingSamples(sources: Record<string, string>): string[] {
  return Object.entries(sources).filter(([, source]) => /^import .* from '\.\/suite\.js';$/m.test(source)).map(([file]) => file).sort();
}

/** Each file one list has and the other lacks, said in one line each. */
function mismatches(inScript: string[], takingSamples: string[]): string[] {
  return [
    ...takingSamples.filter((f) => !inScript.includes(f)).map((f) => `${f} runs a sample, but npm run engines does not name it`),
    ...inScript.filter((f) => !takingSamples.includes(f)).map((f) => `npm run engines names ${f}, which runs no sample of itself`),
  ];
}

describe('npm run engines', () => {
  const script = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['engines']!;
  const testDir = join(PROJECT_ROOT, 'test');
  const sources = Object.fromEntries(readdirSync(testDir).filter((f) => f.endsWith('.test.ts')).map((f) => [`test/${f}`, readFileSync(join(testDir, f), 'utf8')]));

  test('runs with KILLPOINT_SUITE=all every file that runs a sample of itself under npm test, and no other', () => {
    expect(script).toMatch(/^KILLPOINT_SUITE=all vitest run /);
    expect(filesTakingSamples(sources).length).toBeGreaterThanOrEqual(5);
    expect(mismatches(filesOfScript(script), filesTakingSamples(sources))).toEqual([]);
  });

  test('a file left out of the script, or named there without a sample, is said', () => {
    const taking = filesTakingSamples({ 'test/a.test.ts': "import { fullSuiteTest } from './suite.js';", 'test/b.test.ts': "import { it } from 'vitest';" });
    expect(taking).toEqual(['test/a.test.ts']);
    expect(mismatches(filesOfScript('KILLPOINT_SUITE=all vitest run test/b.test.ts'), taking)).toEqual([
      'test/a.test.ts runs a sample, but npm run engines does not name it',
      'npm run engines names test/b.test.ts, which runs no sample of itself',
    ]);
  });
});
