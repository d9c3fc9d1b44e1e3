// Does killpoint's model of a durable workflow tell the truth about Mastra? The scripted `workflow`
// strategy (each model call and tool call a step, recorded after it returns, the workflow run
// again from the top on recovery) is that model. Their moments map by identity: the model's and
// the tools' events, each step's record (step-recorded[step 0], step-recorded[call_refund]; the
// step numbers are the same: the unrolled workflow has a step per model call and per tool call, in
// the model's order) and answer-delivered. A snapshot-persisted is a moment only Mastra has (the
// run created, a step marked running, the run's success written): the model's last moment before it.
//
// Where they cannot agree, and why (MASTRA_REDOES below): restart() resumes at the step the
// snapshot says ran last, until the next step is marked running. Killed right after a step's
// record, Mastra runs that step again, where the model goes on to the next: a model call redone
// after a model step's record, a write done twice after a write step's record. A .parallel()
// group's record is not resumed that way. The comparison is of what the customer and the shop see:
// writes done twice and lost, repeats refused, the answer, model calls redone, answers delivered.

import { eventIdentities } from '../../check/kill-points.js';
import type { RunEvent } from '../../check/events.js';
import type { Verdict } from '../../check/verdict.js';
import { verdictDifferences as differences } from '../../check/verdict-compare.js';
import type { Scenario } from '../../../model/scenario.js';
import { SNAPSHOT_PERSISTED } from './event-kinds.js';
import { workflowShape } from './shape.js';

/** The scripted workflow's kill point (an identity, or `start`) for a Mastra kill point. */
export function scriptedMoment(mastraEvents: readonly RunEvent[], k: number): string {
  const ids = eventIdentities(mastraEvents);
  for (let i = Math.min(k, ids.length - 1); i >= 0; i--) {
    if (mastraEvents[i]!.kind !== SNAPSHOT_PERSISTED.kind) return ids[i]!;
  }
  return 'start';
}

/** The fields in which a mastra verdict and the scripted one differ, as `field: mastra X, scripted Y` lines (empty when equal). */
export function verdictDifferences(mastra: Verdict, scripted: Verdict): string[] {
  return differences('mastra', mastra, scripted);
}

/**
 * The kill points where Mastra is known to do more than the model (see above): right after the
 * record of a step that is not in a .parallel() group (a model step, or a tool step of a scenario
 * whose replies have one call each: workflow.ts), before the next step is marked running.
 */
export function mastraRedoes(scenario: Scenario, mastraEvents: readonly RunEvent[], k: number): boolean {
  const e = mastraEvents[k];
  if (e?.kind !== 'step-recorded') return false;
  const next = mastraEvents[k + 1];
  if (next !== undefined && next.kind !== SNAPSHOT_PERSISTED.kind) return false;
  return String(e.stepName).startsWith('model-') || workflowShape(scenario).width === 1;
}
