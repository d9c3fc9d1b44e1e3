// How rarely does a random kill find the gap? Computed exactly, by summing the run's intervals
// (never by sampling): a random kill time drawn uniformly from a window of the run lands in the
// interval of the event in progress, the same rule as killAtTime. Event i owns the half-open
// interval [atMs of event i-1, atMs of event i) (event 0 owns [0, its atMs)), and the kind of
// that interval is event i's `interval`. The probability of a kind is the time of its intervals
// inside the window divided by the window's length.

import type { Scenario } from '../../model/scenario.js';
import type { IntervalKind, RunEvent } from '../check/events.js';
import { runDurationMs } from './kill-time.js';
import { simulate } from '../engines/scripted/simulate.js';

export const INTERVAL_KINDS: readonly IntervalKind[] = ['model', 'tool', 'write-before-commit', 'gap', 'other'];

/** Where random kills are drawn from, as fractions of the run's virtual duration. */
export interface KillWindow {
  fromFraction: number;
  toFraction: number;
}

/** The chapter's random kills: uniform between 5% and 95% of the run. */
export const CHAPTER_WINDOW: KillWindow = { fromFraction: 0.05, toFraction: 0.95 };

/** The chapter's random kills per task and strategy. */
export const CHAPTER_KILLS_PER_TASK = 3;

/**
 * A different gap than the run's own. `gapMs` replaces the width of every gap (a measured one);
 * `roundTripMs` is added on top (the reply's way back from a remote payment service). Unset
 * fields keep the run's value (roundTripMs defaults to 0).
 */
export interface GapOverride {
  gapMs?: number;
  roundTripMs?: number;
}

export interface EstimateOptions {
  window?: KillWindow;
  gap?: GapOverride;
}

export type IntervalShares = Record<IntervalKind, number>;

export interface RunEstimate {
  /** Virtual duration of the (re-timed) run. */
  durationMs: number;
  windowStartMs: number;
  windowEndMs: number;
  /** Time of each kind of interval inside the window. */
  windowMs: IntervalShares;
  /** Probability that one random kill lands in each kind of interval (they sum to 1). */
  probability: IntervalShares;
  gapHitProbability: number;
  /** Gaps in the run: maximal stretches of consecutive gap intervals (one per committed write). */
  gaps: number;
  /** Committed writes: the aimed kills that find every gap, one right after each commit. */
  writes: number;
  /** Width of each gap after any override, in run order. */
  gapWidthsMs: number[];
  /** Mean random kills per gap hit (1/p, geometric); Infinity when no kill can hit. */
  expectedKillsPerHit: number;
  /** Random kills for a 95% / 99% chance of at least one gap hit; Infinity when none can. */
  killsFor95: number;
  killsFor99: number;
}

function checkWindow(window: KillWindow): void {
  const { fromFraction: from, toFraction: to } = window;
  if (!(Number.isFinite(from) && Number.isFinite(to) && from >= 0 && to <= 1 && from < to)) {
    throw new RangeError(`estimator: the kill window must satisfy 0 <= fromFraction < toFraction <= 1 (got ${from}..${to})`);
  }
}

function checkOverride(gap: GapOverride): void {
  for (const [name, value] of Object.entries(gap)) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`estimator: ${name} must be a finite number of ms >= 0 (got ${value})`);
    }
  }
}

/** A stretch of consecutive gap events: its first and last event, and the time it spans. */
interface GapStretch {
  first: number;
  last: number;
  fromMs: number;
  toMs: number;
}

/** The maximal stretches of consecutive events whose interval is the gap, in run order. */
function gapStretchSpans(events: readonly RunEvent[]): GapStretch[] {
  const stretches: GapStretch[] = [];
  let open: GapStretch | null = null;
  let fromMs = 0;
  for (const [i, event] of events.entries()) {
    if (event.interval !== 'gap') open = null;
    else if (open === null) stretches.push((open = { first: i, last: i, fromMs, toMs: event.atMs }));
    else {
      open.last = i;
      open.toMs = event.atMs;
    }
    fromMs = event.atMs;
  }
  return stretches;
}

