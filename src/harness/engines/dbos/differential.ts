// Does killpoint's model of DBOS tell the truth? The scripted `workflow` strategy is killpoint's
// model of a DBOS workflow (each model call and tool call a step, recorded after it returns, the
// workflow run again from the top on recovery), so at every kill point a real DBOS run and the
// model must reach the same verdict. Their moments map one to one, by identity, with two moments
// only DBOS has:
//   workflow-started   the workflow's status row is committed, nothing of it has run: the model's
//                      run killed before anything (`start`); recovery runs it all.
//   workflow-recorded  the workflow's output is recorded, the answer not yet delivered: the
//                      model's last step record (the final answer's), the moment before delivery.
// Every other identity (model-request[model 2], shop-commit[call_refund], step-recorded[step 4],
// ...) is the same moment in both. The comparison is of what the customer and the shop see:
// writes done twice and lost, repeats refused, the answer, model calls redone, answers delivered.

import { eventIdentities } from '../../check/kill-points.js';
import type { RunEvent } from '../../check/events.js';
import type { Verdict } from '../../check/verdict.js';
import { verdictDifferences as differences } from '../../check/verdict-compare.js';
import { WORKFLOW_RECORDED, WORKFLOW_STARTED } from './event-kinds.js';

/** The scripted workflow's kill point (an identity, or `start`) for a DBOS kill point. */
export function scriptedMoment(dbosEvents: readonly RunEvent[], k: number): string {
  const ids = eventIdentities(dbosEvents);
  const id = ids[k];
  // Both happen once a life and belong to nothing, so their identity is their kind.
  if (id === undefined || k < 0 || id === WORKFLOW_STARTED.kind) return 'start';
  if (id === WORKFLOW_RECORDED.kind) {
    const before = ids.slice(0, k).filter((i) => i !== WORKFLOW_STARTED.kind).at(-1);
    return before ?? 'start';
  }
  return id;
}

/** The fields in which a dbos verdict and the scripted one differ, as `field: dbos X, scripted Y` lines (empty when equal). */
export function verdictDifferences(dbos: Verdict, scripted: Verdict): string[] {
  return differences('dbos', dbos, scripted);
}
