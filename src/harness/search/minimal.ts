// Finishing off a shrunk counterexample, for any system under test. fast-check's integer shrinking stops at a local minimum
// (a kill point whose neighbour below passes can hide an earlier failing one further down), so
// for the agent and interleaving of a failing case this scans every smaller schedule in order:
// fewest kills first, then the earliest kills (lexicographically, life by life). Schedules of one
// and two kills are scanned exhaustively; above that, or above RUNS_MAX runs, each kill in turn is
// moved as early as it still fails, which is minimal kill by kill but not proven minimal overall.

import type { Scenario } from '../../model/scenario.js';
import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { Answer, SystemUnderTest } from '../engine.js';
import { andThen } from '../maybe-promise.js';
import { withSession } from '../session.js';
import { judgeCasePlan, runOne, type JudgedCase } from './explore.js';
import { runPlan, type DriveOptions, type Plan } from './plan.js';

/** Most runs spent on the exhaustive scan before falling back to kill-by-kill descent. */
const RUNS_MAX = 40_000;

/** The kills a run actually suffered (a kill point past a life's end kills nothing). */
export function effectiveKills(outcome: RunOutcome): number[] {
  return outcome.lives.filter((l) => l.end === 'killed').map((l) => l.killedAfter!);
}

export interface MinimalResult {
  judged: JudgedCase;
  /** True when every smaller schedule was run and passed. */
  proven: boolean;
}

export function* findMinimalPlan(scenario: Scenario, system: SystemUnderTest, failing: Schedule, fails: (j: JudgedCase) => boolean): Plan<MinimalResult> {
  const baseline = yield* runOne({ kills: [], interleaving: failing.interleaving });
  const judged = (kills: number[]): Plan<JudgedCase> => judgeCasePlan(scenario, system, { kills, interleaving: failing.interleaving }, baseline);
  const start = yield* judged(failing.kills);
  if (!fails(start)) throw new Error('findMinimal: the schedule given does not fail');
  const kills = effectiveKills(start.outcome);
  let budget = RUNS_MAX;

  // Exhaustive: one kill, then two kills, in order. Stops at the first failure (it is the minimum).
  const lifeLength = function* (prefix: number[]): Plan<number> {
    return (yield* runOne({ kills: prefix, interleaving: failing.interleaving })).lives[prefix.length]?.events.length ?? 0;
  };
  const scan = function* (prefix: number[], depth: number): Plan<JudgedCase | null> {
    const length = yield* lifeLength(prefix);
    for (let k = -1; k < length; k++) {
      if (budget-- <= 0) return null;
      const schedule = [...prefix, k];
      if (depth === 1) {
        const j = yield* judged(schedule);
        if (fails(j)) return j;
      } else {
        const found = yield* scan(schedule, depth - 1);
        if (found) return found;
      }
    }
    return null;
  };
  let exhausted = true;
  for (let count = 1; count <= Math.min(2, kills.length); count++) {
    const found = yield* scan([], count);
    if (found) return { judged: found, proven: budget > 0 };
    if (budget <= 0) {
      exhausted = false;
      break;
    }
  }

  // Descent: move each kill as early as it still fails, keeping the others.
  let best = kills;
  let bestCase = yield* judged(best);
  for (let i = 0; i < best.length; i++) {
    for (let k = -1; k < best[i]!; k++) {
      const candidate = [...best.slice(0, i), k, ...best.slice(i + 1)];
      const j = yield* judged(candidate);
      if (fails(j)) {
        best = effectiveKills(j.outcome);
        bestCase = j;
        break;
      }
    }
  }
  return { judged: bestCase, proven: exhausted && kills.length <= 2 };
}

/**
 * The minimal failing schedule (see above), every run in one session of the system: a plain value
 * for a system typed in process, else await it.
 */
export function findMinimal<S extends SystemUnderTest>(scenario: Scenario, system: S, failing: Schedule, fails: (j: JudgedCase) => boolean, drive?: DriveOptions): Answer<S, MinimalResult> {
  const sys: SystemUnderTest = system;
  return withSession(sys, scenario, (session) => runPlan(findMinimalPlan(scenario, sys, failing, fails), session, drive)) as Answer<S, MinimalResult>;
}

/** The minimal failing case for this agent and interleaving (see findMinimal). */
export function minimalSchedule<S extends SystemUnderTest>(scenario: Scenario, system: S, failing: Schedule, fails: (j: JudgedCase) => boolean, drive?: DriveOptions): Answer<S, JudgedCase> {
  const sys: SystemUnderTest = system;
  return andThen(findMinimal(scenario, sys, failing, fails, drive), (r) => r.judged) as Answer<S, JudgedCase>;
}
