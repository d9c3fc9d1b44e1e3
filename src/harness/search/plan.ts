// The search is written once for every engine: a plan is a generator that asks for batches of
// kill schedules and receives their outcomes, and the one drive (drive.ts) runs it in a session of
// the system (engine.ts: Session): synchronously while the session answers at once (a run costs
// microseconds; no promise per run), the runs of a batch side by side once it answers with
// promises (its lives are processes). The order in which a batch's runs finish never changes what
// the plan computes: it gets the outcomes back in the order it asked.

import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { Answer, Session } from '../engine.js';
import { drive, NOT_RUN, type DriveOptions, type NotRun, type StopRule } from './drive.js';

export { NOT_RUN, type DriveOptions, type NotRun, type StopRule } from './drive.js';

export type Plan<T> = Generator<Schedule[], T, RunOutcome[]>;

/**
 * Runs a plan in a session (whoever opened it closes it): a plain value from a session that
 * answers at once, else await it (see drive.ts).
 */
export function runPlan<X extends Session, T>(plan: Plan<T>, session: X, options?: DriveOptions): Answer<X, T> {
  return drive(plan, (schedule) => session.run(schedule), options) as Answer<X, T>;
}

/** A plan whose runs may be answered NOT_RUN: run by runStoppingPlan. */
export type StoppingPlan<T> = Generator<Schedule[], T, (RunOutcome | NotRun)[]>;

/**
 * A plan that needs every run it asks for, inside a StoppingPlan: its batches hold one run each
 * (a baseline, a case to judge), and a batch stops only after an answer, so none is left unrun.
 * One that is would be a defect of the search: it throws rather than judge nothing.
 */
export function* everyRun<T>(plan: Plan<T>): StoppingPlan<T> {
  let step = plan.next([]);
  while (!step.done) {
    const answers = yield step.value;
    const ran = answers.filter((a): a is RunOutcome => a !== NOT_RUN);
    if (ran.length < answers.length) throw new Error('killpoint: a run the search needs was stopped before it started');
    step = plan.next(ran);
  }
  return step.value;
}

/** Runs a plan as runPlan does, each batch stopped at the first run `stop` says so of (drive.ts: StopRule). */
export function runStoppingPlan<X extends Session, T>(plan: StoppingPlan<T>, session: X, options: DriveOptions, stop: StopRule<RunOutcome>): Answer<X, T> {
  return drive(plan, (schedule) => session.run(schedule), options, stop) as Answer<X, T>;
}
