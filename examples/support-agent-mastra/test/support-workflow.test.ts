// The support workflow, checked by killpoint as it is: each line hands killpoint the module that
// makes the workflow and the input it starts with. killpoint keeps Mastra's snapshots in libSQL.

import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { check, checkSchedule, killPointsOf } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';

const input = JSON.parse(readFileSync('input.json', 'utf8'));

// Keys: every kill point of the run, in both orders of the two parallel steps, survives.
killpointTests('support workflow with keys', { mastra: 'src/workflow-keyed.ts', input });

// No keys: Mastra records the two parallel steps in one snapshot once both returned, and a restart
// runs them again together. The earliest kill point that repeats a write: right after the second
// step began, the first one's email already sent.
test('without keys, the email is sent twice at its minimal kill point', async () => {
  const result = await check({ engine: 'mastra', module: 'src/workflow.ts', inputFile: 'input.json', interleavingBound: 1 });
  expect(result.ok).toBe(false);
  expect(result.minimal?.killAt).toEqual(['execute-start[refund]']);
  expect(result.minimal?.differences[0]).toMatch(/^email dana@example\.com committed twice/);
}, 600_000);

// One kill, replayed by its identity's index: quicker than the whole search when a fix is tried.
test('one kill replayed: right after the refund step returned, the recovery refunds again', async () => {
  const points = await killPointsOf({ engine: 'mastra', module: 'src/workflow.ts', inputFile: 'input.json' });
  const k = points.find((p) => p.identity === 'execute-return[refund]')!.index;
  const result = await checkSchedule({ engine: 'mastra', module: 'src/workflow.ts', inputFile: 'input.json' }, [k]);
  expect(result.ok).toBe(false);
  expect(result.failure.killAt).toEqual(['execute-return[refund]']);
  expect(result.failure.differences.some((d) => /^refund O-7\/L1 committed twice/.test(d))).toBe(true);
}, 600_000);
