// Every single kill point of an agent behind the kill protocol, each judged as the protocol lets
// killpoint judge it (writes done twice, different or lost, the answer, delivered once, a recovery
// that stopped on an error): a verdict per kill point, for a caller that wants them all rather than
// an exploration's summary. The runs go through the one explorer.

import { brokenPromises, failedChecks, type CheckName } from '../check/checks.js';
import { describeEvent } from '../check/event-kinds.js';
import type { RunOutcome } from '../check/outcome.js';
import type { WriteIdentity } from '../check/records.js';
import { judge } from '../check/verdict.js';
import { explorePlan } from '../search/explore.js';
import { runPlan } from '../search/plan.js';
import { withSession } from '../session.js';
import { EXTERNAL_PROMISES, externalSystem, externalTask } from '../engines/external/engine.js';
import type { ExternalHarness } from '../engines/external/external.js';

export interface ExternalVerdict {
  harness: string;
  kills: number[];
  /** The event the (first) kill landed after, for reports. */
  killedAfterEvent: string | null;
  extraWrites: number;
  doneTwice: WriteIdentity[];
  differentWrites: WriteIdentity[];
  lostWrites: WriteIdentity[];
  answer: string | null;
  sameAnswer: boolean;
  answersDelivered: number;
  recoveryError: string | null;
  /** The checks it failed (all of them promised). */
  failed: CheckName[];
  /** Survived the kill: every check the protocol can make holds. */
  ok: boolean;
}

/** Judges an external run against its run never killed, with the same checks as every engine. */
export function judgeExternal(harness: ExternalHarness, outcome: RunOutcome, baseline: RunOutcome): ExternalVerdict {
  const scenario = externalTask(harness);
  const verdict = judge(scenario, outcome, baseline);
  const j = { scenario, outcome, verdict };
  const first = outcome.lives[0];
  const killedAfterEvent = first === undefined || first.killedAfter === null ? null : first.killedAfter < 0 ? '(before the first event)' : describeEvent(first.events[first.killedAfter]!);
  const broken = brokenPromises(EXTERNAL_PROMISES, j);
  return {
    harness: harness.name,
    kills: outcome.schedule.kills,
    killedAfterEvent,
    extraWrites: verdict.extraWrites,
    doneTwice: verdict.doneTwice,
    differentWrites: verdict.differentWrites,
    lostWrites: verdict.lostWrites,
    answer: verdict.answer,
    sameAnswer: verdict.sameAnswer,
    answersDelivered: verdict.answersDelivered,
    recoveryError: verdict.recoveryError,
    failed: failedChecks(j).filter((c) => EXTERNAL_PROMISES.includes(c)),
    ok: broken.length === 0,
  };
}

/**
 * Every single kill point of the harness, from a run never killed: -1 to its last event, each run
 * judged. The one explorer does it (src/harness/search: every single kill, runs `concurrency` at a
 * time); each run is handed back as it is judged, as the protocol's verdict.
 */
export async function checkEveryKillPoint(harness: ExternalHarness, concurrency = 2): Promise<ExternalVerdict[]> {
  const system = externalSystem(harness);
  const task = externalTask(harness);
  const verdicts: ExternalVerdict[] = [];
  // One life that breaks the protocol ends the check: no new run starts after it, and the error
  // reported is the lowest point's, whatever the timing (the drive's pool).
  const plan = explorePlan(task, system, { kills: 1, interleavingBound: 1, seed: 1 }, (run) => verdicts.push(judgeExternal(harness, run.outcome, run.baseline)));
  await withSession(system, task, (session) => runPlan(plan, session, { concurrency }));
  return verdicts;
}
