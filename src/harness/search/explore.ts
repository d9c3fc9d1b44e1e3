// The exhaustive explorer, for any system under test. For one scenario and one system it runs
// every kill schedule small enough to enumerate and judges each against the baseline (the same
// task, the same interleaving, no kill):
// - every single kill point of the baseline life, from -1 (before anything) to its last event;
// - with two kills, every kill point of the recovery life after each first kill;
// - every order in which parallel tool calls can interleave, enumerated depth-first like an
//   exhaustive chooser (each leaf of the pick tree runs once); above `interleavingBound` orders, a
//   seeded sample of that many instead, and the result says so.
// The earliest failing schedule (fewest kills, then the earliest kills, then the first
// interleaving in enumeration order) is the minimal counterexample.
//
// The search is a plan (plan.ts, life-plan.ts) and the one drive (drive.ts) runs it, whatever the
// system answers: `explore` answers a plain Exploration for a system that answers at once (no
// promise made), and one to await for a system whose lives are processes. An exploration runs in
// one session of the system (engine.ts: Session), opened by whoever is at the top (explore,
// judgeCase, baselineInterleavings; a command that runs several plans on one scenario opens one
// with withSession and runs them in it) and closed when it ends, on error too.

import type { Scenario } from '../../model/scenario.js';
import { brokenPromises, CHECK_NAMES, failedChecks, type CheckName } from '../check/checks.js';
import { repeatsWithoutKill, type RepeatWithoutKill } from '../check/repeat-without-kill.js';
import { findKillPoint, killPointIdentity, UnknownKillPoint, type KillPointSpec } from '../check/kill-points.js';
import { runConversationProblem, type RunOutcome, type Schedule } from '../check/outcome.js';
import { judge, type Verdict } from '../check/verdict.js';
import { tierOf, type Answer, type LifeTier, type Session, type SystemUnderTest } from '../engine.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import { withSession } from '../session.js';
import { everyRun, NOT_RUN, runPlan, runStoppingPlan, type DriveOptions, type Plan, type StopRule, type StoppingPlan } from './plan.js';
import { equivalencePlan, type EquivalenceResult, type ReductionFigures } from './equivalence.js';
import { runLifePlan } from './life-plan.js';
import { compareSchedules, DEFAULT_EXPLORE_OPTIONS, interleavingsSearch, keepCheckMinima, MINIMAL_ORDERS_IN_PROCESS, type CheckMinimum, type ExploredInterleaving, type ExploreOptions, type InterleavingCoverage, type MinimalSearch } from './search-common.js';

export { compareSchedules, DEFAULT_EXPLORE_OPTIONS, interleavingsSearch, keepCheckMinima, MINIMAL_ORDERS_IN_PROCESS, mustFinish, type CheckMinimum, type ExploredInterleaving, type ExploreOptions, type InterleavingCoverage, type MinimalSearch } from './search-common.js';

/** One kill-and-resume run, judged. */
export interface JudgedCase {
  scenario: Scenario;
  system: SystemUnderTest;
  /** The system's name (for the scripted engine, its strategy). */
  strategy: string;
  schedule: Schedule;
  baseline: RunOutcome;
  outcome: RunOutcome;
  verdict: Verdict;
  /** Every check the run fails. */
  failed: CheckName[];
  /** The failed checks the system promises. */
  broken: CheckName[];
  /** Effects its baseline made twice with no kill, across a wait (check/repeat-without-kill.ts): findings apart from the kill's. */
  repeatsWithoutKill: RepeatWithoutKill[];
}

export interface Exploration {
  scenarioId: string;
  strategy: string;
  /** Where the system's lives ran: simulated, a real engine in process, or processes killed with SIGKILL. */
  tier: LifeTier;
  kills: 1 | 2 | 3;
  promised: readonly CheckName[];
  interleavings: InterleavingCoverage;
  schedulesExplored: number;
  /** How many schedules failed each check (promised or not). */
  failures: Record<CheckName, number>;
  /** Promised checks that failed at least once. */
  brokenPromises: CheckName[];
  /** The earliest schedule that breaks a promise, re-run with everything needed to explain it. */
  minimal: JudgedCase | null;
  /** Effects the run never killed made twice by itself, across a wait: findings apart from every kill schedule's. */
  repeatsWithoutKill: RepeatWithoutKill[];
  /**
   * Each broken promise's own earliest schedule: a variant that breaks two promises shows the
   * minimal case of each, not only the one that comes first.
   */
  minimalByCheck: Partial<Record<CheckName, CheckMinimum>>;
  /** What exploring by equivalence saved (N schedules covered by M lives run); null when every schedule ran from scratch. */
  reduction: ReductionFigures | null;
  /** When orders were sampled and a failure found: how far the minimum was checked beyond the sample; else null. */
  minimalSearch: MinimalSearch | null;
  /** Set when the search stopped after a run whose recovery hung (ExploreOptions.everyKillPointAfterHang). */
  stoppedAtHang?: StoppedAtHang;
  /**
   * Set when a run never killed leaves its conversation invalid (a call nothing answers): said once
   * here, since each recovery is charged only with a problem that run does not have.
   */
  baselineConversationProblem?: string;
}