/** The stretches [first, last] of consecutive events whose interval is the gap. */
export function gapStretches(events: readonly RunEvent[]): Array<[number, number]> {
  return gapStretchSpans(events).map(({ first, last }): [number, number] => [first, last]);
}

/**
 * Re-times the run's gaps. Each gap (a maximal stretch of consecutive events whose interval is
 * `gap`: after a commit, the result coming back, the journal written, the journal renamed) gets
 * the new width W = (gapMs ?? its own width) + (roundTripMs ?? 0). Its intervals are scaled by
 * the same factor, so their proportions stay; a gap of zero width puts all of W on its last
 * interval. Every later event moves by the change, so the rest of the run keeps its intervals
 * and the run gets longer or shorter by the sum of the changes. Parallel calls' gaps are re-timed
 * one after the other, as the merged events list them (overlapping round trips are not merged:
 * an upper bound on the time in gaps). Returns new events; the input is not changed.
 */
export function retimeGaps(events: readonly RunEvent[], gap: GapOverride): RunEvent[] {
  checkOverride(gap);
  // Each event with the width of its interval (from the previous event's atMs, or from 0).
  let previousMs = 0;
  const timed = events.map((event) => {
    const widthMs = event.atMs - previousMs;
    previousMs = event.atMs;
    return { event, widthMs };
  });
  for (const [first, last] of gapStretches(events)) {
    const stretch = timed.slice(first, last + 1);
    let ownMs = 0;
    for (const t of stretch) ownMs += t.widthMs;
    const newMs = (gap.gapMs ?? ownMs) + (gap.roundTripMs ?? 0);
    for (const [k, t] of stretch.entries()) {
      t.widthMs = ownMs > 0 ? (t.widthMs * newMs) / ownMs : first + k === last ? newMs : 0;
    }
  }
  let atMs = 0;
  return timed.map(({ event, widthMs }) => {
    atMs += widthMs;
    return { ...event, atMs };
  });
}

/** A gap override that leaves every gap as it is. */
function keepsGaps(gap: GapOverride): boolean {
  return gap.gapMs === undefined && (gap.roundTripMs ?? 0) === 0;
}

/** The events an estimate is taken over: the run's own, or with its gaps re-timed. */
export function estimatedEvents(events: readonly RunEvent[], gap?: GapOverride): readonly RunEvent[] {
  return gap === undefined || keepsGaps(gap) ? events : retimeGaps(events, gap);
}

/** The kill window in ms for a run of these events. */
export function windowMs(events: readonly RunEvent[], window: KillWindow): { startMs: number; endMs: number } {
  checkWindow(window);
  const durationMs = runDurationMs(events);
  return { startMs: durationMs * window.fromFraction, endMs: durationMs * window.toFraction };
}

/** Smallest n with 1 - (1 - p)^n >= chance: random kills for that chance of at least one hit. */
export function killsForChance(p: number, chance: number): number {
  if (p >= 1) return 1;
  if (p <= 0) return Infinity;
  // log1p keeps precision for tiny p, where log(1 - p) would round.
  return Math.ceil(Math.log1p(-chance) / Math.log1p(-p));
}

function zeroShares(): IntervalShares {
  return { model: 0, tool: 0, 'write-before-commit': 0, gap: 0, other: 0 };
}

