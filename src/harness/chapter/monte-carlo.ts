// The estimator's check by sampling: N random kill times from a seeded generator, each mapped by
// killAtTime (not by the estimator's own arithmetic) to the interval in progress. The exact
// probability of every kind must lie inside the sample's Wilson score interval. Same seed, same
// draws, same figures.
//
// Confidence interval: the Wilson score interval for a binomial proportion, two-sided, at
// z = 3.144 by default: six kinds (five intervals and after-end) are checked at once, so each gets
// 0.01/6 (Bonferroni) and all six hold together with at least 99% confidence. A per-kind 95%
// interval would fail one of the six by chance for about one seed in four. The seed is fixed, so
// a check that passes keeps passing; a different seed gives different, equally valid figures.

import seedrandom from 'seedrandom';
import type { IntervalKind, RunEvent } from '../check/events.js';
import { CHAPTER_WINDOW, estimatedEvents, INTERVAL_KINDS, windowMs, type GapOverride, type IntervalShares, type KillWindow } from './estimator.js';
import { killAtTime } from './kill-time.js';

/** z for six two-sided intervals that hold together with 99% confidence (each at 1 - 0.01/6). */
export const Z_99_SIX_KINDS = 3.144;

/**
 * z for `intervals` two-sided intervals that hold together with `confidence` (Bonferroni: each at
 * 1 - (1 - confidence) / intervals). A command that checks every kind of every scenario at once
 * must use this over all of them, or some seed fails by chance.
 */
export function zForSimultaneous(intervals: number, confidence = 0.99): number {
  if (!(Number.isInteger(intervals) && intervals > 0 && confidence > 0 && confidence < 1)) {
    throw new RangeError(`zForSimultaneous: need a whole number of intervals > 0 and 0 < confidence < 1 (got ${intervals}, ${confidence})`);
  }
  const tail = (1 - confidence) / intervals / 2;
  // Bisection on the normal upper tail; 100 halvings of [0, 40] are far below any useful precision.
  let low = 0;
  let high = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2;
    if (normalUpperTail(mid) > tail) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** P(Z > z) for a standard normal Z, through erfc . */
function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** erfc by the Numerical Recipes Chebyshev fit (fractional error below 1.2e-7 everywhere). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** More draws than this would take seconds; the check needs far fewer. */
const MAX_DRAWS = 50_000_000;

export interface WilsonInterval {
  low: number;
  high: number;
}

/** Wilson score interval for `hits` successes in `n` trials. */
export function wilsonInterval(hits: number, n: number, z = Z_99_SIX_KINDS): WilsonInterval {
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(hits) && hits >= 0 && hits <= n)) {
    throw new RangeError(`wilsonInterval: need whole numbers 0 <= hits <= n, n > 0 (got ${hits} of ${n})`);
  }
  const phat = hits / n;
  const z2 = z * z;
  const centre = (phat + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n));
  // At 0 (or n) hits the bound is exactly 0 (or 1); the formula gives it only up to rounding.
  return { low: hits === 0 ? 0 : Math.max(0, centre - half), high: hits === n ? 1 : Math.min(1, centre + half) };
}

export type SampledKind = IntervalKind | 'after-end';

export interface MonteCarloOptions {
  draws: number;
  seed: string;
  window?: KillWindow;
  gap?: GapOverride;
  z?: number;
}

export interface MonteCarloResult {
  draws: number;
  seed: string;
  z: number;
  hits: Record<SampledKind, number>;
  rate: Record<SampledKind, number>;
  interval: Record<SampledKind, WilsonInterval>;
}

export function monteCarloKills(runEvents: readonly RunEvent[], options: MonteCarloOptions): MonteCarloResult {
  const { draws, seed } = options;
  if (!(Number.isInteger(draws) && draws > 0 && draws <= MAX_DRAWS)) throw new RangeError(`monteCarloKills: draws must be a whole number in 1..${MAX_DRAWS} (got ${draws})`);
  const z = options.z ?? Z_99_SIX_KINDS;
  const events = estimatedEvents(runEvents, options.gap);
  const { startMs, endMs } = windowMs(events, options.window ?? CHAPTER_WINDOW);
  const rng = seedrandom(seed);
  const hits: Record<SampledKind, number> = { model: 0, tool: 0, 'write-before-commit': 0, gap: 0, other: 0, 'after-end': 0 };
  for (let i = 0; i < draws; i++) {
    const tMs = startMs + rng.double() * (endMs - startMs);
    hits[killAtTime(events, tMs).interval]++;
  }
  const kinds = Object.keys(hits) as SampledKind[];
  const rate = {} as Record<SampledKind, number>;
  const interval = {} as Record<SampledKind, WilsonInterval>;
  for (const kind of kinds) {
    rate[kind] = hits[kind] / draws;
    interval[kind] = wilsonInterval(hits[kind], draws, z);
  }
  return { draws, seed, z, hits, rate, interval };
}

export interface ExactCheckFailure {
  kind: SampledKind;
  exact: number;
  interval: WilsonInterval;
  hits: number;
  draws: number;
}

/** Kinds whose exact probability lies outside the sample's interval (none: the estimate holds). */
export function checkExactAgainstSample(exact: IntervalShares, sample: MonteCarloResult): ExactCheckFailure[] {
  const failures: ExactCheckFailure[] = [];
  const expected: Record<SampledKind, number> = { ...exact, 'after-end': 0 };
  for (const kind of [...INTERVAL_KINDS, 'after-end'] as SampledKind[]) {
    const { low, high } = sample.interval[kind];
    const value = expected[kind];
    if (value < low || value > high) failures.push({ kind, exact: value, interval: sample.interval[kind], hits: sample.hits[kind], draws: sample.draws });
  }
  return failures;
}

export function describeExactCheckFailure(f: ExactCheckFailure): string {
  return `${f.kind}: exact ${f.exact.toPrecision(6)} outside the Wilson interval [${f.interval.low.toPrecision(6)}, ${f.interval.high.toPrecision(6)}] of ${f.hits} hits in ${f.draws} draws`;
}