/** What a search that stopped after a hung recovery left out, counted rather than judged. */
export interface StoppedAtHang {
  /** Runs explored whose recovery hung (the earliest is the minimal counterexample, unless an earlier kill point fails otherwise). */
  hung: number;
  /** Schedules asked for and never run: the later kill points of the level where it stopped. */
  notExplored: number;
  /** What was never asked for: the kill points of the recoveries (more kills), other interleavings. */
  notAsked: ('recoveries' | 'interleavings')[];
}

/** Whether an exploration found anything: a broken promise, or an effect done twice without any kill. */
export function explorationFails(e: Pick<Exploration, 'brokenPromises' | 'repeatsWithoutKill'>): boolean {
  return e.brokenPromises.length > 0 || e.repeatsWithoutKill.length > 0;
}

/** Whether a judged case found anything: a broken promise, or (in its baseline) an effect done twice without any kill. */
export function caseFails(j: Pick<JudgedCase, 'broken' | 'repeatsWithoutKill'>): boolean {
  return j.broken.length > 0 || j.repeatsWithoutKill.length > 0;
}

/** Whether a run has a recovery that hung (stopped at its time limit). */
export function recoveryHung(outcome: RunOutcome): boolean {
  return outcome.lives.some((life) => life.hung === true);
}

/** What the drive of an exploration is told: how many runs at once, progress, and each run whose recovery hung as soon as it is in. */
export interface ExploreDrive extends DriveOptions {
  onHang?: (outcome: RunOutcome) => void;
}

/** Asks for one run and hands back its outcome. */
export function* runOne(schedule: Schedule): Plan<RunOutcome> {
  const [outcome] = yield [schedule];
  return outcome!;
}

/**
 * Turns kill points given by identity into indices, life by life: the life a kill lands in is run
 * under the kills before it to find the event of that identity.
 */
export function* resolveKillsPlan(specs: readonly KillPointSpec[], interleaving: number[]): Plan<number[]> {
  const kills: number[] = [];
  for (const [life, spec] of specs.entries()) {
    if (typeof spec === 'number') {
      kills.push(spec);
      continue;
    }
    const events = (yield* runOne({ kills: [...kills], interleaving })).lives[life]?.events ?? [];
    const index = findKillPoint(events, spec);
    if (index === null) throw new UnknownKillPoint(spec, life, events);
    kills.push(index);
  }
  return kills;
}

/**
 * The interleavings of the baseline run: all of them when there are at most `bound`, else the
 * default order plus a seeded sample. The first is always the default order.
 */
export function baselineInterleavingsPlan(scenario: Scenario, system: SystemUnderTest, options: ExploreOptions): Plan<{ list: ExploredInterleaving[]; coverage: InterleavingCoverage }> {
  return interleavingsSearch(scenario, system, options, (picks) => runOne({ kills: [], interleaving: picks }));
}

/** The baseline interleavings of a system (see baselineInterleavingsPlan), in a session of their own. */
export function baselineInterleavings<S extends SystemUnderTest>(scenario: Scenario, system: S, options: ExploreOptions, drive?: DriveOptions): Answer<S, { list: ExploredInterleaving[]; coverage: InterleavingCoverage }> {
  const sys: SystemUnderTest = system;
  return withSession(sys, scenario, (session) => runPlan(baselineInterleavingsPlan(scenario, sys, options), session, drive)) as Answer<S, { list: ExploredInterleaving[]; coverage: InterleavingCoverage }>;
}

/** Judges a run against its baseline. */
export function judged(scenario: Scenario, system: SystemUnderTest, schedule: Schedule, baseline: RunOutcome, outcome: RunOutcome): JudgedCase {
  const verdict = judge(scenario, outcome, baseline);
  const j = { scenario, outcome, verdict };
  return { scenario, system, strategy: system.name, schedule, baseline, outcome, verdict, failed: failedChecks(j), broken: brokenPromises(system.promised, j), repeatsWithoutKill: repeatsWithoutKill(baseline) };
}