/** The exact odds for one run. */
export function estimateRun(runEvents: readonly RunEvent[], options: EstimateOptions = {}): RunEstimate {
  const window = options.window ?? CHAPTER_WINDOW;
  const events = estimatedEvents(runEvents, options.gap);
  const { startMs, endMs } = windowMs(events, window);
  const spanMs = endMs - startMs;
  if (!(spanMs > 0)) throw new RangeError('estimator: the run has no duration, so no kill time can be drawn from it');
  const inWindow = zeroShares();
  let fromMs = 0;
  for (const event of events) {
    const toMs = event.atMs;
    const overlapMs = Math.min(toMs, endMs) - Math.max(fromMs, startMs);
    if (overlapMs > 0) inWindow[event.interval] += overlapMs;
    fromMs = toMs;
  }
  const probability = zeroShares();
  for (const kind of INTERVAL_KINDS) probability[kind] = inWindow[kind] / spanMs;
  const p = probability.gap;
  return {
    durationMs: runDurationMs(events),
    windowStartMs: startMs,
    windowEndMs: endMs,
    windowMs: inWindow,
    probability,
    gapHitProbability: p,
    gaps: gapStretches(events).length,
    writes: events.filter((e) => e.kind === 'shop-commit').length,
    gapWidthsMs: gapStretchSpans(events).map(({ fromMs, toMs }) => toMs - fromMs),
    expectedKillsPerHit: p > 0 ? 1 / p : Infinity,
    killsFor95: killsForChance(p, 0.95),
    killsFor99: killsForChance(p, 0.99),
  };
}

/**
 * The run an estimate is taken over: the scenario's baseline (no kill, default interleaving)
 * under the journal strategy, whose gap runs from the commit to the journal's rename.
 */
export function baselineEvents(scenario: Scenario): RunEvent[] {
  return simulate(scenario, 'journal', { kills: [], interleaving: [] }).lives[0]!.events;
}

export interface SetEstimate {
  runs: Array<{ id: string; estimate: RunEstimate }>;
  killsPerTask: number;
  /**
   * A random kill on a task of the set, each task drawn equally often (as k kills per task are):
   * the mean of the tasks' probabilities.
   */
  probability: IntervalShares;
  gapHitProbability: number;
  expectedKillsPerHit: number;
  killsFor95: number;
  killsFor99: number;
  /** killsPerTask random kills on every task: their number, and the chance none hits a gap. */
  randomKills: number;
  noGapChance: number;
  /** Aimed kills that find every gap for sure: one right after each committed write. */
  aimedKills: number;
}

export function estimateSet(runs: ReadonlyArray<{ id: string; events: readonly RunEvent[] }>, options: EstimateOptions & { killsPerTask?: number } = {}): SetEstimate {
  const killsPerTask = options.killsPerTask ?? CHAPTER_KILLS_PER_TASK;
  if (!(Number.isInteger(killsPerTask) && killsPerTask >= 0)) throw new RangeError(`estimator: killsPerTask must be a whole number >= 0 (got ${killsPerTask})`);
  if (runs.length === 0) throw new RangeError('estimator: a scenario set needs at least one run');
  const estimates = runs.map((r) => ({ id: r.id, estimate: estimateRun(r.events, options) }));
  const probability = zeroShares();
  for (const kind of INTERVAL_KINDS) {
    probability[kind] = estimates.reduce((sum, r) => sum + r.estimate.probability[kind], 0) / estimates.length;
  }
  const p = probability.gap;
  // Kills are independent: none hits when each of the k kills on each task misses that task's gaps.
  const noGapChance = estimates.reduce((chance, r) => chance * (1 - r.estimate.gapHitProbability) ** killsPerTask, 1);
  return {
    runs: estimates,
    killsPerTask,
    probability,
    gapHitProbability: p,
    expectedKillsPerHit: p > 0 ? 1 / p : Infinity,
    killsFor95: killsForChance(p, 0.95),
    killsFor99: killsForChance(p, 0.99),
    randomKills: killsPerTask * estimates.length,
    noGapChance,
    aimedKills: estimates.reduce((sum, r) => sum + r.estimate.writes, 0),
  };
}

/** The time spent waiting on the model or a tool (a write's wait before its commit included). */
export function waitingShare(probability: IntervalShares): number {
  return probability.model + probability.tool + probability['write-before-commit'];
}
