import { describe, expect, it } from 'vitest';
import { lanternScenarios } from '../src/model/load.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { runLives, simulate } from '../src/engines/scripted/simulate.js';
import { type RunOutcome } from '../src/check/outcome.js';
import { ALL_STRATEGY_NAMES, strategy } from '../src/engines/scripted/strategies.js';
import { closeStores, memoryStores } from '../src/engines/scripted/stores.js';
import type { Scenario } from '../src/model/scenario.js';

// The reused, rolled-back shop must give exactly what a freshly created one gives.
function fresh(scenario: Scenario, name: (typeof ALL_STRATEGY_NAMES)[number], kills: number[]): RunOutcome {
  const stores = memoryStores(scenario.shop, strategy(name).journalWrite);
  try {
    return runLives(scenario, name, { kills, interleaving: [] }, stores, new ScriptedModel(scenario));
  } finally {
    closeStores(stores);
  }
}

describe('reusable in-memory stores', () => {
  it('give the same outcome as fresh stores at every single kill of every bundled scenario and strategy', () => {
    let compared = 0;
    for (const scenario of lanternScenarios()) {
      for (const name of ALL_STRATEGY_NAMES) {
        const events = simulate(scenario, name, { kills: [], interleaving: [] }).lives[0]!.events.length;
        for (let k = -1; k < events; k++) {
          // Some with a second kill early in recovery, so that state carried across lives is covered.
          for (const kills of k % 5 === 0 ? [[k], [k, 3]] : [[k]]) {
            expect(simulate(scenario, name, { kills, interleaving: [] })).toEqual(fresh(scenario, name, kills));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(600);
  });
});
