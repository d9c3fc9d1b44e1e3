// The explorer by equivalence, for systems that run one life at a time from a named durable state
// (Session.lives). A recovery depends only on what it reads: the durable state the kill
// left, the interleaving picks it consumes and, for some systems, its life number. So:
// - the run up to kill point k is the baseline's own life cut after event k (its prefix is never
//   run again);
// - kill points that leave the same durable state share one recovery, run once: a life is kept by
//   the system's key (the state's digest, the life number where it is read) and the picks it
//   consumed, and a later start with the same key and the same picks up to that many reuses it;
// - of a system with join points (SessionLives.runHead), a recovery from a state some life was in
//   at a join point is the rest of that life, and runs nothing; any other runs only up to the
//   first join point whose state was explored before, and goes on as that life (life-cache.ts):
//   lives that reach one state share the rest, which is what makes single kills linear in a
//   task's length (a journal recovery begins at a join point of the baseline's own life);
// - the kills of a recovery are the recovery's own life cut after each event, and so on down to
//   the last kill, which is how two and three kills are enumerated;
// - every kill point still gets its full verdict: the run it stands for (its killed prefixes,
//   then the shared last life and the stores it left) is judged by the same judge() as any run,
//   once per node the last life ends in and tally of what the verdict reads of all the lives
//   (prefix-tally.ts); kill points with the same pair share that verdict but for their own kills
//   and picks. The tally of a last life is walked once per stretch between join points and tally
//   there.
// What it explores is what the unreduced explorer explores, schedule for schedule, in the same
// order of interleavings; test/equivalence.test.ts and properties/equivalence.test.ts compare the
// two verdict by verdict.

import type { Scenario } from '../../model/scenario.js';
import { interleavingsSearch, keepCheckMinima, type CheckMinimum, type ExploreOptions, type InterleavingCoverage } from './search-common.js';
import { CHECK_NAMES, failedChecks, type CheckName } from '../check/checks.js';
import type { LifeRecord, RunOutcome } from '../check/outcome.js';
import { judge, modelCallsStarted, type Verdict } from '../check/verdict.js';
import type { Answer, LifeStart, Session, SystemUnderTest } from '../engine.js';
import { withSession } from '../session.js';
import type { DriveOptions } from './drive.js';
import { runLifePlan, type LifePlan } from './life-plan.js';
import { afterEach, lifeAfter, lifeEvents, lifePicks, lifeRecord, LifeCache, pieces, type Life } from './life-cache.js';
import { Tallies, type Tally } from './prefix-tally.js';

/** How much the equivalence saved, as data for the report: N schedules covered by M lives run. */
export interface ReductionFigures {
  /** Kill schedules covered, each with its own full verdict. */
  schedulesCovered: number;
  /** Lives actually run (each baseline's own life among them). */
  livesRun: number;
  /** Lives the same schedules take when each runs from scratch (its killed lives and the last). */
  livesUnreduced: number;
  /**
   * Events of the lives run to their end (a process tier's children killed at a kill point are not
   * counted), and those the same schedules run from scratch (each killed life up to its kill, then the last life).
   */
  eventsRun: number;
  eventsUnreduced: number;
  /** Distinct durable states a kill left (by the system's key). */
  distinctStates: number;
  /**
   * Systems with join points (SessionLives.runHead): recoveries that joined a life run before, either
   * begun at one of its join points (they ran nothing) or run only up to their first (a head).
   */
  livesJoined?: number;
  /** Verdicts computed by judge(); the other schedules shared one with their own kills and picks. */
  verdictsJudged: number;
  /** Interleavings of the parallel calls whose schedules were covered (each baseline is its own first life, run once). */
  interleavings: number;
  /** Process tiers: children killed at a kill point (SessionLives.cutEvery), beside the lives run to their end. */
  childrenKilled?: number;
  /**
   * In-process tiers that cut in one life (SessionLives.cutsInOneLife): lives run again to copy
   * their state after each event, and the kill points those copies stand for.
   */
  livesRepeatedToCut?: number;
  killPointsCopied?: number;
}

interface Judgement {
  verdict: Verdict;
  failed: CheckName[];
}

/** The killed lives of a schedule, last first: each a life cut after event k. */
interface Cut {
  parent: Cut | null;
  life: Life;
  k: number;
}

function cutsInOrder(last: Cut | null): Cut[] {
  const cuts: Cut[] = [];
  for (let c = last; c !== null; c = c.parent) cuts.push(c);
  return cuts.reverse();
}


