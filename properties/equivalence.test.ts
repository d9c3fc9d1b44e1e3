// Over generated agents (parallel calls, every kind of write, repeats accepted or refused) and
// generated interleavings, under every strategy and broken variant: the explorer by equivalence
// gives every single kill, and every two-kill schedule of a stride, the verdict judge() gives the
// same schedule run from scratch, and counts the same failed checks.
import { fc, test } from '@fast-check/vitest';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { judge } from '../src/harness/check/verdict.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { ALL_STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { agentShape, describeShape, interleaving, runs, scenarioOf } from './arbitraries.js';
import { seed } from './run-property.js';

/** Of the two-kill schedules, every STRIDE-th is run from scratch (all of them would be slow). */
const STRIDE = 29;

describe('exploring by equivalence gives each kill point the verdict of its run from scratch', () => {
  test.prop([agentShape, interleaving, fc.constantFrom(...ALL_STRATEGY_NAMES)], { seed: seed(), numRuns: runs(20) })('generated agents', (shape, picks, name) => {
    const scenario = scenarioOf(shape);
    const system = scripted(name);
    const baseline = simulate(scenario, name, { kills: [], interleaving: picks });
    const differ: string[] = [];
    let covered = 0;
    exploreByEquivalence(scenario, system, [{ picks: baseline.picksTaken, baseline }], 2, (c) => {
      if (c.kills.length > 1 && ++covered % STRIDE !== 0) return;
      const fresh = simulate(scenario, name, { kills: c.kills, interleaving: baseline.picksTaken });
      const verdict = judge(scenario, fresh, baseline);
      if (JSON.stringify(c.verdict()) !== JSON.stringify(verdict) || !isDeepStrictEqual([...c.failed], failedChecks({ scenario, outcome: fresh, verdict }))) {
        differ.push(`${name} kills [${c.kills.join(',')}] interleaving [${baseline.picksTaken.join(',')}] on ${describeShape(shape)}`);
      }
    });
    expect(differ.slice(0, 5)).toEqual([]);
  });
});
