// The explorer by equivalence asks for lives rather than whole runs: a plan is a generator that
// asks for batches of lives (from durable states, to their end or to a join point; of a process
// tier, also the kills of a life already run) and receives them, in the order it asked, from the
// one drive (drive.ts) that runs plans of schedules too: in process at once, as processes side by
// side.

import type { Scenario } from '../../model/scenario.js';
import type { Answer, DurableState, LifeHead, LifeRun, LifeStart, SystemUnderTest } from '../engine.js';
import { andFinally, type MaybePromise } from '../maybe-promise.js';
import { drive, type DriveOptions } from './drive.js';

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

/**
 * Runs a life plan on a system with lives, the lives of one batch `concurrency` at a time once
 * they are processes; releases what the lives left (LifeByLife.release) when done, however it ends.
 */
export function runLifePlan<S extends SystemUnderTest, T>(plan: LifePlan<T>, system: S, scenario: Scenario, options: DriveOptions = {}): Answer<S, T> {
  const lives = system.lives!;
  const answer = (ask: LifeAsk): MaybePromise<LifeRun | LifeHead> => {
    if ('head' in ask) return lives.runHead!(scenario, ask.head, ask.stopAt);
    if (!('cut' in ask)) return lives.runLife(scenario, ask);
    return lives.cutEvery!(scenario, ask.start, ask.cut, options.concurrency ?? 1).then(() => ask.cut);
  };
  return andFinally(() => drive(plan, answer, options), () => lives.release?.(scenario)) as Answer<S, T>;
}
