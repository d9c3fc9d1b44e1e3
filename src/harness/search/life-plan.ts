// The explorer by equivalence asks for lives rather than whole runs: a plan is a generator that
// asks for batches of lives (from durable states, to their end or to a join point; of a process
// tier, also the kills of a life already run) and receives them, in the order it asked, from a
// driver that runs them in process or as processes side by side (as plan.ts does for runs).

import type { Scenario } from '../../model/scenario.js';
import type { DurableState, LifeHead, LifeRun, LifeStart, SystemUnderTest } from '../engine.js';
import { inPool } from '../process/pool.js';

/**
 * A plan that asks for lives (from durable states) rather than whole runs; of a process tier it
 * also asks that a life already run be cut (LifeByLife.cutEvery), answered with the same life.
 */
export type LifePlan<T> = Generator<LifeAsk[], T, (LifeRun | LifeHead)[]>;
export type LifeAsk = LifeStart | CutAsk | HeadAsk;
/** Of an in-process system with join points: run the life, stopping at a join point `stopAt` names (LifeByLife.runHead). */
export interface HeadAsk {
  head: LifeStart;
  stopAt: (state: DurableState, picksTaken: number) => boolean;
}
export interface CutAsk {
  cut: LifeRun;
  start: LifeStart;
}

/** Runs a life plan on an in-process system. */
export function runLifePlan<T>(plan: LifePlan<T>, system: SystemUnderTest, scenario: Scenario): T {
  const lives = system.lives!;
  let step = plan.next([]);
  while (!step.done) {
    const runs: (LifeRun | LifeHead)[] = [];
    for (const start of step.value) {
      if ('cut' in start) throw new Error(`${system.engine} ${system.name}: its lives are cut by processes; use the asynchronous search`);
      const run = 'head' in start ? lives.runHead!(scenario, start.head, start.stopAt) : lives.runLife(scenario, start);
      if (run instanceof Promise) throw new Error(`${system.engine} ${system.name}: its lives are processes; use the asynchronous search`);
      runs.push(run);
    }
    step = plan.next(runs);
  }
  return step.value;
}

/** Runs a life plan on any system, the lives of one batch `concurrency` at a time. */
export async function runLifePlanAsync<T>(plan: LifePlan<T>, system: SystemUnderTest, scenario: Scenario, concurrency = 1): Promise<T> {
  const lives = system.lives!;
  try {
    let step = plan.next([]);
    while (!step.done) {
      const runs = await inPool(step.value, concurrency, async (ask) => {
        if ('head' in ask) return lives.runHead!(scenario, ask.head, ask.stopAt);
        if (!('cut' in ask)) return lives.runLife(scenario, ask);
        await lives.cutEvery!(scenario, ask.start, ask.cut, concurrency);
        return ask.cut;
      });
      step = plan.next(runs);
    }
    return step.value;
  } finally {
    await lives.release?.(scenario);
  }
}