export interface EquivalenceCase {
  kills: number[];
  order: number;
  /** The schedule's full verdict and the checks it fails (made only when asked for). */
  verdict(): Verdict;
  failed: readonly CheckName[];
  /** The run the verdict judged: the killed prefixes, the shared last life, its stores. */
  outcome(): RunOutcome;
}

export interface InterleavingToExplore {
  picks: number[];
  baseline: RunOutcome;
}

/**
 * What a verdict reads of the baseline (verdict.ts: its writes, its last answer, its rows, its
 * model calls), numbered by content: interleavings whose baselines read the same share verdicts.
 */
class BaselineTallies {
  private readonly ids = new Map<string, number>();
  private readonly of = new Map<RunOutcome, number>();

  id(baseline: RunOutcome): number {
    let id = this.of.get(baseline);
    if (id === undefined) {
      const content = JSON.stringify([baseline.writes, baseline.delivered.at(-1) ?? null, baseline.shop, modelCallsStarted(baseline)]);
      id = this.ids.get(content);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(content, id);
      }
      this.of.set(baseline, id);
    }
    return id;
  }
}

export interface EquivalenceResult {
  schedulesExplored: number;
  failures: Record<CheckName, number>;
  /** The earliest schedule breaking a promise: its kills and interleaving's order. */
  minimal: { kills: number[]; order: number } | null;
  /** Each broken promise's own earliest schedule. */
  minimalByCheck: Partial<Record<CheckName, CheckMinimum>>;
  reduction: ReductionFigures;
}

/**
 * The interleavings to explore: given with their baselines (tests), given as picks alone (each
 * baseline is its own first life, run once), or searched as explore.ts does.
 */
export type InterleavingsToExplore = readonly InterleavingToExplore[] | { orders: readonly (readonly number[])[] } | { search: ExploreOptions };

export type EquivalenceExploration = EquivalenceResult & { list: InterleavingToExplore[]; coverage: InterleavingCoverage | null };

/**
 * Every schedule of 1 to `maxKills` kills over the interleavings, judged, in a session of the
 * system (its lives); `onCase` sees each schedule (tests compare it with a run from scratch).
 */
