// Does killpoint's model of a durable workflow tell the truth about Restate? The scripted
// `workflow` strategy models a workflow whose every model call and tool call is a step, its result
// recorded after it returns, the run replayed from the top on recovery: a Restate service whose
// steps are ctx.run, the journal replayed by the retry. So at every kill point a real Restate run
// and the model must reach the same verdict (`service` and `ai-middleware` with `workflow`, their
// `+keys` with `workflow+keys`: the AI SDK's loop under durableCalls has the same steps). Their
// moments map one to one, by identity, except Restate's two of its own:
//   run-start[X]     Restate began to run step X's closure, nothing of it done: the model's moment
//                    before it (the step before, or `start`); the retry runs step X again.
//   invocation-done  the invocation's output is recorded, the answer not yet delivered: the
//                    model's last step record (the final answer's), the moment before delivery.
// Every other identity (model-request[model 2], shop-commit[call_refund], step-recorded[step 4],
// ...) is the same moment in both. The comparison is of what the customer and the shop see:
// writes done twice and lost, repeats refused, the answer, model calls redone, answers delivered.
// The broken `service+random-keys` has no model: its keys are its own.

import { eventIdentities } from '../../check/kill-points.js';
import type { RunEvent } from '../../check/events.js';
import type { Verdict } from '../../check/verdict.js';
import { verdictDifferences as differences } from '../../check/verdict-compare.js';
import { INVOCATION_DONE, RUN_START } from './event-kinds.js';

/** The scripted strategy each Restate system is modelled by. */
export const MODELLED_BY: Readonly<Record<string, string>> = { service: 'workflow', 'service+keys': 'workflow+keys', 'ai-middleware': 'workflow', 'ai-middleware+keys': 'workflow+keys' };

const ONLY_RESTATE = new Set<string>([RUN_START.kind, INVOCATION_DONE.kind]);

/** The scripted workflow's kill point (an identity, or `start`) for a Restate kill point k of a life's events. */
export function scriptedMoment(restateEvents: readonly RunEvent[], k: number): string {
  if (k < 0) return 'start';
  const ids = eventIdentities(restateEvents);
  for (let i = k; i >= 0; i--) if (!ONLY_RESTATE.has(restateEvents[i]!.kind)) return ids[i]!;
  return 'start';
}

/** The fields in which a restate verdict and the scripted one differ, as `field: restate X, scripted Y` lines (empty when equal). */
export function verdictDifferences(restate: Verdict, scripted: Verdict): string[] {
  return differences('restate', restate, scripted);
}
