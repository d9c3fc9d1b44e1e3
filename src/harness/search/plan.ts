// The search is written once for every engine: a plan is a generator that asks for batches of
// kill schedules and receives their outcomes, and a driver runs it. In-process engines are driven
// synchronously (a run costs microseconds; no promise per run), engines whose lives are processes
// asynchronously, the runs of one batch side by side. The order in which a batch's runs finish
// never changes what the plan computes: it gets the outcomes back in the order it asked.

import type { RunOutcome, Schedule } from '../check/outcome.js';
import { inPool } from '../process/pool.js';
import type { Scenario } from '../../model/scenario.js';
import { runInProcess, type SystemUnderTest } from '../engine.js';

export type Plan<T> = Generator<Schedule[], T, RunOutcome[]>;

/** Runs a plan on an in-process system. */
export function runPlan<T>(plan: Plan<T>, system: SystemUnderTest, scenario: Scenario): T {
  let step = plan.next([]);
  while (!step.done) {
    const outcomes: RunOutcome[] = [];
    for (const schedule of step.value) outcomes.push(runInProcess(system, scenario, schedule));
    step = plan.next(outcomes);
  }
  return step.value;
}

export interface AsyncPlanOptions {
  /** Runs in flight at once (processes of one batch side by side). */
  concurrency: number;
  /** Told of each batch's size, then of each of its runs done (a progress line for long work). */
  progress?: (batchSize: number) => { tick(): void; end(): void };
}

/** Runs a plan on any system, in process or not. */
export async function runPlanAsync<T>(plan: Plan<T>, system: SystemUnderTest, scenario: Scenario, options: AsyncPlanOptions = { concurrency: 1 }): Promise<T> {
  let step = plan.next([]);
  while (!step.done) {
    const progress = options.progress?.(step.value.length);
    const outcomes = await inPool(step.value, options.concurrency, async (schedule) => {
      const outcome = await system.run(scenario, schedule);
      progress?.tick();
      return outcome;
    });
    progress?.end();
    step = plan.next(outcomes);
  }
  return step.value;
}
