// Restate's AI SDK middleware under killpoint: each turn of the agent loop is the AI SDK's
// generateText, the model wrapped in Restate's durableCalls (each model call a ctx.run step), each
// tool call a ctx.run step, on a real restate-server, each life the service's process killed with
// SIGKILL. The sample npm test runs (every kill point of the 14 tasks is `npm run restate`):
//   - Dana's refund at the kill points around it, in one session: the earliest that fails is the
//     refund's commit, done twice, each verdict the scripted workflow's at the same moment, and the
//     recovery runs only the steps the journal lacks (the refund again, the last model call);
//   - the commands: without keys a kill at the refund's commit exits 1 (done twice); with keys a
//     kill in the gap and another during the recovery exit 0, and so do Ivan's cancellations, run
//     side by side (RestatePromise.all) through the gate and killed after each commit (the kill
//     points name both calls: without the gate's batch the schedule is not found). Nothing of any
//     command is left.

import { afterAll, describe, expect, it } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { MODELLED_BY, scriptedMoment, verdictDifferences } from '../src/harness/engines/restate/differential.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { inPool } from '../src/harness/process/pool.js';
import { runSchedule, withSession } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';
import { killpointCommand, leftByThisProcess } from './helpers.js';

const dana = lanternScenario('T01');
const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const T03 = 'scenarios/lantern/T03-ivan-two-orders.json';
const NONE = { kills: [], interleaving: [] };

afterAll(() => {
  expect(leftByThisProcess('killpoint-restate')).toEqual([]);
});

describe('restate ai-middleware', () => {
  it("Dana's refund: the earliest kill point that fails is the refund's commit, done twice, as the scripted workflow says at each moment; the recovery runs only what the journal lacks", async () => {
    const system = restateSystem('ai-middleware')!;
    const model = scripted(MODELLED_BY['ai-middleware']!);
    const modelBaseline = runSchedule(model, dana, NONE) as RunOutcome;
    const judged = await withSession(system, dana, async (session) => {
      const baseline = await session.run(NONE);
      const events = baseline.lives[0]!.events;
      const ids = eventIdentities(events);
      // Each model call and each tool call was a step that ran and was journaled.
      const modelCalls = events.filter((e) => e.kind === 'model-request').length;
      const toolCalls = events.filter((e) => e.kind === 'tool-start').length;
      expect(events.filter((e) => e.kind === 'run-start')).toHaveLength(modelCalls + toolCalls);
      expect(events.filter((e) => e.kind === 'step-recorded')).toHaveLength(modelCalls + toolCalls);
      expect(ids.slice(-2)).toEqual(['invocation-done', 'answer-delivered']);
      const refund = ids.flatMap((id, k) => (id.endsWith('[call_refund]') ? [k] : []));
      expect(refund.map((k) => ids[k])).toEqual(['run-start[call_refund]', 'tool-start[call_refund]', 'shop-commit[call_refund]', 'tool-result[call_refund]', 'step-recorded[call_refund]']);
      const points = [-1, refund[0]! - 1, ...refund, ids.indexOf('invocation-done')];
      return inPool(points, 2, async (k) => {
        const outcome = await session.run({ kills: [k], interleaving: [] });
        expect(eventIdentities(outcome.lives[0]!.events)).toEqual(ids.slice(0, k + 1));
        if (ids[k] === 'shop-commit[call_refund]') {
          // The recovery runs only the steps the journal lacks: the refund again, then the last model
          // call, the first this life makes (numbered from 0 in every life, as in the model).
          const recovered = outcome.lives[1]!.events.filter((e) => e.kind === 'model-request' || e.kind === 'tool-start').map((e) => eventIdentities([e])[0]);
          expect(recovered).toEqual(['tool-start[call_refund]', 'model-request[model 0]']);
        }
        const verdict = judge(dana, outcome, baseline);
        const moment = scriptedMoment(events, k);
        const mk = moment === 'start' ? -1 : findKillPoint(modelBaseline.lives[0]!.events, moment)!;
        const modelVerdict = judge(dana, runSchedule(model, dana, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
        return { identity: k < 0 ? 'start' : ids[k]!, failed: failedChecks({ scenario: dana, outcome, verdict }), doneTwice: verdict.doneTwice.map(String), differences: verdictDifferences(verdict, modelVerdict) };
      });
    });
    expect(judged.filter((j) => j.failed.length > 0).map((j) => j.identity)).toEqual(['shop-commit[call_refund]', 'tool-result[call_refund]']);
    expect(judged.find((j) => j.failed.length > 0)!.doneTwice).toEqual(['refund O-1042/L1 {"amountCents":7950,"lineId":"L1","orderId":"O-1042"}']);
    expect(judged.flatMap((j) => j.differences.map((d) => `${j.identity}: ${d}`))).toEqual([]);
  }, 120_000);

  it('the commands: no keys, the refund done twice (exit 1); with keys, a kill in the gap and one during the recovery, and Ivan killed after each cancellation, keep every promise (exit 0); nothing left', async () => {
    const [plain, keyed, ivanKeyed] = await Promise.all([
      killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'ai-middleware', '--schedule', 'shop-commit[call_refund]']),
      killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'ai-middleware+keys', '--schedule', 'shop-commit[call_refund],tool-start[call_refund]']),
      killpointCommand(['check', T03, '--engine', 'restate', '--strategy', 'ai-middleware+keys', '--schedule', 'shop-commit[call_cancel-both_1],shop-commit[call_cancel-both_2]']),
    ]);
    for (const r of [plain, keyed, ivanKeyed]) {
      expect(r.stderr).toBe('');
      expect(r.left).toEqual([]);
    }
    expect(plain.stdout).toMatch(/done twice/);
    expect(plain.status).toBe(1);
    expect(keyed.stdout).toMatch(/life 2 \(recovery 1\): \d+ events, killed after event \d+/);
    expect(keyed.status).toBe(0);
    expect(ivanKeyed.stdout).toMatch(/life 2 \(recovery 1\): \d+ events, killed after event \d+/);
    expect(ivanKeyed.status).toBe(0);
  }, 120_000);
});
