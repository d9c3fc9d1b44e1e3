// The search is written once for every engine: a plan is a generator that asks for batches of
// kill schedules and receives their outcomes, and the one drive (drive.ts) runs it in a session of
// the system (engine.ts: Session): synchronously while the session answers at once (a run costs
// microseconds; no promise per run), the runs of a batch side by side once it answers with
// promises (its lives are processes). The order in which a batch's runs finish never changes what
// the plan computes: it gets the outcomes back in the order it asked.

import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { Answer, Session } from '../engine.js';
import { drive, type DriveOptions } from './drive.js';

export type { DriveOptions } from './drive.js';

export type Plan<T> = Generator<Schedule[], T, RunOutcome[]>;

/**
 * Runs a plan in a session (whoever opened it closes it): a plain value from a session that
 * answers at once, else await it (see drive.ts).
 */
export function runPlan<X extends Session, T>(plan: Plan<T>, session: X, options?: DriveOptions): Answer<X, T> {
  return drive(plan, (schedule) => session.run(schedule), options) as Answer<X, T>;
}
