// The sample both Restate systems' tests take of Dana's refund: in one session, the baseline and a
// kill at each moment around the refund's step (before anything, the step before it, each of its
// five moments, the invocation's output), each killed life checked to be the baseline's up to its
// kill point, each verdict judged and compared with the scripted model's at the same moment.

import { expect } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import type { RunEvent } from '../src/harness/check/events.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { MODELLED_BY, scriptedMoment, verdictDifferences } from '../src/harness/engines/restate/differential.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { inPool } from '../src/harness/process/pool.js';
import { runSchedule, withSession } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';

const dana = lanternScenario('T01');
const NONE = { kills: [], interleaving: [] };

export interface JudgedMoment {
  identity: string;
  failed: string[];
  doneTwice: string[];
  /** Where the verdict and the scripted model's differ (none expected). */
  differences: string[];
}

/**
 * Dana's refund under the Restate system `name`, killed around the refund. `baselineHolds` checks
 * the baseline's events; `killedHolds` sees each killed run with its kill point's identity.
 */
export async function danaAroundTheRefund(name: string, baselineHolds: (events: RunEvent[]) => void, killedHolds: (identity: string, outcome: RunOutcome) => void = () => undefined): Promise<JudgedMoment[]> {
  const system = restateSystem(name)!;
  const model = scripted(MODELLED_BY[name]!);
  const modelBaseline = runSchedule(model, dana, NONE) as RunOutcome;
  return withSession(system, dana, async (session) => {
    const baseline = await session.run(NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    baselineHolds(events);
    const refund = ids.flatMap((id, k) => (id.endsWith('[call_refund]') ? [k] : []));
    expect(refund.map((k) => ids[k])).toEqual(['run-start[call_refund]', 'tool-start[call_refund]', 'shop-commit[call_refund]', 'tool-result[call_refund]', 'step-recorded[call_refund]']);
    const points = [-1, refund[0]! - 1, ...refund, ids.indexOf('invocation-done')];
    return inPool(points, 2, async (k) => {
      const outcome = await session.run({ kills: [k], interleaving: [] });
      const identity = k < 0 ? 'start' : ids[k]!;
      // The killed life is the baseline's, event for event, up to its kill point.
      expect(eventIdentities(outcome.lives[0]!.events)).toEqual(ids.slice(0, k + 1));
      killedHolds(identity, outcome);
      const verdict = judge(dana, outcome, baseline);
      const moment = scriptedMoment(events, k);
      const mk = moment === 'start' ? -1 : findKillPoint(modelBaseline.lives[0]!.events, moment)!;
      const modelVerdict = judge(dana, runSchedule(model, dana, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
      return { identity, failed: [...failedChecks({ scenario: dana, outcome, verdict })], doneTwice: verdict.doneTwice.map(String), differences: verdictDifferences(verdict, modelVerdict) };
    });
  });
}

/** What every system without keys shows there: the refund done twice from its commit on, and the model agreeing at every moment. */
export function expectRefundDoneTwiceFromItsCommit(judged: JudgedMoment[]): void {
  expect(judged.filter((j) => j.failed.length > 0).map((j) => j.identity)).toEqual(['shop-commit[call_refund]', 'tool-result[call_refund]']);
  expect(judged.find((j) => j.failed.length > 0)!.doneTwice).toEqual(['refund O-1042/L1 {"amountCents":7950,"lineId":"L1","orderId":"O-1042"}']);
  expect(judged.flatMap((j) => j.differences.map((d) => `${j.identity}: ${d}`))).toEqual([]);
}
