// The explorer by equivalence (src/harness/search/equivalence.ts) against runs from scratch, kill point by
// kill point: for each schedule it covers, the verdict it gives (its prefix's tallies combined with
// a shared recovery) must equal judge() of the same schedule run from fresh stores, field by field
// and in field order, and the checks it counts must be the ones that run fails. Here: every single
// kill of every bundled scenario under every strategy and broken variant; a stride through their
// two-kill schedules; three kills and other interleavings of the parallel-call task. The full
// comparison, every one- and two-kill schedule, is `npx tsx bench/equivalence.ts`.

import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { noKills } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { ALL_STRATEGY_NAMES, type AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { lanternScenario, lanternScenarios } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { exploreByEquivalence, type EquivalenceCase } from '../src/harness/search/equivalence.js';

/** Compares the reduced verdict of every `stride`-th schedule (and every single kill) with a run from scratch. */
function compare(scenario: Scenario, name: AnyStrategyName, maxKills: number, stride: number, interleaving: number[] = []): { covered: number; compared: number; differ: string[] } {
  const system = scripted(name);
  const baseline = simulate(scenario, name, noKills(interleaving));
  const differ: string[] = [];
  let covered = 0;
  let compared = 0;
  const check = (c: EquivalenceCase): void => {
    covered++;
    if (c.kills.length > 1 && covered % stride !== 0) return;
    compared++;
    const schedule = { kills: c.kills, interleaving: baseline.picksTaken };
    const fresh = simulate(scenario, name, schedule);
    const verdict = judge(scenario, fresh, baseline);
    const where = `${scenario.id} ${name} kills [${c.kills.join(',')}] interleaving [${interleaving.join(',')}]`;
    if (JSON.stringify(c.verdict()) !== JSON.stringify(verdict)) differ.push(`${where}: verdict`);
    else if (!isDeepStrictEqual([...c.failed], failedChecks({ scenario, outcome: fresh, verdict }))) differ.push(`${where}: failed checks`);
    // The run the verdict stands for is the run from scratch (its lives, picks, stores, conversation).
    else if (compared % 7 === 0 && !isDeepStrictEqual(c.outcome(), fresh)) differ.push(`${where}: outcome`);
  };
  exploreByEquivalence(scenario, system, [{ picks: baseline.picksTaken, baseline }], maxKills, check);
  return { covered, compared, differ };
}

describe('exploring by equivalence gives every kill point the verdict of its run from scratch', () => {
  it('every single kill and a stride of two kills, every bundled scenario, every strategy and broken variant', () => {
    let covered = 0;
    let compared = 0;
    const differ: string[] = [];
    for (const scenario of lanternScenarios()) {
      for (const name of ALL_STRATEGY_NAMES) {
        const r = compare(scenario, name, 2, 151);
        covered += r.covered;
        compared += r.compared;
        differ.push(...r.differ);
      }
    }
    expect(differ.slice(0, 20)).toEqual([]);
    expect(covered).toBeGreaterThan(300_000);
    expect(compared).toBeGreaterThan(10_000);
  });

  it('three kills and other interleavings of the parallel-call task', () => {
    const t03 = lanternScenario('T03');
    const differ: string[] = [];
    for (const name of ['journal', 'workflow+keys', 'journal+keys/last-message', 'workflow+random-keys'] as const) {
      differ.push(...compare(t03, name, 3, 997).differ);
      for (const interleaving of [[1, 0, 1], [1, 1, 1, 1, 1, 1]]) differ.push(...compare(t03, name, 2, 97, interleaving).differ);
    }
    expect(differ.slice(0, 20)).toEqual([]);
  });

  it('every order of the parallel-call task in one exploration: lives and verdicts shared across orders, each judged against its own baseline', () => {
    const t03 = lanternScenario('T03');
    const differ: string[] = [];
    let compared = 0;
    for (const name of ['restart', 'journal', 'workflow', 'journal+keys/last-message'] as const) {
      const system = scripted(name);
      const baselines = new Map<string, ReturnType<typeof simulate>>();
      let covered = 0;
      const result = exploreByEquivalence(t03, system, { search: { kills: 1, interleavingBound: 120, seed: 1 } }, 1, () => undefined);
      // Again, now comparing: each order's schedules against runs from scratch under that order.
      exploreByEquivalence(t03, system, result.list, 2, (c) => {
        if (++covered % (c.kills.length === 1 ? 3 : 211) !== 0) return;
        const picks = result.list[c.order]!.picks;
        let baseline = baselines.get(picks.join(','));
        if (baseline === undefined) baselines.set(picks.join(','), (baseline = simulate(t03, name, noKills(picks))));
        const fresh = simulate(t03, name, { kills: c.kills, interleaving: picks });
        compared++;
        if (JSON.stringify(c.verdict()) !== JSON.stringify(judge(t03, fresh, baseline))) differ.push(`${name} kills [${c.kills.join(',')}] interleaving [${picks.join(',')}]`);
      });
      expect(result.list.length).toBe(120);
    }
    expect(differ.slice(0, 20)).toEqual([]);
    expect(compared).toBeGreaterThan(4000);
  });

  it('recoveries are shared, verdicts are not: Dana under journal runs fewer lives than kill points, and their verdicts still differ', () => {
    // A tally that forgot the prefix (say, its answer restarts) fails the two tests above at once:
    // kill points of one durable state (before and after a model request) share a recovery, not a verdict.
    const dana = lanternScenario('T01');
    const system = scripted('journal');
    const baseline = simulate(dana, 'journal', noKills());
    const cases: EquivalenceCase[] = [];
    const result = exploreByEquivalence(dana, system, [{ picks: [], baseline }], 1, (c) => cases.push(c));
    expect(result.reduction.livesRun).toBeLessThan(cases.length / 2);
    const otherCounts = cases.filter((c) => c.verdict().modelCallsRedone !== cases[0]!.verdict().modelCallsRedone);
    expect(otherCounts.length).toBeGreaterThan(0);
  });
});

describe('each broken promise keeps its own earliest schedule, by equivalence as from scratch', () => {
  it('every bundled scenario, every strategy and broken variant, single kills', async () => {
    const { explore } = await import('../src/harness/search/explore.js');
    const differ: string[] = [];
    for (const scenario of lanternScenarios()) {
      for (const name of ALL_STRATEGY_NAMES) {
        const options = { kills: 1 as const, interleavingBound: 4, seed: 1 };
        const reduced = explore(scenario, scripted(name), options);
        const full = explore(scenario, scripted(name), { ...options, reduce: false });
        if (!isDeepStrictEqual(reduced.minimalByCheck, full.minimalByCheck)) differ.push(`${scenario.id} ${name}: minimalByCheck`);
        if (!isDeepStrictEqual(reduced.minimal?.schedule, full.minimal?.schedule)) differ.push(`${scenario.id} ${name}: minimal`);
      }
    }
    expect(differ).toEqual([]);
  });
});
