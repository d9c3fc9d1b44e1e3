// The support workflow, checked by killpoint as it is: each line hands killpoint the module that
// registers the workflow and the input it starts with. killpoint runs DBOS on embedded PGlite.

import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { checkDbos, checkDbosSchedule } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

const input = JSON.parse(readFileSync('input.json', 'utf8'));

// Keys: every kill point of the run, in both orders of the two parallel steps, survives.
killpointTests('support workflow with keys', { dbos: 'src/workflow-keyed.ts', input });

// No keys: a kill right after the refund step returned, before DBOS recorded it, refunds twice.
test('without keys, the refund is done twice at its minimal kill point', async () => {
  const check = await checkDbos({ module: 'src/workflow.ts', inputFile: 'input.json' });
  expect(check.ok).toBe(false);
  expect(check.minimal?.killAt).toEqual(['step-return[step 0]']);
  expect(check.minimal?.differences[0]).toMatch(/^refund O-7\/L1 committed twice/);
}, 600_000);

// One kill, replayed as the search's replay line prints it (kill point 2 is the refund step's
// return): quicker than the whole search when a fix is being tried.
test('one kill replayed: right after the refund step returned, the recovery refunds again', async () => {
  const check = await checkDbosSchedule({ module: 'src/workflow.ts', inputFile: 'input.json' }, [2]);
  expect(check.ok).toBe(false);
  expect(check.failure.killAt).toEqual(['step-return[step 0]']);
  expect(check.failure.differences[0]).toMatch(/^refund O-7\/L1 committed twice/);
}, 600_000);
