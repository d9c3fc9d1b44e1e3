// The support workflow, checked by killpoint as it is: each line hands killpoint the module that
// registers the workflow and the input it starts with. killpoint runs DBOS on embedded PGlite.

import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { checkDbos } from 'killpoint';
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