export function* equivalencePlan(session: Session, system: SystemUnderTest, interleavings: InterleavingsToExplore, maxKills: number, onCase?: (c: EquivalenceCase) => void): LifePlan<EquivalenceExploration> {
  const { scenario, lives } = session;
  if (lives === undefined) throw new Error(`${system.engine} ${system.name}: it cannot run a life from a durable state`);
  // A system with join points runs each recovery only up to the first state explored before.
  const cache = new LifeCache(lives, lives.runHead !== undefined && lives.cutEvery === undefined);
  const known = new Set<string>();
  for (const step of scenario.steps.values()) if (step.kind === 'calls') for (const c of step.calls) known.add(c.id);
  const tallies = new Tallies(known);
  const baselines = new BaselineTallies();
  const failures = Object.fromEntries(CHECK_NAMES.map((c) => [c, 0])) as Record<CheckName, number>;
  const promised = system.promised;
  let explored = 0;
  let livesUnreduced = 0;
  let eventsUnreduced = 0;
  let verdictsJudged = 0;
  let childrenKilled = 0;
  let livesRepeatedToCut = 0;
  let minimal: { kills: number[]; order: number } | null = null;
  const minimalByCheck: Partial<Record<CheckName, CheckMinimum>> = {};


  const killedRecord = (cut: Cut): LifeRecord => ({ events: cut.k < 0 ? [] : lifeEvents(cut.life, cache).slice(0, cut.k + 1), end: 'killed', killedAfter: cut.k, error: null, errorKind: null });
  const picksOf = (path: Cut | null, last: Life): { picks: number[]; widths: number[] } => {
    const picks: number[] = [];
    const widths: number[] = [];
    for (const cut of cutsInOrder(path)) {
      const n = lifeAfter(cut.life, cut.k).picksTaken;
      const taken = lifePicks(cut.life);
      picks.push(...taken.picks.slice(0, n));
      widths.push(...taken.widths.slice(0, n));
    }
    const taken = lifePicks(last);
    picks.push(...taken.picks);
    widths.push(...taken.widths);
    return { picks, widths };
  };
  const killsOf = (path: Cut | null): number[] => cutsInOrder(path).map((c) => c.k);
  const outcomeOf = (path: Cut | null, last: Life, interleaving: number[]): RunOutcome => {
    const { picks, widths } = picksOf(path, last);
    const cuts = cutsInOrder(path);
    const end = last.terminal.run!;
    return {
      scenarioId: scenario.id,
      strategy: system.name,
      schedule: { kills: cuts.map((c) => c.k), interleaving },
      lives: [...cuts.map(killedRecord), lifeRecord(last, cache)],
      picksTaken: picks,
      pickWidths: widths,
      ...end.stores,
      finalConversation: end.conversation,
    };
  };

  /** The tally after every event of a life (entry k + 1: killed after event k), entered with `enter`. */
  const alongLife = (life: Life, enter: Tally): Tally[] => {
    const memo = String(enter.id);
    let along = life.tallies.get(memo);
    if (along === undefined) {
      along = [enter];
      let at = enter;
      for (const piece of pieces(life)) {
        const own = tallies.along(at, piece.events, enter.committed, piece.start, piece.end);
        for (let i = 1; i < own.length; i++) along.push(own[i]!);
        at = own[own.length - 1]!;
      }
      life.tallies.set(memo, along);
    }
    return along;
  };
  /**
   * The tally after the whole of a life entered with `enter`: what a verdict reads of all the
   * lives of a schedule. Kept at each join along the way (by the tally there and the calls
   * committed before the life), so recoveries that join one life walk its rest once between them.
   */
  const exitOf = (life: Life, enter: Tally): Tally => {
    const known = life.exits.get(enter.id);
    if (known !== undefined) return known;
    const before = enter.committed;
    const walked: { memo: Map<string, Tally>; key: string }[] = [];
    let at = enter;
    let exit: Tally | undefined;
    for (const piece of pieces(life)) {
      const key = `${piece.memoKey}${at.id}|${before.id}`;
      exit = piece.memo.get(key);
      if (exit !== undefined) break;
      walked.push({ memo: piece.memo, key });
      at = tallies.after(at, piece.events, before, piece.start, piece.end);
    }
    exit ??= at;
    for (const w of walked) w.memo.set(w.key, exit);
    life.exits.set(enter.id, exit);
    return exit;
  };

  const visit = (order: number, it: InterleavingToExplore, path: Cut, depth: number, last: Life, tally: Tally): void => {
    // A verdict reads the schedule's tally over all its lives, and of the last life only how it
    // ended and the stores and conversation it left: those of the node its chain ends in.
    const exit = exitOf(last, tally);
    const judgedKey = `${baselines.id(it.baseline)}|${exit.id}`;
    const judged = last.terminal.judged as Map<string, Judgement>;
    let judgement = judged.get(judgedKey);
    if (judgement === undefined) {
      const outcome = outcomeOf(path, last, it.picks);
      const verdict = judge(scenario, outcome, it.baseline);
      judgement = { verdict, failed: failedChecks({ scenario, outcome, verdict }) };
      judged.set(judgedKey, judgement);
      verdictsJudged++;
    }
    explored++;
    livesUnreduced += depth + 1;
    for (let c: Cut | null = path; c !== null; c = c.parent) eventsUnreduced += c.k + 1;
    eventsUnreduced += last.length;
    const { failed } = judgement;
    if (failed.length === 0 && onCase === undefined) return;
    for (const c of failed) failures[c]++;
    if (failed.some((c) => promised.includes(c))) {
      const kills = killsOf(path);
      if (minimal === null || compare({ kills, order }, minimal) < 0) minimal = { kills, order };
      keepCheckMinima(minimalByCheck, promised, failed, kills, order, it.picks, () => outcomeOf(path, last, it.picks));
    }
    if (onCase !== undefined) {
      const shared = judgement.verdict;
      const kills = killsOf(path);
      onCase({
        kills,
        order,
        failed,
        verdict: () => ({ ...shared, kills, interleaving: picksOf(path, last).picks }),
        outcome: () => outcomeOf(path, last, it.picks),
      });
    }
  };

  /** The lives after a kill at each event of `life` (numbered `lifeIndex`), run once per life. */
  const childrenOf = function* (life: Life, lifeIndex: number): LifePlan<{ starts: LifeStart[]; lives: Life[] }> {
    const known = life.children.get(lifeIndex);
    if (known !== undefined) return known;
    const node = life.node;
    if (lives.cutEvery !== undefined && !node.cut) {
      yield [{ cut: node.run!, start: node.start }];
      node.cut = true;
      childrenKilled += node.run!.record.events.length; // a kill before the first event needs no child
      livesRepeatedToCut += 1;
    }
    const starts: LifeStart[] = [];
    for (const after of afterEach(life)) starts.push({ state: after.state, lifeIndex, picks: life.start.picks.slice(Math.min(after.picksTaken, life.start.picks.length)) });
    const children = { starts, lives: yield* cache.livesFor(starts) };
    life.children.set(lifeIndex, children);
    return children;
  };

  // Depth first: a life, then (below the kill limit) each of its kill points and the life after it.
  const descend = function* (order: number, it: InterleavingToExplore, life: Life, path: Cut | null, depth: number, tally: Tally): LifePlan<void> {
    if (path !== null) visit(order, it, path, depth, life, tally);
    if (depth >= maxKills) return;
    // The life after the kill: its number is the kills so far (a shared node may have run as another).
    const { lives: after } = yield* childrenOf(life, depth + 1);
    const along = alongLife(life, tally);
    for (let k = -1; k < life.length; k++) {
      yield* descend(order, it, after[k + 1]!, { parent: path, life, k }, depth + 1, along[k + 1]!);
    }
  };

  const rootOf = function* (picks: readonly number[]): LifePlan<Life> {
    // It says where its join points are, and most recoveries begin at one; it stops at a state
    // another order's baseline reached before it, and goes on as that one.
    const [root] = yield* cache.livesFor([{ state: lives.initial(), lifeIndex: 0, picks }]);
    return root!;
  };
  let list: InterleavingToExplore[];
  let coverage: InterleavingCoverage | null = null;
  if (Array.isArray(interleavings)) list = [...(interleavings as readonly InterleavingToExplore[])];
  else if ('orders' in interleavings) {
    list = [];
    for (const given of interleavings.orders) {
      const picks = [...given];
      list.push({ picks, baseline: outcomeOf(null, yield* rootOf(picks), picks) });
    }
  } else {
    // Each baseline is its own first life, run once: the kill points cut it, nothing runs it again.
    const searched = yield* interleavingsSearch(scenario, system, (interleavings as { search: ExploreOptions }).search, function* (picks) {
      const baseline = outcomeOf(null, yield* rootOf(picks), picks);
      return baseline;
    });
    list = searched.list;
    coverage = searched.coverage;
  }
  for (const [order, it] of list.entries()) {
    yield* descend(order, it, yield* rootOf(it.picks), null, 0, tallies.empty);
  }
  return {
    schedulesExplored: explored,
    failures,
    minimal,
    minimalByCheck,
    reduction: { schedulesCovered: explored, livesRun: cache.livesRun, livesUnreduced, eventsRun: cache.eventsRun, eventsUnreduced, distinctStates: cache.distinctKeys, ...(cache.joins ? { livesJoined: cache.headsRun + cache.livesAtJoinPoints } : {}), verdictsJudged, interleavings: list.length, ...(lives.cutEvery === undefined ? {} : lives.cutsInOneLife ? { livesRepeatedToCut, killPointsCopied: childrenKilled } : { childrenKilled }) },
    list,
    coverage,
  };
}

/**
 * The explorer by equivalence in a session of its own: opened on the scenario, closed when done
 * (what its lives left goes with it), on error too. A plain value for a system typed in process.
 */
export function exploreByEquivalence<S extends SystemUnderTest>(scenario: Scenario, system: S, interleavings: InterleavingsToExplore, maxKills: number, onCase?: (c: EquivalenceCase) => void, drive?: DriveOptions): Answer<S, EquivalenceExploration> {
  const sys: SystemUnderTest = system;
  return withSession(sys, scenario, (session) => runLifePlan(equivalencePlan(session, sys, interleavings, maxKills, onCase), session, drive)) as Answer<S, EquivalenceExploration>;
}

/** Which schedule comes first: fewer kills, then earlier kills, then the earlier interleaving (as explore.ts). */
function compare(a: { kills: number[]; order: number }, b: { kills: number[]; order: number }): number {
  if (a.kills.length !== b.kills.length) return a.kills.length - b.kills.length;
  for (let i = 0; i < a.kills.length; i++) if (a.kills[i] !== b.kills[i]) return a.kills[i]! - b.kills[i]!;
  return a.order - b.order;
}
