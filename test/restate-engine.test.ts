// Restate under killpoint: a real restate-server (one per session, in a private temp folder), the
// agent a Restate service, each life the service's process killed with SIGKILL and recovered by
// the server's retry into a fresh one. The sample npm test runs (every kill point of the 14 tasks
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
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { failedChecks } from '../src/harness/check/checks.js';
import { MODELLED_BY, scriptedMoment, verdictDifferences } from '../src/harness/engines/restate/differential.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { inPool } from '../src/harness/process/pool.js';
import { runSchedule, withSession } from '../src/harness/session.js';
import { lanternScenario } from '../src/model/load.js';
import { killpointCommand, leftByThisProcess } from './helpers.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const T01 = 'scenarios/lantern/T01-dana-torn-pad.json';
const T03 = 'scenarios/lantern/T03-ivan-two-orders.json';
const NONE = { kills: [], interleaving: [] };

afterAll(() => {
  expect(leftByThisProcess('killpoint-restate')).toEqual([]);
});

describe('restate', () => {
  it("Dana's refund: the earliest kill point that fails is the refund's commit, done twice, as the scripted workflow says at each moment; the command replays it (exit 1)", async () => {
    const system = restateSystem('service')!;
    const command = killpointCommand(['check', T01, '--engine', 'restate', '--strategy', 'service', '--schedule', 'shop-commit[call_refund]']);
    const model = scripted(MODELLED_BY.service!);
    const modelBaseline = runSchedule(model, dana, NONE) as RunOutcome;
    const judged = await withSession(system, dana, async (session) => {
      const baseline = await session.run(NONE);
      const events = baseline.lives[0]!.events;
      const ids = eventIdentities(events);
      // Every step that ran was journaled, and Restate's own moments are there.
      expect(events.filter((e) => e.kind === 'step-recorded')).toHaveLength(events.filter((e) => e.kind === 'run-start').length);
      expect(ids.slice(-2)).toEqual(['invocation-done', 'answer-delivered']);
      // Before anything, the step before the refund's, every moment of the refund's step, and the invocation's output.
      const refund = ids.flatMap((id, k) => (id.endsWith('[call_refund]') ? [k] : []));
      expect(refund.map((k) => ids[k])).toEqual(['run-start[call_refund]', 'tool-start[call_refund]', 'shop-commit[call_refund]', 'tool-result[call_refund]', 'step-recorded[call_refund]']);
      const points = [-1, refund[0]! - 1, ...refund, ids.indexOf('invocation-done')];
      return inPool(points, 2, async (k) => {
        const outcome = await session.run({ kills: [k], interleaving: [] });
        // The killed life is the baseline's, event for event, up to its kill point.
        expect(eventIdentities(outcome.lives[0]!.events)).toEqual(ids.slice(0, k + 1));
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
