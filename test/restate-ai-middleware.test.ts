// Restate's AI SDK middleware under killpoint: each turn of the agent loop is the AI SDK's
// generateText, the model wrapped in Restate's durableCalls (each model call a ctx.run step), each
// tool call a ctx.run step, on a real restate-server, each life the service on an endpoint of
// killpoint's process torn down at its kill point (proved equal to SIGKILL by npm run
// differential:in-process). The sample npm test runs (every kill point of the 14 tasks is `npm run restate`):
//   - Dana's refund at the kill points around it, in one session: the earliest that fails is the
//     refund's commit, done twice, each verdict the scripted workflow's at the same moment, and the
//     recovery runs only the steps the journal lacks (the refund again, the last model call);
//   - the commands: without keys a kill at the refund's commit exits 1 (done twice); with keys a
//     kill in the gap and another during the recovery exit 0, and so do Ivan's cancellations, run
//     side by side (RestatePromise.all) through the gate and killed after each commit (the kill
//     points name both calls: without the gate's batch the schedule is not found). Nothing of any
//     command is left.

import { afterAll, describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { killpointCommand, leftByThisProcess } from './helpers.js';
import { danaAroundTheRefund, expectRefundDoneTwiceFromItsCommit } from './restate-sample.js';

const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const T03 = 'scenarios/lantern/T03-ivan-two-orders.json';

afterAll(() => {
  expect(leftByThisProcess('killpoint-restate')).toEqual([]);
});

describe('restate ai-middleware', () => {
  it("Dana's refund: the earliest kill point that fails is the refund's commit, done twice, as the scripted workflow says at each moment; the recovery runs only what the journal lacks", async () => {
    const judged = await danaAroundTheRefund(
      'ai-middleware',
      (events) => {
        // Each model call and each tool call was a step that ran and was journaled.
        const steps = events.filter((e) => e.kind === 'model-request' || e.kind === 'tool-start').length;
        expect(events.filter((e) => e.kind === 'run-start')).toHaveLength(steps);
        expect(events.filter((e) => e.kind === 'step-recorded')).toHaveLength(steps);
        expect(eventIdentities(events).slice(-2)).toEqual(['invocation-done', 'answer-delivered']);
      },
      (identity, outcome) => {
        if (identity !== 'shop-commit[call_refund]') return;
        // The recovery runs only the steps the journal lacks: the refund again, then the last model
        // call, the first this life makes (numbered from 0 in every life, as in the model).
        const recovered = outcome.lives[1]!.events.filter((e) => e.kind === 'model-request' || e.kind === 'tool-start');
        expect(eventIdentities(recovered)).toEqual(['tool-start[call_refund]', 'model-request[model 0]']);
      },
    );
    expectRefundDoneTwiceFromItsCommit(judged);
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
