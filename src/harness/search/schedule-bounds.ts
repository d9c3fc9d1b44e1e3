// A schedule given by hand (a replay, a corpus entry, a schedule from the command line) must fit
// the run it is given to: every kill must land and every pick must choose among the calls that can
// go next. A kill point past the end would make a replay report "holds" about a kill that never
// happened. The option named is the one the user gave, for the message.

import type { RunOutcome } from '../check/outcome.js';
import { UsageError } from '../usage-error.js';

/**
 * Every kill of a replayed schedule must land: a life that ran to its end before its kill point
 * was never killed there, so the replay would report "holds" about a kill that never happened.
 */
export function mustLandEveryKill(outcome: RunOutcome, kills: readonly number[], option: string): void {
  for (const [life, k] of kills.entries()) {
    const record = outcome.lives[life];
    if (record === undefined || record.end !== 'finished') continue;
    const n = record.events.length;
    throw new UsageError(`${option}: kill point ${k} is beyond the run: life ${life + 1} ran to its end after ${n} event${n === 1 ? '' : 's'} (kill points -1 to ${n - 1})`);
  }
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
