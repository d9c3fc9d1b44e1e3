// What the second deliveries of a run did (--redeliver: user-module/turns.ts): each turn delivered
// again to a recovery, read from the recoveries' `redeliver` events (and, where the engine could
// tell only once the run stopped again, the `redelivered` event after it), in a report's words. The
// verdict stays against the run never killed; this says why a recovery that answered a later
// question with an earlier answer differs from it, or that a second delivery was ignored.

import { REDELIVERY_SEEN, REDELIVERY_WORDS, TURN_REDELIVERED } from './event-kinds.js';
import { redeliveryEffect } from './redelivery-effect.js';
import type { RedeliveryEffect } from './events.js';
import type { RunOutcome } from './outcome.js';

export interface SecondDelivery {
  /** The wait whose turn was delivered again (`ask#1`). */
  wait: string;
  /** The life it was delivered to, from 1 (the original run is life 1). */
  life: number;
  /** `cut`: the life was killed before the run stopped again, so what it did was never seen. */
  effect: RedeliveryEffect | 'cut';
  /** The wait it answered, when it answered one (`ask#2` for a later question). */
  answered?: string;
}

/** Every second delivery of the run, in the order the lives made them. */
export function secondDeliveries(outcome: RunOutcome): SecondDelivery[] {
  return outcome.lives.flatMap((life, i) =>
    life.events
      .filter((e) => e.kind === TURN_REDELIVERED.kind && e.wait !== undefined)
      .map((e) => {
        const seen = e.redelivery !== undefined ? e : life.events.find((later) => later.index > e.index && later.kind === REDELIVERY_SEEN.kind && later.wait === e.wait);
        const effect = (seen === undefined ? undefined : redeliveryEffect(seen)) ?? 'cut';
        return { wait: e.wait!, life: i + 1, effect, ...(seen?.answered === undefined ? {} : { answered: seen.answered }) };
      }),
  );
}

const WORDS: Record<SecondDelivery['effect'], string> = { ...REDELIVERY_WORDS, cut: 'cut by the kill before the run showed what it did' };

/** One second delivery in a report's words: `ask#1's turn, delivered again to life 2: answering a later question (ask#2)`. */
export function secondDeliveryText(d: SecondDelivery): string {
  const where = (d.effect === 'later-question' || d.effect === 'applied-twice') && d.answered !== undefined ? ` (${d.answered})` : '';
  return `${d.wait}'s turn, delivered again to life ${d.life}: ${WORDS[d.effect]}${where}`;
}

/** The JSON form: the effect's words as the text report has them. */
export function secondDeliveryJson(d: SecondDelivery): Record<string, unknown> {
  return { wait: d.wait, life: d.life, effect: WORDS[d.effect], answered: d.answered ?? null };
}
