// A user's own DBOS workflow, checked unchanged: the module registers the workflow and reads back
// its effects; killpoint launches DBOS on its own system database (PGlite here), runs the workflow
// on its input in child processes and kills them right after each step starts, returns and is
// recorded. Parallel steps run one at a time in the order the picks choose.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkDbos, checkDbosSchedule } from '../src/harness/api/check-module.js';
import { stopBackends } from '../src/harness/engines/dbos/backend.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const FIXTURES = 'test/fixtures/dbos-modules';
const input = { orderId: 'O-7', email: 'dana@example.com' };

afterAll(() => stopBackends());

describe('a refund workflow of your own', () => {
  test('without keys, the earliest kill point that repeats a write is the refund step returning before DBOS records it', async () => {
    const check = await checkDbos({ module: `${FIXTURES}/unkeyed.ts`, input, interleavingBound: 1 });
    expect(check.ok).toBe(false);
    expect(check.minimal?.killAt).toEqual(['step-return[step 0]']);
    expect(check.minimal?.differences[0]).toMatch(/^refund O-7 committed twice/);
    expect(check.minimal?.replay).toMatch(/^npx killpoint check --dbos test\/fixtures\/dbos-modules\/unkeyed\.ts --input '\{"orderId":"O-7","email":"dana@example\.com"\}' --schedule 2/);
  }, 300_000);

  test('with keys made of the workflow id and the step number, the same kill is harmless, in either order of the two steps', async () => {
    for (const picks of [[0], [1]]) {
      const check = await checkDbosSchedule({ module: `${FIXTURES}/keyed.ts`, input }, [2], picks);
      expect(check.report).toContain('<-- KILL');
      expect(check.ok).toBe(true);
    }
  }, 300_000);

  test('the events are the workflow start, each step start, return and record, and the workflow record', async () => {
    const check = await checkDbosSchedule({ module: `${FIXTURES}/keyed.ts`, input }, [-1]);
    expect(check.judged.baseline.lives[0]?.events.map((e) => e.kind)).toEqual(['workflow-started', 'step-start', 'step-return', 'step-recorded', 'step-start', 'step-return', 'step-recorded', 'workflow-recorded']);
  }, 300_000);
});

test('the command line: --dbos with --input, exit 1 at the kill point that repeats the refund', () => {
  const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), 'check', '--dbos', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-return[step 0]'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
  expect(r.stdout).toContain('step 0 (refund): returned   <-- KILL');
  expect(r.stdout).toContain('refund O-7 committed twice');
  expect(r.status).toBe(1);
}, 300_000);

test('a module whose createWorkflow returns something other than a registered workflow is bad input, in one line', () => {
  const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), 'check', '--dbos', `${FIXTURES}/not-a-workflow.ts`, '--input', `${FIXTURES}/input.json`], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
  expect(r.stderr).toMatch(/createWorkflow\(ctx\) returned string: expected the workflow function DBOS\.registerWorkflow returned/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.status).toBe(2);
}, 300_000);
