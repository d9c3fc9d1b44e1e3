// The scripted engine's in-process tier: a run's lives are generators (runner.ts) driven by the
// one life loop (../life-loop.ts) over in-memory durable stores. A kill drops the generator, so
// nothing of the life runs after it; the next life starts from the stores alone.

import type { Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import type { RunOutcome, Schedule } from '../../check/outcome.js';
import { driveLife, runLives as runEachLife } from '../../life-loop.js';
import { classifyScriptedError } from './life-errors.js';
import { agentLife, Interleaving } from './runner.js';
import { strategy as strategyNamed, type AnyStrategyName } from './strategies.js';
import { reusableMemoryStores } from './reusable-stores.js';
import type { DurableStores } from '../../../model/stores.js';

/** Runs a scenario under a strategy and a kill schedule with in-memory durable stores. */
export function simulate(scenario: Scenario, strategyName: AnyStrategyName, schedule: Schedule, model = new ScriptedModel(scenario)): RunOutcome {
  const { stores, release } = reusableMemoryStores(scenario.shop, strategyNamed(strategyName).journalWrite);
  try {
    return simulateLives(scenario, strategyName, schedule, stores, model);
  } finally {
    release();
  }
}

/** Runs every life of the schedule on the stores given, and reads the outcome back from them. */
export function simulateLives(scenario: Scenario, strategyName: AnyStrategyName, schedule: Schedule, stores: DurableStores, model: ScriptedModel): RunOutcome {
  const strategy = strategyNamed(strategyName);
  const interleaving = new Interleaving(schedule.interleaving);
  let finalConversation: Conversation | null = null;
  const lives = runEachLife(schedule.kills, (lifeIndex, killAfter) => {
    const driven = driveLife(lifeIndex, killAfter, () => agentLife({ scenario, model, strategy, stores, lifeIndex, interleaving }), classifyScriptedError);
    if (driven.result) finalConversation = driven.result.conversation;
    return driven.record;
  });
  return {
    scenarioId: scenario.id,
    strategy: strategy.name,
    schedule,
    lives,
    picksTaken: [...interleaving.taken],
    pickWidths: [...interleaving.widths],
    delivered: stores.outbox.delivered(scenario.id),
    writes: stores.shop.writeLog(),
    refusals: stores.shop.refusalLog(),
    shop: stores.shop.snapshot(),
    finalConversation,
  };
}
