// A user's own Mastra workflow, checked unchanged (the support workflow of
// examples/support-agent-mastra: a refund and an email in .parallel(), then a reply): the module
// makes the workflow and reads back its effects; killpoint keeps Mastra's snapshots in libSQL in
// the run's folder, runs the workflow on its input in child processes and kills them right after
// each step's execute begins and returns and each snapshot is persisted. The two parallel steps run
// one at a time in the order the picks choose. Mastra needs Node 22.13 or later: on an older Node
// this file checks only that --mastra says so, and skips the rest saying why.

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { check, checkSchedule, killPointsOf } from '../src/harness/api/check-module.js';
import { MASTRA_NODE, nodeRunsMastra } from '../src/harness/engines/mastra/node-version.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { runMain } from './helpers.js';

const EXAMPLE = 'examples/support-agent-mastra';
const unkeyed = { engine: 'mastra', module: `${EXAMPLE}/src/workflow.ts`, inputFile: join(EXAMPLE, 'input.json') };
const keyed = { ...unkeyed, module: `${EXAMPLE}/src/workflow-keyed.ts` };
const HERE = nodeRunsMastra();

describe.skipIf(HERE)(`on a Node older than ${MASTRA_NODE.major}.${MASTRA_NODE.minor}`, () => {
  test('--mastra is bad input in one line naming the Node it needs', async () => {
    const ran = await runMain(['check', '--mastra', unkeyed.module, '--input', unkeyed.inputFile]);
    expect(ran.status).toBe(2);
    expect(ran.err).toEqual([`killpoint check: mastra: @mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}`]);
  });
});

describe.skipIf(!HERE)(`a support workflow of your own (Mastra needs Node ${MASTRA_NODE.major}.${MASTRA_NODE.minor} or later; this is ${process.versions.node})`, () => {
  test('its kill points: each step\'s execute begins and returns, each snapshot persisted; the group\'s two steps recorded by one snapshot', async () => {
    const ids = (await killPointsOf(unkeyed)).map((p) => p.identity);
    for (const id of ['execute-start[refund]', 'execute-return[refund]', 'execute-start[email]', 'execute-return[email]', 'step-recorded[step 0]', 'step-recorded[step 1]', 'execute-return[reply]', 'step-recorded[step 2]']) expect(ids).toContain(id);
    // Mastra records a .parallel() group's results in one snapshot, after both steps returned.
    const group = ids.indexOf('step-recorded[step 0]');
    expect(ids[group + 1]).toBe('step-recorded[step 1]');
    expect(group).toBeGreaterThan(ids.indexOf('execute-return[email]'));
  }, 120_000);

  test('without keys, one kill right after the refund step returned runs the whole group again, refund and email; with keys, nothing is done twice', async () => {
    const points = await killPointsOf(unkeyed);
    const k = points.find((p) => p.identity === 'execute-return[refund]')!.index;
    const [plain, withKeys] = await Promise.all([checkSchedule(unkeyed, [k]), checkSchedule(keyed, [k])]);
    expect(plain.ok).toBe(false);
    expect(plain.failure.killAt).toEqual(['execute-return[refund]']);
    // Mastra records a .parallel() group's results in one snapshot, and a restart runs the group again whole.
    expect(plain.failure.differences.filter((d) => / committed twice/.test(d)).sort()).toEqual([expect.stringMatching(/^email dana@example\.com committed twice/), expect.stringMatching(/^refund O-7\/L1 committed twice/)]);
    expect(withKeys.ok).toBe(true);
  }, 240_000);

  test('every kill point: without keys the earliest that repeats a write is the second step of the group beginning, the first one\'s email sent and not recorded; with keys, in both orders of the parallel steps, every check holds', async () => {
    const [plain, withKeys] = await Promise.all([check({ ...unkeyed, interleavingBound: 1 }), check(keyed)]);
    expect(plain.ok).toBe(false);
    // The default order runs email first (the gate's waiting calls by id); the group is recorded only once both returned.
    expect(plain.minimal?.killAt).toEqual(['execute-start[refund]']);
    expect(plain.minimal?.differences[0]).toMatch(/^email dana@example\.com committed twice/);
    expect(withKeys.ok).toBe(true);
    expect(withKeys.schedulesExplored).toBeGreaterThan(2 * 10);
    expect(liveChildCount()).toBe(0);
  }, 900_000);
});
