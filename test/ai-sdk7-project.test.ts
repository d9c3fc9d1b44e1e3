// killpoint/ai-sdk with the AI SDK 7, as a user on today's stack has it: the ai-sdk-agent example
// in an empty project of its own with `ai` 7 in place of 6, the packed tarball, and a plain
// `npm install` on the Node that runs this test. killpoint's optional peers must admit ai 7 (before
// they did, npm refused the tree: ERESOLVE), and the scripted model must drive ai 7's generateText:
// the keyed agent survives the kill in the gap, the agent without keys refunds Dana twice there.
//
// ai 7 needs Node 22: on Node 20 this file says so and runs nothing; CI runs it under Node 22 and
// 24 (.ci/node-leg).

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { packTarball, run, warmNativeAddon } from './user-project.js';

const AI_7 = '7.0.185';
const AI_7_RUNS_HERE = Number(process.versions.node.split('.')[0]) >= 22;
const EXAMPLE = join(PROJECT_ROOT, 'examples', 'ai-sdk-agent');

// Event 13 of the first life is the refund's commit in the shop (the example's own test says so).
const SUITE = `import { expect, test } from 'vitest';
import { checkAgentSchedule } from 'killpoint';

const agent = ['node', '--import', 'tsx', 'src/agent.ts'];

test('keyed: a kill in the gap, and the refund is done once', async () => {
  const replay = await checkAgentSchedule({ agent }, [13]);
  expect(replay.ok).toBe(true);
}, 300_000);

test('without keys: a kill in the gap, and the refund is done twice', async () => {
  const replay = await checkAgentSchedule({ agent: [...agent, '--no-keys'] }, [13]);
  expect(replay.ok).toBe(false);
  expect(replay.failure.killAt).toEqual(['shop-commit[call_refund]']);
  expect(replay.failure.failed).toContain('done-twice');
}, 300_000);
`;

let work: string | undefined;
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The example as a project of its own whose devDependencies ask for ai 7. */
function makeProject(): string {
  work = mkdtempSync(join(tmpdir(), 'killpoint-ai7-'));
  const packed = packTarball(work);
  const dir = join(work, 'project');
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !/node_modules|killpoint-corpus|\.tgz$/.test(src) });
  cpSync(packed, join(dir, 'killpoint.tgz'));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  manifest.devDependencies.ai = AI_7;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'test', 'agent.test.ts'), SUITE);
  return dir;
}

describe.skipIf(!AI_7_RUNS_HERE)(`the AI SDK ${AI_7} (needs Node 22 or later; this is ${process.versions.node})`, () => {
  test('installs beside killpoint from the tarball; the keyed agent survives the kill in the gap, the unkeyed one refunds twice', async () => {
    warmNativeAddon();
    const dir = makeProject();
    const install = await run('npm', ['install'], dir);
    expect(install.output).not.toMatch(/ERESOLVE/);
    expect(install.status, install.output).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'node_modules', 'ai', 'package.json'), 'utf8')) as { version: string }).version).toBe(AI_7);
    const vitest = await run('npx', ['vitest', 'run', '--reporter=json', '--outputFile=report.json'], dir);
    expect(existsSync(join(dir, 'report.json')), vitest.output).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { testResults: { assertionResults: { title: string; status: string }[] }[] };
    const results = report.testResults.flatMap((f) => f.assertionResults.map((a) => [a.title.split(':')[0], a.status]));
    expect(results, vitest.output).toEqual([['keyed', 'passed'], ['without keys', 'passed']]);
    expect(vitest.status).toBe(0);
  }, 600_000);
});
