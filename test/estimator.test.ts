import { describe, it, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import type { IntervalKind, RunEvent } from '../src/harness/check/events.js';
import {
  baselineEvents,
  CHAPTER_WINDOW,
  estimateRun,
  estimateSet,
  INTERVAL_KINDS,
  killsForChance,
  retimeGaps,
  waitingShare,
  type IntervalShares,
} from '../src/harness/chapter/estimator.js';
import { checkExactAgainstSample, monteCarloKills, wilsonInterval, Z_99_SIX_KINDS, zForSimultaneous } from '../src/harness/chapter/monte-carlo.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { lanternScenario, lanternScenarios } from '../src/model/load.js';

/** A run from a list of [interval width in ms, kind]: event i ends interval i. */
function runOf(intervals: ReadonlyArray<[number, IntervalKind]>): RunEvent[] {
  let atMs = 0;
  return [
    { index: 0, kind: 'model-request', atMs: 0, interval: 'other' },
    ...intervals.map(([widthMs, interval], i): RunEvent => {
      atMs += widthMs;
      return { index: i + 1, kind: interval === 'write-before-commit' ? 'shop-commit' : 'tool-result', atMs, interval };
    }),
  ];
}

/** About 2 s, like the chapter's runs: one write whose gap is 0.13 ms. */
const TWO_SECOND_RUN = runOf([
  [900, 'model'],
  [0.87, 'other'],
  [150, 'write-before-commit'],
  [0.13, 'gap'],
  [949, 'model'],
]);

const lantern = lanternScenarios().map((s) => ({ id: s.id, events: baselineEvents(s) }));

describe('the exact odds', () => {
  it('gives about one gap hit in 13,000 kills for a 0.13 ms gap in a 2-second run', () => {
    const e = estimateRun(TWO_SECOND_RUN);
    // Kills fall in 5%..95% of 2000 ms, a 1800 ms window: 1800 / 0.13 = 13,846 kills per hit.
    expect(e.durationMs).toBeCloseTo(2000, 9);
    expect(e.expectedKillsPerHit).toBeCloseTo(1800 / 0.13, 6);
    // The chapter's "about 13,000" rounds 0.9 x (2.0..2.1 s) / 0.13 ms = 13,800..14,500; 15% covers that.
    expect(Math.abs(e.expectedKillsPerHit / 13_000 - 1)).toBeLessThan(0.15);
  });

  it("gives about one hit in 13,000 for Dana's own run, which is about 2 s with one write", () => {
    const dana = estimateRun(baselineEvents(lanternScenario('T01')));
    expect(dana.durationMs).toBeGreaterThan(1900);
    expect(dana.durationMs).toBeLessThan(2200);
    expect(dana.writes).toBe(1);
    expect(dana.gapWidthsMs).toHaveLength(1);
    expect(dana.gapWidthsMs[0]).toBeCloseTo(0.13, 9);
    expect(Math.abs(dana.expectedKillsPerHit / 13_000 - 1)).toBeLessThan(0.15);
  });

  it('counts only the part of each interval inside the window, by the kind of the event that ends it', () => {
    // 0..100 model, 100..110 other, 110..200 tool; window 5%..95% = 10..190.
    const e = estimateRun(runOf([[100, 'model'], [10, 'other'], [90, 'tool']]));
    expect(e.windowMs.model).toBeCloseTo(90, 9);
    expect(e.windowMs.other).toBeCloseTo(10, 9);
    expect(e.windowMs.tool).toBeCloseTo(80, 9);
    expect(e.probability.model).toBeCloseTo(90 / 180, 12);
    expect(e.gapHitProbability).toBe(0);
    expect(e.expectedKillsPerHit).toBe(Infinity);
    expect(e.killsFor95).toBe(Infinity);
  });

  it('gives probabilities that add up to 1 for every Lantern run', () => {
    for (const { events } of lantern) {
      const p = estimateRun(events).probability;
      expect(INTERVAL_KINDS.reduce((sum, k) => sum + p[k], 0)).toBeCloseTo(1, 12);
    }
  });

  test.prop([fc.double({ min: 1e-7, max: 0.9, noNaN: true }), fc.constantFrom(0.5, 0.95, 0.99)])(
    'says the fewest random kills that give the chance of at least one hit',
    (p, chance) => {
      const n = killsForChance(p, chance);
      expect(1 - (1 - p) ** n).toBeGreaterThanOrEqual(chance - 1e-9);
      if (n > 1) expect(1 - (1 - p) ** (n - 1)).toBeLessThan(chance + 1e-9);
    },
  );

  it('rejects a window that is not inside the run', () => {
    expect(() => estimateRun(TWO_SECOND_RUN, { window: { fromFraction: 0.5, toFraction: 0.5 } })).toThrow(/kill window/);
    expect(() => estimateRun(TWO_SECOND_RUN, { window: { fromFraction: 0, toFraction: 1.5 } })).toThrow(/kill window/);
  });
});

describe('the gap override', () => {
  it('re-times every gap to a measured width and moves the rest of the run by the change', () => {
    for (const { events } of lantern) {
      const own = estimateRun(events, { window: { fromFraction: 0, toFraction: 1 } });
      const wide = estimateRun(events, { window: { fromFraction: 0, toFraction: 1 }, gap: { gapMs: 0.35 } });
      expect(wide.gapWidthsMs.length).toBe(own.gaps);
      for (const w of wide.gapWidthsMs) expect(w).toBeCloseTo(0.35, 9);
      expect(wide.durationMs - own.durationMs).toBeCloseTo((0.35 - 0.13) * own.gaps, 9);
      for (const kind of ['model', 'tool', 'write-before-commit', 'other'] as const) expect(wide.windowMs[kind]).toBeCloseTo(own.windowMs[kind], 9);
    }
  });

  it('adds a network round trip to the gap, and a zero gap can never be hit', () => {
    const remote = estimateRun(TWO_SECOND_RUN, { gap: { roundTripMs: 40 } });
    expect(remote.gapWidthsMs).toEqual([expect.closeTo(40.13, 9)]);
    expect(remote.expectedKillsPerHit).toBeCloseTo((0.9 * 2040) / 40.13, 6);
    const none = estimateRun(TWO_SECOND_RUN, { gap: { gapMs: 0 } });
    expect(none.gapHitProbability).toBe(0);
    expect(none.killsFor99).toBe(Infinity);
  });

  it('keeps the proportions inside a gap, puts a zero-width gap on its last interval, and leaves its input alone', () => {
    const run = runOf([[10, 'model'], [0, 'gap'], [0.05, 'gap'], [0.15, 'gap'], [10, 'model']]);
    const before = structuredClone(run);
    const scaled = retimeGaps(run, { gapMs: 2 });
    expect(scaled.map((e) => e.atMs)).toEqual([0, 10, 10, 10.5, 12, 22].map((t) => expect.closeTo(t, 9)));
    expect(run).toEqual(before);
    const zero = runOf([[10, 'model'], [0, 'gap'], [0, 'gap'], [10, 'model']]);
    expect(retimeGaps(zero, { roundTripMs: 3 }).map((e) => e.atMs)).toEqual([0, 10, 10, 13, 23]);
  });

  it('rejects a negative or non-finite gap', () => {
    expect(() => estimateRun(TWO_SECOND_RUN, { gap: { gapMs: -1 } })).toThrow(/gapMs/);
    expect(() => estimateRun(TWO_SECOND_RUN, { gap: { roundTripMs: Infinity } })).toThrow(/roundTripMs/);
  });
});

describe('the Monte Carlo check', () => {
  it('computes the Wilson score interval', () => {
    const half = wilsonInterval(50, 100, 1.96);
    expect(half.low).toBeCloseTo(0.4038, 4);
    expect(half.high).toBeCloseTo(0.5962, 4);
    expect(wilsonInterval(0, 100, 1.96)).toEqual({ low: 0, high: expect.closeTo(1.96 ** 2 / (100 + 1.96 ** 2), 12) });
  });

  it('finds every exact probability of every Lantern run inside its Wilson interval', () => {
    for (const { id, events } of lantern) {
      const sample = monteCarloKills(events, { draws: 200_000, seed: `estimator test|${id}` });
      expect(sample.hits['after-end']).toBe(0);
      expect(checkExactAgainstSample(estimateRun(events).probability, sample)).toEqual([]);
    }
  });

  it('finds the exact odds of a widened gap inside the interval too, where the gap is hit often', () => {
    for (const { id, events } of lantern) {
      const gap = { gapMs: 2, roundTripMs: 20 };
      const sample = monteCarloKills(events, { draws: 200_000, seed: `widened|${id}`, gap });
      // A task that writes nothing has no gap to widen (2 of the chapter's 14 do not write).
      if (estimateRun(events).gaps > 0) expect(sample.hits.gap).toBeGreaterThan(1000);
      else expect(sample.hits.gap).toBe(0);
      expect(checkExactAgainstSample(estimateRun(events, { gap }).probability, sample)).toEqual([]);
    }
  });

  it('gives the same figures for the same seed, and others for another seed', () => {
    const events = baselineEvents(lanternScenario('T01'));
    const a = monteCarloKills(events, { draws: 50_000, seed: 'same' });
    const b = monteCarloKills(events, { draws: 50_000, seed: 'same' });
    const c = monteCarloKills(events, { draws: 50_000, seed: 'other' });
    expect(b).toEqual(a);
    expect(c.hits).not.toEqual(a.hits);
  });
});

describe('broken estimators are caught by the Monte Carlo check', () => {
  const events = baselineEvents(lanternScenario('T01')); // Dana: one write
  const sample = monteCarloKills(events, { draws: 200_000, seed: 'broken variants' });

  it('catches an estimator that ignores the window and spreads kills over the whole run', () => {
    const wrong = estimateRun(events, { window: { fromFraction: 0, toFraction: 1 } }).probability;
    expect(checkExactAgainstSample(wrong, sample).map((f) => f.kind)).toContain('model');
  });

  it('catches an estimator that counts the gap as the agent\'s own work', () => {
    const gap = { gapMs: 2, roundTripMs: 20 };
    const widened = monteCarloKills(events, { draws: 200_000, seed: 'broken gap', gap });
    const misclassified = retimeGaps(events, gap).map((e) => (e.interval === 'gap' ? { ...e, interval: 'other' as const } : e));
    const failures = checkExactAgainstSample(estimateRun(misclassified).probability, widened);
    expect(failures.map((f) => f.kind).sort()).toEqual(['gap', 'other']);
  });

  it('catches an estimator that gives each interval the kind of the event before it', () => {
    const shifted = events.map((e, i) => ({ ...e, interval: i === 0 ? e.interval : events[i - 1]!.interval }));
    expect(checkExactAgainstSample(estimateRun(shifted).probability, sample)).not.toEqual([]);
  });

  it('catches a gap probability twice too large at the real 0.13 ms gap, given enough draws', () => {
    const exact = estimateRun(events).probability;
    const doubled: IntervalShares = { ...exact, gap: exact.gap * 2, model: exact.model - exact.gap };
    const many = monteCarloKills(events, { draws: 2_000_000, seed: 'doubled gap' });
    expect(checkExactAgainstSample(exact, many)).toEqual([]);
    expect(checkExactAgainstSample(doubled, many).map((f) => f.kind)).toEqual(['gap']);
  });
});

describe('a scenario set', () => {
  it('gives the chance that k random kills per task find no gap at all, against one aimed kill per write', () => {
    const set = estimateSet(lantern, { killsPerTask: 3 });
    const perTask = lantern.map(({ events }) => estimateRun(events).gapHitProbability);
    expect(set.noGapChance).toBeCloseTo(perTask.reduce((c, p) => c * (1 - p) ** 3, 1), 15);
    expect(set.randomKills).toBe(3 * lantern.length);
    expect(set.gapHitProbability).toBeCloseTo(perTask.reduce((a, b) => a + b, 0) / perTask.length, 15);
    // One aimed kill per committed write, counted from the shop's own write log.
    const writes = lanternScenarios().reduce((n, s) => n + simulate(s, 'journal', { kills: [], interleaving: [] }).writes.length, 0);
    expect(set.aimedKills).toBe(writes);
    // The chapter's point: a handful of random kills almost surely misses every gap.
    expect(set.noGapChance).toBeGreaterThan(0.99);
    expect(estimateSet(lantern, { killsPerTask: 0 }).noGapChance).toBe(1);
  });

  it('spends most of each Lantern run waiting on the model or a tool, as the chapter found (176 of 210 kills)', () => {
    const set = estimateSet(lantern);
    const share = waitingShare(set.probability);
    const chapter = 176 / 210;
    console.log(`Lantern (${lantern.length} tasks): ${(share * 100).toFixed(2)}% of random kills land while waiting on the model or a tool; chapter: 176 of 210 = ${(chapter * 100).toFixed(2)}%`);
    expect(share).toBeGreaterThan(0.5);
    for (const run of set.runs) expect(waitingShare(run.estimate.probability)).toBeGreaterThan(0.5);
    // Computed the same way as the Monte Carlo draws see it.
    const sample = monteCarloKills(baselineEvents(lanternScenario('T01')), { draws: 20_000, seed: 'waiting', window: CHAPTER_WINDOW });
    const sampled = (sample.hits.model + sample.hits.tool + sample.hits['write-before-commit']) / sample.draws;
    expect(sampled).toBeGreaterThan(0.5);
  });
});

describe('intervals that hold together', () => {
  it('z for one 95% interval is the familiar 1.96, and for six at 99% the default 3.144', () => {
    expect(zForSimultaneous(1, 0.95)).toBeCloseTo(1.959964, 5);
    expect(zForSimultaneous(6)).toBeCloseTo(Z_99_SIX_KINDS, 3);
  });

  it('widens with the number of intervals checked at once (6 kinds x 14 scenarios for the command)', () => {
    expect(zForSimultaneous(84)).toBeGreaterThan(zForSimultaneous(6));
    expect(zForSimultaneous(84)).toBeCloseTo(3.848, 3);
  });
});
