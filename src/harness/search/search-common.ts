// What both explorers (explore.ts, every schedule run from scratch; equivalence.ts, by durable
// state) share: the options of a search, the search of the orders of parallel calls, the order of
// schedules (which is the earliest) and each check's earliest schedule.

import seedrandom from 'seedrandom';
import type { Scenario } from '../../model/scenario.js';
import type { CheckName } from '../check/checks.js';
import { killPointIdentity } from '../check/kill-points.js';
import type { RunOutcome } from '../check/outcome.js';
import { BaselineDidNotFinish, type SystemUnderTest } from '../engine.js';

export interface ExploreOptions {
  /** Kill schedules of 1 kill, of 1 and 2 kills (the second during recovery), or of 1 to 3. */
  kills: 1 | 2 | 3;
  /** Most interleavings explored per scenario and system; above it, a seeded sample of this many. */
  interleavingBound: number;
  /** Seeds the interleaving sample (only used above the bound). */
  seed: number;
  /**
   * false: run every schedule from scratch, even on a system that can run a life from a durable
   * state (the yardstick the reduced explorer is checked against). Default: reduce where it can.
   */
  reduce?: boolean;
  /**
   * Above the interleaving bound only a sample of orders is explored, so a kill point earlier
   * than the minimal counterexample may fail under an order the sample missed: once a failure is
   * found, this many orders (every one, when there are no more) are searched for an earlier
   * failing single kill. Default: 200 for a system run in process, 0 for one whose lives are
   * processes (the report then says the minimum is among the sampled orders).
   */
  minimalOrders?: number;
  /**
   * A run whose recovery hung (LifeRecord.hung) costs a full time limit, and an agent that hangs
   * after one kill point mostly hangs after every later one. Default: the search stops after the
   * earliest run that hung, its other runs under way awaited and those not started counted as not
   * explored (Exploration.stoppedAtHang). true: every kill point is run, each hang at its limit.
   */
  everyKillPointAfterHang?: boolean;
}

/** Orders searched for a kill point earlier than the sampled minimum, in process. */
export const MINIMAL_ORDERS_IN_PROCESS = 200;

/** How the minimum was made sure of when the orders were sampled. */
export interface MinimalSearch {
  /** Orders searched for a failing single kill earlier than the sample's minimum. */
  orders: number;
  /** True when no order is left that could fail earlier (every one was searched, or one fails before the first event). */
  everyOrder: boolean;
  /** True when an order the sample missed fails earlier (the minimal counterexample is that one). */
  foundEarlier: boolean;
}

export const DEFAULT_EXPLORE_OPTIONS: ExploreOptions = { kills: 1, interleavingBound: 32, seed: 1 };

/** A random pick sequence is this long: far more choices than any scripted batch makes. */
const SAMPLE_PICKS = 512;
/** Give up drawing new distinct interleavings after this many draws per wanted one. */
const SAMPLE_DRAWS_PER_WANTED = 20;

export interface InterleavingCoverage {
  explored: number;
  /** True when every interleaving was explored; false when the sample stands in for more. */
  exhaustive: boolean;
  /** Seed of the sample, when not exhaustive. */
  sampleSeed: number | null;
  bound: number;
}

export interface ExploredInterleaving {
  picks: number[];
  baseline: RunOutcome;
}

/** A run never killed that does not finish gives nothing to compare with: bad input. */
export function mustFinish(baseline: RunOutcome, system: SystemUnderTest): void {
  if (baseline.lives[0]?.end !== 'finished') throw new BaselineDidNotFinish(system, baseline);
}

/** Which schedule comes first: fewer kills, then earlier kills, then the earlier interleaving. */
export function compareSchedules(a: { kills: number[]; order: number }, b: { kills: number[]; order: number }): number {
  if (a.kills.length !== b.kills.length) return a.kills.length - b.kills.length;
  for (let i = 0; i < a.kills.length; i++) if (a.kills[i] !== b.kills[i]) return a.kills[i]! - b.kills[i]!;
  return a.order - b.order;
}

/** The earliest schedule that fails one check: its kill points by index and identity, and the interleaving's picks. */
export interface CheckMinimum {
  kills: number[];
  killAt: string[];
  interleaving: number[];
  /** The interleaving's place in the exploration's order (ties go to the earlier order). */
  order: number;
}

/** Keeps, for each promised check a schedule fails, the earliest such schedule. */
export function keepCheckMinima(into: Partial<Record<CheckName, CheckMinimum>>, promised: readonly CheckName[], failed: readonly CheckName[], kills: number[], order: number, picks: number[], outcome: () => RunOutcome): void {
  let seen: RunOutcome | null = null;
  for (const c of failed) {
    if (!promised.includes(c)) continue;
    const known = into[c];
    if (known !== undefined && compareSchedules({ kills, order }, known) >= 0) continue;
    seen ??= outcome();
    const lives = seen.lives;
    into[c] = { kills, order, interleaving: picks, killAt: kills.map((k, life) => killPointIdentity(lives[life]?.events ?? [], k)) };
  }
}

/**
 * The search of baselineInterleavingsPlan, for any way of running a baseline: a whole run asked of
 * the system, or (equivalence.ts) the first life from the starting state, kept for the kill points.
 */
export function* interleavingsSearch<Q, A>(scenario: Scenario, system: SystemUnderTest, options: ExploreOptions, baselineOf: (picks: number[]) => Generator<Q, RunOutcome, A>): Generator<Q, { list: ExploredInterleaving[]; coverage: InterleavingCoverage }, A> {
  const bound = Math.max(1, options.interleavingBound);
  const list: ExploredInterleaving[] = [];
  // Depth-first over the pick tree: run a prefix, take the picks the run made after it, and queue
  // every other choice at every later position. Each complete pick sequence is run exactly once.
  const stack: number[][] = [[]];
  while (stack.length > 0 && list.length <= bound) {
    const prefix = stack.pop()!;
    const baseline = yield* baselineOf(prefix);
    if (list.length === 0) mustFinish(baseline, system);
    const taken = baseline.picksTaken;
    list.push({ picks: taken, baseline });
    for (let i = baseline.pickWidths.length - 1; i >= prefix.length; i--) {
      for (let v = baseline.pickWidths[i]! - 1; v >= 0; v--) if (v !== taken[i]) stack.push([...taken.slice(0, i), v]);
    }
  }
  if (list.length <= bound && stack.length === 0) {
    return { list, coverage: { explored: list.length, exhaustive: true, sampleSeed: null, bound } };
  }
  // Too many to run them all: the default order, then distinct random orders from the seed.
  const rng = seedrandom(`${options.seed}|${scenario.id}|${system.name}`);
  const sample: ExploredInterleaving[] = [list[0]!];
  const seen = new Set([list[0]!.picks.join(',')]);
  for (let draw = 0; sample.length < bound && draw < bound * SAMPLE_DRAWS_PER_WANTED; draw++) {
    const picks = Array.from({ length: SAMPLE_PICKS }, () => Math.floor(rng() * 2 ** 20));
    const baseline = yield* baselineOf(picks);
    const key = baseline.picksTaken.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    sample.push({ picks: baseline.picksTaken, baseline });
  }
  return { list: sample, coverage: { explored: sample.length, exhaustive: false, sampleSeed: options.seed, bound } };
}
