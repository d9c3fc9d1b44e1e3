// Recoveries that join a life already explored (SessionLives.runHead): a life stopped at its first
// join point goes on as the life started from the state it reached, so each recovery runs only
// what it does before it meets a state explored before. Soundness is the point: the explorer's
// comparisons with runs from scratch (test/equivalence.test.ts, properties/equivalence.test.ts)
// run with joins; here, what joins save, and a join claimed where the life still holds something
// its stores do not, caught by the same comparison.

import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { noKills } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import type { InProcessLives, InProcessSystem, LifeHead, LifeRun, LifeStart } from '../src/harness/engine.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import type { AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { join } from 'node:path';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { exploreByEquivalence, type ReductionFigures } from '../src/harness/search/equivalence.js';

/** Every schedule of 1 to `maxKills` kills explored by equivalence, each single kill and every `stride`-th other compared with its run from scratch. */
function differences(scenario: Scenario, name: AnyStrategyName, system: InProcessSystem, maxKills: number, stride = 1): { differ: string[]; reduction: ReductionFigures } {
  const baseline = simulate(scenario, name, noKills());
  const differ: string[] = [];
  let seen = 0;
  const result = exploreByEquivalence(scenario, system, [{ picks: baseline.picksTaken, baseline }], maxKills, (c) => {
    if (c.kills.length > 1 && ++seen % stride !== 0) return;
    const fresh = simulate(scenario, name, { kills: c.kills, interleaving: baseline.picksTaken });
    const verdict = judge(scenario, fresh, baseline);
    const where = `${name} kills [${c.kills.join(',')}]`;
    if (JSON.stringify(c.verdict()) !== JSON.stringify(verdict)) differ.push(`${where}: verdict`);
    else if (!isDeepStrictEqual([...c.failed], failedChecks({ scenario, outcome: fresh, verdict }))) differ.push(`${where}: failed checks`);
  });
  return { differ, reduction: result.reduction };
}

/** The same system, the lives of each of its sessions changed by `change`. */
function withLives(system: InProcessSystem, change: (lives: InProcessLives) => InProcessLives): InProcessSystem {
  return {
    ...system,
    open: (scenario) => {
      const session = system.open(scenario);
      return { ...session, lives: change(session.lives!) };
    },
  };
}

/** The same system without join points: every recovery runs to its end. */
function withoutJoins(system: InProcessSystem): InProcessSystem {
  return withLives(system, ({ runHead: _runHead, ...lives }) => lives);
}

/**
 * Broken on purpose: claims join points right after every event of a kind, where the life still
 * holds something its stores do not (a refund's result not yet journaled): in the lives run to
 * their end and in the heads alike.
 */
function joinsAfterEvery(system: InProcessSystem, kind: string): InProcessSystem {
  return withLives(system, (lives) => {
    const claimed = (run: LifeRun): number[] => run.record.events.flatMap((e, k) => (e.kind === kind && k < run.record.events.length - 1 ? [k] : []));
    const runLife = (start: LifeStart): LifeRun => {
      const run = lives.runLife(start) as LifeRun;
      return { ...run, joinPoints: claimed(run) };
    };
    const runHead = (start: LifeStart): LifeRun | LifeHead => {
      const run = runLife(start);
      const k = run.joinPoints![0];
      if (k === undefined) return run;
      const taken = run.after(k).picksTaken;
      return { events: run.record.events.slice(0, k + 1), picks: run.picks.slice(0, taken), widths: run.widths.slice(0, taken), after: (j) => run.after(j), joins: run.after(k).state };
    };
    return { ...lives, runLife, runHead };
  });
}

/** Broken on purpose: every head "joins" the state it started from, after its first event. */
function headsJoinTheirStart(system: InProcessSystem): InProcessSystem {
  return withLives(system, (lives) => {
    const runHead = (start: LifeStart): LifeRun | LifeHead => {
      const run = lives.runLife(start) as LifeRun;
      if (run.record.events.length < 2) return run;
      return { events: run.record.events.slice(0, 1), picks: [], widths: [], after: (j) => run.after(j), joins: start.state };
    };
    return { ...lives, runHead };
  });
}

describe('recoveries joined to lives already explored', () => {
  it('run nothing or only their heads: a journal recovery begins at a join point of the baseline\'s own life', () => {
    // A long task of few writes: one distinct state per step, each recovery the rest of the task.
    const looks = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'looks-then-refund.json'));
    const joinedRun = differences(looks, 'journal+keys', scripted('journal+keys'), 1);
    const unjoinedRun = differences(looks, 'journal+keys', withoutJoins(scripted('journal+keys')), 1);
    expect([...joinedRun.differ, ...unjoinedRun.differ]).toEqual([]);
    const joined = joinedRun.reduction;
    const unjoined = unjoinedRun.reduction;
    expect(joined.schedulesCovered).toBe(unjoined.schedulesCovered);
    expect(unjoined.livesJoined).toBeUndefined();
    expect(joined.livesJoined).toBeGreaterThan(0);
    // The baseline, a few heads, and the lives run again whole for the verdicts judged.
    expect(joined.livesRun).toBeLessThan(unjoined.livesRun / 2);
    expect(joined.eventsRun).toBeLessThan(unjoined.eventsRun / 2);
    expect(joined.verdictsJudged).toBeLessThan(unjoined.verdictsJudged);
  });

  it('join points claimed where the life holds more than its stores are caught by the comparison with runs from scratch', () => {
    const dana = lanternScenario('T01');
    // Right after the refund commits, its result is only in memory: a life started there sends it again.
    const broken = differences(dana, 'journal+keys', joinsAfterEvery(scripted('journal+keys'), 'shop-commit'), 1);
    expect(broken.differ.length).toBeGreaterThan(0);
  });

  it('a life that would join a state it has already been in is a runaway, said as such', () => {
    const dana = lanternScenario('T01');
    expect(() => differences(dana, 'journal+keys', headsJoinTheirStart(scripted('journal+keys')), 1)).toThrow(/already been in and would go on for ever/);
  });
});
