// The explorer runs every schedule it says it runs, judges each, and finds what the strategies
// are known to do on the chapter's tasks.
import { describe, expect, it } from 'vitest';
import { baselineInterleavings, explore } from '../src/harness/search/explore.js';
import { promisedChecks } from '../src/harness/engines/scripted/promises.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { STRATEGY_NAMES, strategy } from '../src/harness/engines/scripted/strategies.js';
import { loadScenarioFile } from '../src/model/load.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';

const dana = loadScenarioFile('scenarios/lantern/T01-dana-torn-pad.json');
const ivan = loadScenarioFile('scenarios/lantern/T03-ivan-two-orders.json');

describe('explore', () => {
  it('runs every single kill point from -1 to the last event', () => {
    const length = simulate(dana, 'journal', { kills: [], interleaving: [] }).lives[0]!.events.length;
    const e = explore(dana, scripted('journal'));
    expect(e.schedulesExplored).toBe(length + 1);
    // Killed after the commit, after the result, after the temp journal write: three repeats.
    expect(e.failures['done-twice']).toBe(3);
    expect(e.brokenPromises).toEqual([]);
  });

  it('with two kills, runs every kill point of every recovery life too', () => {
    const one = explore(dana, scripted('workflow+keys'), { kills: 1, interleavingBound: 1, seed: 1 });
    const two = explore(dana, scripted('workflow+keys'), { kills: 2, interleavingBound: 1, seed: 1 });
    let expected = one.schedulesExplored;
    for (let k = -1; k < one.schedulesExplored - 1; k++) expected += 1 + (simulate(dana, 'workflow+keys', { kills: [k], interleaving: [] }).lives[1]?.events.length ?? 0);
    expect(two.schedulesExplored).toBe(expected);
    expect(two.brokenPromises).toEqual([]);
  });

  it('enumerates every interleaving of parallel calls when they fit the bound, each once', () => {
    const { list, coverage } = baselineInterleavings(ivan, scripted('restart'), { kills: 1, interleavingBound: 100_000, seed: 1 });
    expect(coverage.exhaustive).toBe(true);
    const keys = list.map((i) => i.picks.join(','));
    expect(new Set(keys).size).toBe(keys.length);
    // Two reads of 2 events each (start, result) then two cancels of 3 (start, commit, result):
    // C(4,2) * C(6,3) orders of the events.
    expect(list.length).toBe(6 * 20);
  });

  it('explores by equivalence: the same results as every schedule run from scratch, and says how many lives covered them', () => {
    // Every order of Ivan's parallel calls: kill points that leave the same durable state, in any
    // order, share one recovery (a recovery also reads the picks it consumes, so orders share the
    // lives that consume the same ones).
    const options = { kills: 1 as const, interleavingBound: 120, seed: 1 };
    const reduced = explore(ivan, scripted('workflow+keys'), options);
    const { reduction, ...rest } = reduced;
    const { reduction: none, ...fromScratch } = explore(ivan, scripted('workflow+keys'), { ...options, reduce: false });
    expect(rest).toEqual(fromScratch);
    expect(none).toBeNull();
    expect(reduction!.interleavings).toBe(120);
    expect(reduction!.schedulesCovered).toBe(reduced.schedulesExplored);
    // Every baseline is a life run once, cut for its kill points; each other life is a recovery.
    expect(reduction!.livesRun).toBeLessThan(reduction!.schedulesCovered / 4);
    expect(reduction!.livesUnreduced).toBe(2 * reduction!.schedulesCovered);
    expect(reduction!.verdictsJudged).toBeLessThan(reduction!.schedulesCovered / 2);
  });

  it('above the bound, explores a seeded sample and says so', () => {
    const e = explore(ivan, scripted('journal'), { kills: 1, interleavingBound: 8, seed: 3 });
    expect(e.interleavings).toEqual({ explored: 8, exhaustive: false, sampleSeed: 3, bound: 8 });
    expect(explore(ivan, scripted('journal'), { kills: 1, interleavingBound: 8, seed: 3 })).toEqual(e);
  });

  it('every strategy keeps its promises on the bundled tasks; each broken variant breaks one', () => {
    for (const name of STRATEGY_NAMES) expect(explore(ivan, scripted(name), { kills: 1, interleavingBound: 4, seed: 1 }).brokenPromises).toEqual([]);
    expect(explore(dana, scripted('journal+random-keys')).brokenPromises).toContain('done-twice');
    expect(explore(ivan, scripted('journal+keys/last-message')).brokenPromises).toContain('invalid-conversation');
    expect(explore(dana, scripted('journal/entry-before-write')).brokenPromises).toEqual(['lost-write']);
  });

  it('promises: keys everything, journal and workflow no lost write, restart a valid conversation; every one answer once', () => {
    expect(promisedChecks(strategy('journal+keys'))).toHaveLength(9);
    expect(promisedChecks(strategy('workflow'))).toEqual(['lost-write', 'invalid-conversation', 'half-answer', 'answer-twice']);
    expect(promisedChecks(strategy('restart'))).toEqual(['invalid-conversation', 'half-answer', 'answer-twice']);
  });
});