/** Runs one schedule (and its baseline, unless given) and judges it. */
export function* judgeCasePlan(scenario: Scenario, system: SystemUnderTest, schedule: Schedule, baseline?: RunOutcome): Plan<JudgedCase> {
  const base = baseline ?? (yield* runOne({ kills: [], interleaving: schedule.interleaving }));
  const outcome = yield* runOne(schedule);
  return judged(scenario, system, schedule, base, outcome);
}

/** Runs one schedule (and its baseline, unless given) in a session of their own, and judges it. */
export function judgeCase<S extends SystemUnderTest>(scenario: Scenario, system: S, schedule: Schedule, baseline?: RunOutcome, drive?: DriveOptions): Answer<S, JudgedCase> {
  const sys: SystemUnderTest = system;
  return withSession(sys, scenario, (session) => runPlan(judgeCasePlan(scenario, sys, schedule, baseline), session, drive)) as Answer<S, JudgedCase>;
}

/** A schedule run from scratch and its outcome, handed to explorePlan's `onRun` as it is judged. */
export interface ExploredRun {
  kills: number[];
  /** The interleaving's number among those explored, its picks and its baseline. */
  order: number;
  picks: number[];
  baseline: RunOutcome;
  outcome: RunOutcome;
}

/**
 * Every schedule of up to `options.kills` kills, over every explored interleaving, each run from
 * scratch. `onRun` sees each run as it is judged (in the order the plan asked for them). Unless
 * `options.everyKillPointAfterHang`, the search stops after a level in which a recovery hung: run
 * by runStoppingPlan with recoveryHung, the level's runs not started by then are answered NOT_RUN
 * and counted as not explored (stoppedAtHang), never judged.
 */
export function* explorePlan(scenario: Scenario, system: SystemUnderTest, options: ExploreOptions = DEFAULT_EXPLORE_OPTIONS, onRun?: (run: ExploredRun) => void): StoppingPlan<Exploration> {
  const { list, coverage } = yield* everyRun(baselineInterleavingsPlan(scenario, system, options));
  const promised = system.promised;
  const failures = Object.fromEntries(CHECK_NAMES.map((c) => [c, 0])) as Record<CheckName, number>;
  let explored = 0;
  let minimal: { kills: number[]; order: number; picks: number[]; baseline: RunOutcome; outcome: RunOutcome } | null = null;
  const minimalByCheck: Partial<Record<CheckName, CheckMinimum>> = {};
  const hang: StoppedAtHang = { hung: 0, notExplored: 0, notAsked: [] };

  const visit = (kills: number[], order: number, it: ExploredInterleaving, outcome: RunOutcome): void => {
    onRun?.({ kills, order, picks: it.picks, baseline: it.baseline, outcome });
    const verdict = judge(scenario, outcome, it.baseline);
    explored++;
    if (recoveryHung(outcome)) hang.hung++;
    const failed = failedChecks({ scenario, outcome, verdict });
    for (const c of failed) failures[c]++;
    keepCheckMinima(minimalByCheck, promised, failed, kills, order, it.picks, () => outcome);
    if (failed.some((c) => promised.includes(c)) && (minimal === null || compareSchedules({ kills, order }, minimal) < 0)) {
      minimal = { kills, order, picks: it.picks, baseline: it.baseline, outcome };
    }
  };

  for (const [order, it] of list.entries()) {
    // Level by level: the schedules of n kills, then every kill point of the life after their last kill.
    let level: number[][] = [];
    for (let first = -1; first < it.baseline.lives[0]!.events.length; first++) level.push([first]);
    for (let n = 1; n <= options.kills && level.length > 0; n++) {
      const outcomes = yield level.map((kills) => ({ kills, interleaving: it.picks }));
      const ran = outcomes.map((outcome, i) => (outcome === NOT_RUN ? null : { kills: level[i]!, outcome }));
      for (const r of ran) if (r !== null) visit(r.kills, order, it, r.outcome);
      hang.notExplored += ran.filter((r) => r === null).length;
      if (!options.everyKillPointAfterHang && hang.hung > 0) {
        if (n < options.kills) hang.notAsked.push('recoveries');
        if (order < list.length - 1) hang.notAsked.push('interleavings');
        break;
      }
      if (n === options.kills) break;
      const deeper: number[][] = [];
      for (const r of ran) {
        if (r === null) continue;
        const lifeEvents = r.outcome.lives[n]?.events.length ?? 0;
        for (let k = -1; k < lifeEvents; k++) deeper.push([...r.kills, k]);
      }
      level = deeper;
    }
    if (!options.everyKillPointAfterHang && hang.hung > 0) break;
  }

  const found = minimal as { kills: number[]; picks: number[]; baseline: RunOutcome; outcome: RunOutcome } | null;
  // A minimum whose recovery hung is judged from the run that hung: run again, it would cost a full time limit more.
  const again = (f: NonNullable<typeof found>): Plan<JudgedCase> | null => (recoveryHung(f.outcome) ? null : judgeCasePlan(scenario, system, { kills: f.kills, interleaving: f.picks }, f.baseline));
  const plan = found === null ? null : again(found);
  const judgedMinimal = found === null ? null : plan === null ? judged(scenario, system, { kills: found.kills, interleaving: found.picks }, found.baseline, found.outcome) : yield* everyRun(plan);
  const exploration = explorationOf(scenario, system, options, { coverage, baselines: list.map((it) => it.baseline) }, { schedulesExplored: explored, failures, minimalByCheck, reduction: null }, judgedMinimal);
  return hang.hung > 0 && !options.everyKillPointAfterHang ? { ...exploration, stoppedAtHang: hang } : exploration;
}

