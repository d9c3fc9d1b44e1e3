// The search is written once for every engine: a plan is a generator that asks for batches of
// kill schedules and receives their outcomes, and the one drive (drive.ts) runs it: synchronously
// while the system answers at once (a run costs microseconds; no promise per run), the runs of a
// batch side by side once it answers with promises (its lives are processes). The order in which
// a batch's runs finish never changes what the plan computes: it gets the outcomes back in the
// order it asked.

import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { Scenario } from '../../model/scenario.js';
import type { Answer, SystemUnderTest } from '../engine.js';
import { drive, type DriveOptions } from './drive.js';

export type { DriveOptions } from './drive.js';

export type Plan<T> = Generator<Schedule[], T, RunOutcome[]>;

/** Runs a plan on a system: a plain value from a system that answers at once, else await it (see drive.ts). */
export function runPlan<S extends SystemUnderTest, T>(plan: Plan<T>, system: S, scenario: Scenario, options?: DriveOptions): Answer<S, T> {
  return drive(plan, (schedule) => system.run(scenario, schedule), options) as Answer<S, T>;
}
