// killpoint/vitest in a vitest 5 suite, as a user on today's stack has it: an empty project of its
// own with vitest 5, LangGraph and the packed tarball, installed with a plain `npm install` on the
// Node that runs this test, and one killpointTests line per graph. The keyed graph passes; the graph
// without keys fails with its refund done twice and the command that replays it.
//
// vitest 5 needs Node 22.12 or later: on Node 20 this file says so and runs nothing; CI runs it
// under Node 22 and 24 (.ci/run).

import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { cleanEnv, packTarball, run, warmNativeAddon } from './user-project.js';

const VITEST_5 = '5.1.2';
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const VITEST_5_RUNS_HERE = major > 22 || (major === 22 && minor >= 12);
const EXAMPLE = join(PROJECT_ROOT, 'examples', 'support-agent-langgraph');

const SUITE = `import { readFileSync } from 'node:fs';
import { killpointTests } from 'killpoint/vitest';

const input = JSON.parse(readFileSync('input.json', 'utf8'));
killpointTests('keyed', { langgraph: 'src/agent-keyed.ts', input, interleavingBound: 1 });
killpointTests('unkeyed', { langgraph: 'src/agent.ts', input, interleavingBound: 1 });
`;

let work: string | undefined;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The example's graphs in a project of their own whose devDependencies ask for vitest 5. */
function makeProject(): string {
  work = mkdtempSync(join(tmpdir(), 'killpoint-vitest5-'));
  const packed = packTarball(work);
  const dir = join(work, 'project');
  mkdirSync(join(dir, 'test'), { recursive: true });
  cpSync(join(EXAMPLE, 'src'), join(dir, 'src'), { recursive: true });
  copyFileSync(join(EXAMPLE, 'input.json'), join(dir, 'input.json'));
  copyFileSync(packed, join(dir, 'killpoint.tgz'));
  const example = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const devDependencies = { ...example.devDependencies, vitest: VITEST_5 };
  delete (devDependencies as Record<string, string>).vite;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vitest5-user-project', private: true, type: 'module', devDependencies }, null, 2));
  writeFileSync(join(dir, 'test', 'agent.test.ts'), SUITE);
  return dir;
}

describe.skipIf(!VITEST_5_RUNS_HERE)(`a vitest ${VITEST_5} project (needs Node 22.12 or later; this is ${process.versions.node})`, () => {
  test('installs with killpoint from the tarball; killpointTests passes the keyed graph and fails the unkeyed one with its refund done twice', async () => {
    warmNativeAddon();
    const dir = makeProject();
    const install = await run('npm', ['install'], dir);
    expect(install.output).not.toMatch(/ERESOLVE/);
    expect(install.status, install.output).toBe(0);
    const vitest = await run('npx', ['vitest', 'run', '--reporter=json', '--outputFile=report.json'], dir);
    expect(existsSync(join(dir, 'report.json')), vitest.output).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[] };
    const results = report.testResults.flatMap((f) => f.assertionResults);
    expect(execFileSync('npx', ['vitest', '--version'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' })).toMatch(new RegExp(`vitest/${VITEST_5.replaceAll('.', '\\.')}`));
    expect(results.map((r) => [r.fullName.split(' ')[0], r.status]), vitest.output).toEqual([['keyed', 'passed'], ['unkeyed', 'failed']]);
    expect(results[1]!.failureMessages.join('\n')).toMatch(/refund O-7\/L1 committed twice/);
    expect(results[1]!.failureMessages.join('\n')).toMatch(/replay: npx killpoint check --langgraph src\/agent\.ts/);
    expect(vitest.status).toBe(1);
  }, 600_000);
});