/**
 * Every order of the parallel calls (depth-first over the pick tree, as interleavingsSearch), up to
 * `maxOrders`, each searched for a failing single kill earlier than the best found so far: the
 * sampled minimum first, then whatever earlier kill point an order fails at.
 */
function* earlierUnderEveryOrder(scenario: Scenario, system: SystemUnderTest, best: readonly number[], maxOrders: number): Plan<{ found: { kills: number[]; picks: number[]; baseline: RunOutcome } | null; orders: number; everyOrder: boolean }> {
  // A failing single kill is earlier than any two-kill minimum; against a single-kill minimum, only a smaller kill point is.
  let limit = best.length === 1 ? best[0]! : Infinity;
  let found: { kills: number[]; picks: number[]; baseline: RunOutcome } | null = null;
  const stack: number[][] = [[]];
  let orders = 0;
  // Nothing comes before a kill before the first event: once one fails, the search is over.
  while (stack.length > 0 && orders < maxOrders && limit > -1) {
    const prefix = stack.pop()!;
    const baseline = yield* runOne({ kills: [], interleaving: prefix });
    orders++;
    const taken = baseline.picksTaken;
    for (let i = baseline.pickWidths.length - 1; i >= prefix.length; i--) {
      for (let v = baseline.pickWidths[i]! - 1; v >= 0; v--) if (v !== taken[i]) stack.push([...taken.slice(0, i), v]);
    }
    const end = Math.min(limit, baseline.lives[0]!.events.length);
    const points = Array.from({ length: end + 1 }, (_, i) => i - 1);
    if (points.length === 0) continue;
    const outcomes = yield points.map((k) => ({ kills: [k], interleaving: taken }));
    for (const [i, k] of points.entries()) {
      const outcome = outcomes[i]!;
      const verdict = judge(scenario, outcome, baseline);
      if (!failedChecks({ scenario, outcome, verdict }).some((c) => system.promised.includes(c))) continue;
      found = { kills: [k], picks: taken, baseline };
      limit = k;
      break;
    }
  }
  return { found, orders, everyOrder: stack.length === 0 || limit <= -1 };
}

/**
 * Makes sure of a minimum found among sampled orders: searches the orders the sample missed for
 * an earlier failing kill point (see ExploreOptions.minimalOrders), and takes it when there is one.
 */
function* minimalBeyondTheSamplePlan(scenario: Scenario, system: SystemUnderTest, options: ExploreOptions, e: Exploration): Plan<Exploration> {
  if (e.interleavings.exhaustive || e.minimal === null) return e;
  // A single kill before the first event: nothing can come before it.
  if (e.minimal.schedule.kills.length === 1 && e.minimal.schedule.kills[0] === -1) return e;
  const maxOrders = options.minimalOrders ?? (system.inProcess ? MINIMAL_ORDERS_IN_PROCESS : 0);
  if (maxOrders <= 0) return { ...e, minimalSearch: { orders: 0, everyOrder: false, foundEarlier: false } };
  const r = yield* earlierUnderEveryOrder(scenario, system, e.minimal.schedule.kills, maxOrders);
  if (r.found === null) return { ...e, minimalSearch: { orders: r.orders, everyOrder: r.everyOrder, foundEarlier: false } };
  const minimal = yield* judgeCasePlan(scenario, system, { kills: r.found.kills, interleaving: r.found.picks }, r.found.baseline);
  // The earlier schedule is the earliest of every promise it breaks too.
  const minimalByCheck = { ...e.minimalByCheck };
  for (const c of minimal.broken) {
    minimalByCheck[c] = { kills: minimal.schedule.kills, interleaving: minimal.schedule.interleaving, order: -1, killAt: minimal.schedule.kills.map((k, life) => killPointIdentity(minimal.outcome.lives[life]?.events ?? [], k)) };
  }
  return { ...e, minimal, minimalByCheck, minimalSearch: { orders: r.orders, everyOrder: r.everyOrder, foundEarlier: true } };
}

