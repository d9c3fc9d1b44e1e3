// Does killpoint's model of a durable workflow tell the truth about Vercel Workflow? The scripted
// `workflow` strategy (each model call and tool call a step, recorded after it returns, the
// workflow run again from the top on recovery; `workflow+keys` with keys) is that model, so at
// every kill point a real run and the model must reach the same verdict. Moments map by identity:
// the model's and the tools' events (model-request[model 2], shop-commit[call_refund], ...), a tool
// step's record (step-recorded[call_refund]) and answer-delivered are the same moment in both. The
// rest are moments only the SDK has, each mapped to the model's last moment before it:
//   run-created, run-started   the workflow is created or invoked: nothing of a step has run
//   step-created, step-started a step is asked for or about to run: its function has not run
//   step-recorded of a model   the model's record of that model call (its step number differs:
//     step                     the DurableAgent has steps of its own between them)
//   step-recorded of the       the DurableAgent's own steps (writeToolOutputToUI, closeStream) write
//     agent's own steps        only to the run's stream: no customer or shop sees them
//   run-completed              the output recorded, the answer not yet delivered: the model's last
//                              step record, the moment before delivery
// Where they cannot agree, and why: the SDK runs a reply's parallel calls one whole step after
// another (step-order.ts), where the model starts them together; a kill after the second call's
// tool-start leaves the first call's write done on the SDK and not yet done in the model. The
// comparison is of what the customer and the shop see: writes done twice and lost, repeats refused,
// the answer, model calls redone, answers delivered.

import { eventIdentities } from '../../check/kill-points.js';
import type { RunEvent } from '../../check/events.js';
import type { Verdict } from '../../check/verdict.js';
import { verdictDifferences as differences } from '../../check/verdict-compare.js';

/** Kinds whose identities the scripted model has too. */
const SHARED = new Set(['model-request', 'model-chunk', 'model-reply', 'tool-start', 'shop-commit', 'tool-result', 'answer-delivered']);

/**
 * The scripted workflow's kill point (an identity, or `start`) for a Vercel kill point: `k` of the
 * Vercel life's events; `scriptedEvents`, the scripted workflow's run never killed.
 */
export function scriptedMoment(vercelEvents: readonly RunEvent[], k: number, scriptedEvents: readonly RunEvent[]): string {
  const ids = eventIdentities(vercelEvents);
  // The scripted model's model step records, by model call.
  const scriptedIds = eventIdentities(scriptedEvents);
  const modelRecords = scriptedEvents.flatMap((e, i) => (e.kind === 'step-recorded' && e.callId === undefined ? [scriptedIds[i]!] : []));
  let lastModelCall: number | null = null;
  let moment = 'start';
  for (let i = 0; i <= k && i < vercelEvents.length; i++) {
    const e = vercelEvents[i]!;
    if (e.kind === 'model-reply') lastModelCall = e.modelCall as number;
    if (SHARED.has(e.kind)) moment = ids[i]!;
    else if (e.kind === 'step-recorded' && typeof e.callId === 'string') moment = ids[i]!;
    else if (e.kind === 'step-recorded' && lastModelCall !== null && moment === `model-reply[model ${lastModelCall}]`) {
      // The record of the model step whose reply came last: that model call's record in the model.
      moment = modelRecords[lastModelCall] ?? moment;
    }
  }
  return moment;
}

/** The fields in which a vercel verdict and the scripted one differ, as `field: vercel X, scripted Y` lines (empty when equal). */
export function verdictDifferences(vercel: Verdict, scripted: Verdict): string[] {
  return differences('vercel', vercel, scripted);
}
