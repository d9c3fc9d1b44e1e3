// What a second delivery did (--redeliver), judged once from what the engine saw, whichever the
// engine: the wait that took it, if one did, and how many turns of --resume were never handed once
// the run ended. A second delivery no wait took was ignored (the engine kept the first, refused it,
// or the run never read it); taken by the wait it was for, it was that wait's one delivery (the
// first never recorded). Taken by a later wait, it was either an answer in place of that wait's own
// (a turn of the list left never handed: the person's answer to the later question never counted),
// or one answer more (every turn handed too: the run acted on the same answer twice).

import type { RedeliveryEffect, RunEvent } from './events.js';

/** The effect of a second delivery, from the event that tells it (`redeliver`, or `redelivered` once the run ended); undefined when it tells nothing yet. */
export function redeliveryEffect(e: Pick<RunEvent, 'wait' | 'redelivery' | 'answered' | 'turnsLeft'>): RedeliveryEffect | undefined {
  // An engine that saw the effect at once says it (LangGraph, handing a Command to a wait it reads).
  if (e.redelivery !== undefined) return e.redelivery;
  if (e.turnsLeft === undefined) return undefined;
  if (e.answered === undefined) return 'ignored';
  if (e.answered === e.wait) return 'own-wait';
  return e.turnsLeft > 0 ? 'later-question' : 'applied-twice';
}