/**
 * The stop rule of a search from scratch: a run whose recovery hung is told as soon as it is in
 * (drive.onHang) and, unless every kill point is asked for, stops its batch there.
 */
function stopAtHang(options: ExploreOptions, drive: ExploreDrive): StopRule<RunOutcome> {
  return (outcome) => {
    if (!recoveryHung(outcome)) return false;
    drive.onHang?.(outcome);
    return options.everyKillPointAfterHang !== true;
  };
}

/** Explores by equivalence where the session runs lives (see equivalence.ts), else every schedule from scratch. */
function reduces(session: Session, options: ExploreOptions): boolean {
  return session.lives !== undefined && options.reduce !== false;
}

/** An exploration's result from what its search counted, whichever search it was: the promises broken are those with failures. */
function explorationOf(scenario: Scenario, system: SystemUnderTest, options: ExploreOptions, orders: { coverage: InterleavingCoverage; baselines: readonly RunOutcome[] }, counted: Pick<Exploration, 'schedulesExplored' | 'failures' | 'minimalByCheck' | 'reduction'>, minimal: JudgedCase | null): Exploration {
  const promised = system.promised;
  const coverage = orders.coverage;
  const baselineProblem = orders.baselines.map(runConversationProblem).find((p) => p !== null);
  return {
    scenarioId: scenario.id,
    strategy: system.name,
    tier: tierOf(system),
    kills: options.kills,
    promised,
    interleavings: coverage,
    schedulesExplored: counted.schedulesExplored,
    failures: counted.failures,
    brokenPromises: promised.filter((c) => counted.failures[c] > 0),
    minimal,
    repeatsWithoutKill: orders.baselines[0] === undefined ? [] : repeatsWithoutKill(orders.baselines[0]),
    minimalByCheck: counted.minimalByCheck,
    reduction: counted.reduction,
    minimalSearch: null,
    ...(baselineProblem === undefined ? {} : { baselineConversationProblem: baselineProblem }),
  };
}

/**
 * Explores a system: every schedule of up to `options.kills` kills, judged; then, when the orders
 * were sampled, the minimum made sure of beyond the sample. One session of the system for it all,
 * closed at the end. A plain Exploration for a system typed in process, else one to await;
 * `drive` sets how many runs (or lives) of processes run at once.
 */
export function explore<S extends SystemUnderTest>(scenario: Scenario, system: S, options: ExploreOptions = DEFAULT_EXPLORE_OPTIONS, drive?: ExploreDrive): Answer<S, Exploration> {
  const sys: SystemUnderTest = system;
  return withSession(sys, scenario, (session) => exploreIn(session, sys, options, drive)) as Answer<S, Exploration>;
}

/** Explores a system in a session of it the caller holds (see explore): for callers that run more in the same session. */
export function exploreIn<X extends Session>(session: X, system: SystemUnderTest, options: ExploreOptions = DEFAULT_EXPLORE_OPTIONS, drive?: ExploreDrive): Answer<X, Exploration> {
  return andThen(exploreSample(session, system, options, drive), (sample) => runPlan(minimalBeyondTheSamplePlan(session.scenario, system, options, sample), session, drive)) as Answer<X, Exploration>;
}

/** The exploration of the orders explored (the sample, above the bound), before the minimum is made sure of. */
function exploreSample(session: Session, system: SystemUnderTest, options: ExploreOptions, drive: ExploreDrive = {}): MaybePromise<Exploration> {
  const { scenario } = session;
  if (!reduces(session, options)) return runStoppingPlan(explorePlan(scenario, system, options), session, drive, stopAtHang(options, drive));
  const reduced = runLifePlan(equivalencePlan(session, system, { search: options }, options.kills), session, drive);
  return andThen(reduced, (result) => {
    const found = result.minimal === null ? null : result.list[result.minimal.order]!;
    const minimal = found === null ? null : runPlan(judgeCasePlan(scenario, system, { kills: result.minimal!.kills, interleaving: found.picks }, found.baseline), session, drive);
    return andThen(minimal, (m) => explorationOf(scenario, system, options, { coverage: result.coverage!, baselines: result.list.map((it) => it.baseline) }, result, m));
  });
}
