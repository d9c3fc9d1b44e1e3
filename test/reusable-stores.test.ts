import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/harness/check/events.js';
import { lanternScenarios } from '../src/model/load.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { simulateLives, simulate } from '../src/harness/engines/scripted/simulate.js';
import { type RunOutcome } from '../src/harness/check/outcome.js';
import { ALL_STRATEGY_NAMES, strategy } from '../src/harness/engines/scripted/strategies.js';
import { closeStores, memoryStores } from '../src/model/stores.js';
import { chosenKillPoints } from '../src/harness/process/sample.js';
import type { Scenario } from '../src/model/scenario.js';

// The reused, rolled-back shop (and its read cache) must give exactly what a freshly created one
// gives. This test runs a sample of kill points (about 2,800 runs, a quarter of the sweep) for
// every bundled scenario under every strategy and broken variant. The full sweep, every single
// kill of every scenario and strategy plus a second kill at every fifth (about 11,400 runs, 20 s
// and more), is the last part of `npm run bench` (bench/bench.ts), which exits 1 if any differs.

/** Events after which a durable store holds something new: where reused and fresh stores could part. */
const STORE_EVENTS = new Set<RunEvent['kind']>(['shop-commit', 'journal-write', 'journal-save', 'step-recorded', 'answer-delivered']);
/** Besides the chosen kill points, every STRIDE-th one, so that no long stretch of a run goes unsampled. */
const STRIDE = 16;

/**
 * The kill points sampled from a run: the real tier's chosen ones (before anything, the last
 * event, mid first reply and mid answer, the first journal save's two moments, every commit and
 * everything in the gap after it), every kill point in or next to a gap, the first and last
 * event of each kind that writes to a store (the shop's commit, the journal's write and save, the
 * workflow's step record, the delivered answer), and every STRIDE-th kill point.
 */
function sampledKillPoints(events: readonly RunEvent[]): number[] {
  const points = new Set(chosenKillPoints(events));
  for (let k = -1; k < events.length; k += STRIDE) points.add(k);
  events.forEach((e, i) => {
    if (e.interval === 'gap') for (const k of [i - 1, i, i + 1]) if (k < events.length) points.add(k);
  });
  for (const kind of STORE_EVENTS) {
    const ofKind = events.filter((e) => e.kind === kind);
    if (ofKind.length > 0) points.add(ofKind[0]!.index).add(ofKind.at(-1)!.index);
  }
  return [...points].sort((a, b) => a - b);
}

function fresh(scenario: Scenario, name: (typeof ALL_STRATEGY_NAMES)[number], kills: number[]): RunOutcome {
  const stores = memoryStores(scenario.shop, strategy(name).journalWrite);
  try {
    return simulateLives(scenario, name, { kills, interleaving: [] }, stores, new ScriptedModel(scenario));
  } finally {
    closeStores(stores);
  }
}

describe('reusable in-memory stores', () => {
  it('give the same outcome as fresh stores at the sampled kill points of every bundled scenario and strategy', () => {
    let compared = 0;
    const withGap: string[] = [];
    const gapKilled: string[] = [];
    for (const scenario of lanternScenarios()) {
      for (const name of ALL_STRATEGY_NAMES) {
        const events = simulate(scenario, name, { kills: [], interleaving: [] }).lives[0]!.events;
        if (events.some((e) => e.interval === 'gap')) withGap.push(`${scenario.id} ${name}`);
        for (const k of sampledKillPoints(events)) {
          const inGap = k >= 0 && events[k]!.interval === 'gap';
          if (inGap && gapKilled.at(-1) !== `${scenario.id} ${name}`) gapKilled.push(`${scenario.id} ${name}`);
          // A second kill early in the recovery after each commit and in each gap, so that state
          // carried across lives (and across runs of the reused shop) is covered too.
          const carried = inGap || (k >= 0 && events[k]!.kind === 'shop-commit');
          for (const kills of carried ? [[k], [k, 3]] : [[k]]) {
            expect(simulate(scenario, name, { kills, interleaving: [] })).toEqual(fresh(scenario, name, kills));
            compared++;
          }
        }
      }
    }
    // Every gap of every scenario under every strategy had kills in it.
    expect(gapKilled).toEqual(withGap);
    expect(withGap.length).toBeGreaterThan(100);
    expect(compared).toBeGreaterThan(2000);
  }, 180_000); // a few seconds of CPU alone; over a minute once on a 2-core machine busy with the suite and more
});
