// Restate under killpoint: a real restate-server (one per session, in a private temp folder), the
// agent a Restate service, each life its endpoint in killpoint's process torn down at the kill
// point (as SIGKILL would: npm run differential:in-process) and recovered by the server's retry
// into a fresh one. The sample npm test runs (every kill point of the 14 tasks
// is `npm run restate`, bench/restate.ts):
//   - Dana's refund at the kill points around it, in one session: the earliest that fails is the
//     refund's commit, the refund done twice, and each verdict is the scripted workflow's at the
//     same moment; `killpoint check --engine restate --strategy service` replays it (exit 1);
//   - with keys, a kill in the gap and a second during the recovery keep every promise (exit 0);
//     the broken random keys are caught (exit 1);
//   - Ivan's parallel cancellations: the order is killpoint's to choose and repeats; with keys a
//     kill after the first commit and another after the second keep every promise (exit 0).
// After each command, nothing of it is left: no server, no child, no temp folder.

import { afterAll, describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { judge } from '../src/harness/check/verdict.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { withSession } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';
import { killpointCommand, leftByThisProcess } from './helpers.js';
import { danaAroundTheRefund, expectRefundDoneTwiceFromItsCommit } from './restate-sample.js';

const ivan = lanternScenario('T03');
const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const T03 = 'scenarios/lantern/T03-ivan-two-orders.json';
const NONE = { kills: [], interleaving: [] };

afterAll(() => {
  expect(leftByThisProcess('killpoint-restate')).toEqual([]);
});

describe('restate', () => {
  it("Dana's refund: the earliest kill point that fails is the refund's commit, done twice, as the scripted workflow says at each moment; the command replays it (exit 1)", async () => {
    const command = killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'service', '--schedule', 'shop-commit[call_refund]']);
    const judged = await danaAroundTheRefund('service', (events) => {
      // Every step that ran was journaled, and Restate's own moments are there.
      expect(events.filter((e) => e.kind === 'step-recorded')).toHaveLength(events.filter((e) => e.kind === 'run-start').length);
      expect(eventIdentities(events).slice(-2)).toEqual(['invocation-done', 'answer-delivered']);
    });
    expectRefundDoneTwiceFromItsCommit(judged);

    const r = await command;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/done twice/);
    expect(r.stdout).toMatch(/<-- KILL/);
    expect(r.left).toEqual([]);
  }, 120_000);

  it('with keys: a kill in the gap and a second kill during the recovery keep every promise (exit 0); Ivan\'s cancellations with keys, killed after the first commit and again after the second (exit 0); the broken random keys are caught (exit 1)', async () => {
    const [keyed, ivanKeyed, random] = await Promise.all([
      killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'service+keys', '--schedule', 'shop-commit[call_refund],tool-start[call_refund]']),
      // Killed after the first cancellation's commit, then the recovery after the second's.
      killpointCommand(['check', T03, '--engine', 'restate', '--strategy', 'service+keys', '--schedule', 'shop-commit[call_cancel-both_1],shop-commit[call_cancel-both_2]']),
      killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'service+random-keys', '--schedule', 'shop-commit[call_refund]']),
    ]);
    for (const r of [keyed, ivanKeyed, random]) {
      expect(r.stderr).toBe('');
      expect(r.left).toEqual([]);
    }
    expect(keyed.stdout).toMatch(/life 2 \(recovery 1\): \d+ events, killed after event \d+/);
    expect(keyed.status).toBe(0);
    expect(ivanKeyed.stdout).toMatch(/life 2 \(recovery 1\): \d+ events, killed after event \d+/);
    expect(ivanKeyed.status).toBe(0);
    expect(random.stdout).toMatch(/done twice/);
    expect(random.status).toBe(1);
  }, 120_000);

  it("the order of Ivan's parallel cancellations is killpoint's to choose: the same picks give the same events, other picks another order", async () => {
    const system = restateSystem('service+keys')!;
    await withSession(system, ivan, async (session) => {
      const [a, b] = await Promise.all([session.run(NONE), session.run(NONE)]);
      expect(b.lives[0]!.events).toEqual(a.lives[0]!.events);
      expect(a.pickWidths.some((w) => w > 1)).toBe(true);
      const other = a.picksTaken.map((p, i) => (a.pickWidths[i]! > 1 ? a.pickWidths[i]! - 1 - p : p));
      const [c, d] = await Promise.all([session.run({ kills: [], interleaving: other }), session.run({ kills: [], interleaving: other })]);
      expect(d.lives[0]!.events).toEqual(c.lives[0]!.events);
      expect(eventIdentities(c.lives[0]!.events)).not.toEqual(eventIdentities(a.lives[0]!.events));
      expect(judge(ivan, c, a).sameAnswer).toBe(true);
    });
    expect(leftByThisProcess('killpoint-restate')).toEqual([]);
  }, 120_000);
});
