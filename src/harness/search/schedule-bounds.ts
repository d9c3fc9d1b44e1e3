// A schedule given by hand (a replay, a corpus entry, a schedule from the command line) must fit
// the run it is given to: every kill must land and every pick must choose among the calls that can
// go next. A kill point past the end would make a replay report "holds" about a kill that never
// happened. The option named is the one the user gave, for the message.

import type { RunOutcome } from '../check/outcome.js';
import { UsageError } from '../usage-error.js';

/** A kill of a schedule that never landed: its life ran to its end, after `events` events, first. */
export interface UnlandedKill {
  /** The life the kill was meant for (0: the original run, 1: the first recovery, ...). */
  life: number;
  kill: number;
  events: number;
}

/** The first kill of a schedule whose life ran to its end before its kill point, or null when each landed. */
export function firstUnlandedKill(outcome: RunOutcome, kills: readonly number[]): UnlandedKill | null {
  for (const [life, kill] of kills.entries()) {
    const record = outcome.lives[life];
    if (record !== undefined && record.end === 'finished') return { life, kill, events: record.events.length };
  }
  return null;
}

/**
 * Every kill of a replayed schedule must land: a life that ran to its end before its kill point
 * was never killed there, so the replay would report "holds" about a kill that never happened.
 */
export function mustLandEveryKill(outcome: RunOutcome, kills: readonly number[], option: string): void {
  const unlanded = firstUnlandedKill(outcome, kills);
  if (unlanded === null) return;
  const { life, kill, events: n } = unlanded;
  throw new UsageError(`${option}: kill point ${kill} is beyond the run: life ${life + 1} ran to its end after ${n} event${n === 1 ? '' : 's'} (kill points -1 to ${n - 1})`);
}

/** Interleaving picks must choose among the calls that can go next; the runner would wrap them round. */
export function mustPickInRange(outcomes: readonly RunOutcome[], picks: readonly number[], option: string): void {
  for (const outcome of outcomes) {
    for (const [i, width] of outcome.pickWidths.entries()) {
      const pick = picks[i];
      if (pick !== undefined && pick >= width) throw new UsageError(`${option}: pick ${i + 1} is ${pick}, but only ${width} calls can go next there (picks 0 to ${width - 1})`);
    }
  }
}
