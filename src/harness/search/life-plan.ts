// The explorer by equivalence asks for lives rather than whole runs: a plan is a generator that
// asks for batches of lives (from durable states, to their end or to a join point; of a process
// tier, also the kills of a life already run) and receives them, in the order it asked, from the
// one drive (drive.ts) that runs plans of schedules too: in process at once, as processes side by
// side.

import type { Answer, DurableState, LifeHead, LifeRun, LifeStart, Session } from '../engine.js';
import type { MaybePromise } from '../maybe-promise.js';
import { drive, type DriveOptions } from './drive.js';

/**
 * A plan that asks for lives (from durable states) rather than whole runs; of a process tier it
 * also asks that a life already run be cut (SessionLives.cutEvery), answered with the same life.
 */
export type LifePlan<T> = Generator<LifeAsk[], T, (LifeRun | LifeHead)[]>;
export type LifeAsk = LifeStart | CutAsk | HeadAsk;
/** Of an in-process system with join points: run the life, stopping at a join point `stopAt` names (SessionLives.runHead). */
export interface HeadAsk {
  head: LifeStart;
  stopAt: (state: DurableState, picksTaken: number) => boolean;
}
export interface CutAsk {
  cut: LifeRun;
  start: LifeStart;
}

/**
 * Runs a life plan in a session with lives, the lives of one batch `concurrency` at a time once
 * they are processes. What the lives left (state folders, rows) goes when the session is closed,
 * by whoever opened it.
 */
export function runLifePlan<X extends Session, T>(plan: LifePlan<T>, session: X, options: DriveOptions = {}): Answer<X, T> {
  const lives = session.lives;
  if (lives === undefined) throw new Error(`${session.scenario.id}: the session cannot run a life from a durable state`);
  const answer = (ask: LifeAsk): MaybePromise<LifeRun | LifeHead> => {
    if ('head' in ask) return lives.runHead!(ask.head, ask.stopAt);
    if (!('cut' in ask)) return lives.runLife(ask);
    return lives.cutEvery!(ask.start, ask.cut, options.concurrency ?? 1).then(() => ask.cut);
  };
  return drive(plan, answer, options) as Answer<X, T>;
}
