// What a kill schedule means, written once for every engine and tier. Fault model: a kill lands
// between two events, never inside one; after it nothing of the life runs again (no catch, no
// finally, no flush), its memory is gone, and the next life starts from the durable stores alone.
//
// - A schedule holds one kill point per life: life i dies right after its event kills[i].
// - -1 kills a life before its first event (an in-process life is not even asked for one; a child
//   process kills itself before doing anything).
// - The life after the last kill runs to its end; so does a life whose kill point it never reaches.
// - A life that ends without being killed (finished, or stopped on an error it classifies) ends
//   the run: nothing restarts it.
// - No life has more than MAX_EVENTS_PER_LIFE events: more means a runaway loop, and that is an
//   error of the system under test, not a verdict.

import type { RunEvent } from './check/events.js';
import type { LifeErrorKind, LifeRecord } from './check/outcome.js';
import { isPromise, type MaybePromise } from './maybe-promise.js';

/** No scripted life comes anywhere near this many events; more means a runaway loop (in any tier). */
export const MAX_EVENTS_PER_LIFE = 100_000;

/** The kill point of life `lifeIndex`: a number, or null for the life that runs to its end. */
export function killPointOf(kills: readonly number[], lifeIndex: number): number | null {
  return lifeIndex < kills.length ? kills[lifeIndex]! : null;
}

export function runawayError(lifeIndex: number): Error {
  return new Error(`life ${lifeIndex}: more than ${MAX_EVENTS_PER_LIFE} events`);
}

/**
 * Runs lives in order until one is not killed (or the schedule's last kill has been suffered).
 * In-process lives answer at once and the loop stays synchronous (no promise per life); once a
 * life answers with a promise (a process), the loop waits for each life in turn.
 */
export function runLives<L extends { end: LifeRecord['end'] }>(kills: readonly number[], life: (lifeIndex: number, killAfter: number | null) => Promise<L>): Promise<L[]>;
export function runLives<L extends { end: LifeRecord['end'] }>(kills: readonly number[], life: (lifeIndex: number, killAfter: number | null) => L): L[];
export function runLives<L extends { end: LifeRecord['end'] }>(kills: readonly number[], life: (lifeIndex: number, killAfter: number | null) => MaybePromise<L>): MaybePromise<L[]>;
export function runLives<L extends { end: LifeRecord['end'] }>(kills: readonly number[], life: (lifeIndex: number, killAfter: number | null) => MaybePromise<L>): MaybePromise<L[]> {
  return livesFrom(kills, life, [], 0);
}

function livesFrom<L extends { end: LifeRecord['end'] }>(kills: readonly number[], life: (lifeIndex: number, killAfter: number | null) => MaybePromise<L>, lives: L[], from: number): MaybePromise<L[]> {
  for (let lifeIndex = from; lifeIndex <= kills.length; lifeIndex++) {
    const record = life(lifeIndex, killPointOf(kills, lifeIndex));
    if (isPromise(record)) {
      return record.then((r) => {
        lives.push(r);
        return r.end === 'killed' ? livesFrom(kills, life, lives, lifeIndex + 1) : lives;
      });
    }
    lives.push(record);
    if (record.end !== 'killed') break;
  }
  return lives;
}

/** An error a life stops on by itself (a conversation the model rejects, a journal it cannot read). */
export type ClassifyLifeError = (error: unknown) => LifeErrorKind | null;

export interface DrivenLife<R> {
  record: LifeRecord;
  /** What the life returned when it finished. */
  result?: R;
}

/**
 * Drives one in-process life, a generator of events, up to its kill point: the generator is
 * dropped, not closed, so nothing of the life runs after the kill. `onEvent` sees each event as it
 * happens (a child process writes it out, and dies there at its kill point).
 */
export function driveLife<R>(lifeIndex: number, killAfter: number | null, start: () => Iterator<RunEvent, R, void>, classify: ClassifyLifeError = () => null, onEvent?: (event: RunEvent) => void): DrivenLife<R> {
  const record: LifeRecord = { events: [], end: 'finished', killedAfter: null, error: null, errorKind: null };
  if (killAfter !== null && killAfter < 0) {
    record.end = 'killed';
    record.killedAfter = -1;
    return { record };
  }
  const events = start();
  try {
    for (;;) {
      const step = events.next();
      if (step.done) return { record, result: step.value };
      record.events.push(step.value);
      if (record.events.length > MAX_EVENTS_PER_LIFE) throw runawayError(lifeIndex);
      onEvent?.(step.value);
      if (step.value.index === killAfter) {
        record.end = 'killed';
        record.killedAfter = killAfter;
        return { record };
      }
    }
  } catch (error) {
    const kind = classify(error);
    if (kind === null) throw error;
    record.end = 'failed';
    record.error = (error as Error).message;
    record.errorKind = kind;
    return { record };
  }
}
