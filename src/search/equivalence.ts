// The explorer by equivalence, for systems that run one life at a time from a named durable state
// (SystemUnderTest.lives). A recovery depends only on what it reads: the durable state the kill
// left, the interleaving picks it consumes and, for some systems, its life number. So:
// - the run up to kill point k is the baseline's own life cut after event k (its prefix is never
//   run again);
// - kill points that leave the same durable state share one recovery, run once: a life is kept by
//   the system's key (the state's digest, the life number where it is read) and the picks it
//   consumed, and a later start with the same key and the same picks up to that many reuses it;
// - the kills of a recovery are the recovery's own life cut after each event, and so on down to
//   the last kill, which is how two and three kills are enumerated;
// - every kill point still gets its full verdict: the run it stands for (its killed prefixes,
//   then the shared last life and the stores it left) is judged by the same judge() as any run,
//   once per shared last life and tally of what the verdict reads of the prefixes
//   (prefix-tally.ts); kill points with the same pair share that verdict but for their own kills
//   and picks.
// What it explores is what the unreduced explorer explores, schedule for schedule, in the same
// order of interleavings; test/equivalence.test.ts and properties/equivalence.test.ts compare the
// two verdict by verdict.

import type { Scenario } from '../model/scenario.js';
import { brokenPromises, CHECK_NAMES, failedChecks, type CheckName } from '../check/checks.js';
import type { LifeRecord, RunOutcome } from '../check/outcome.js';
import { judge, type Verdict } from '../check/verdict.js';
import type { LifeByLife, LifeRun, LifeStart, SystemUnderTest } from '../engines/engine.js';
import { inPool } from './plan.js';
import { Tallies, type Tally } from './prefix-tally.js';

/** A plan that asks for lives (from durable states) rather than whole runs. */
export type LifePlan<T> = Generator<LifeStart[], T, LifeRun[]>;

/** How much the equivalence saved, as data for the report: N schedules covered by M lives run. */
export interface ReductionFigures {
  /** Kill schedules covered, each with its own full verdict. */
  schedulesCovered: number;
  /** Lives actually run (each baseline's own life among them). */
  livesRun: number;
  /** Lives the same schedules take when each runs from scratch (its killed lives and the last). */
  livesUnreduced: number;
  /** Distinct durable states a kill left (by the system's key). */
  distinctStates: number;
  /** Verdicts computed by judge(); the other schedules shared one with their own kills and picks. */
  verdictsJudged: number;
}

/** A life that ran, kept for every start that reads the same. */
interface Node {
  id: number;
  run: LifeRun;
  /** The picks of its start that it consumed; `pastEnd`: it also found them run out. */
  consumed: readonly number[];
  pastEnd: boolean;
  /** Tallies along its events, by the tally it was entered with. */
  tallies: Map<number, Tally[]>;
  /** As the last life of a schedule: the verdict and failed checks, by the prefix tally. */
  judged: Map<number, Judgement>;
}

interface Judgement {
  verdict: Verdict;
  failed: CheckName[];
}

/** One killed life of a schedule: a node cut after event k. */
interface Cut {
  node: Node;
  k: number;
}

function consumedFrom(picks: readonly number[], run: LifeRun): { consumed: readonly number[]; pastEnd: boolean } {
  return { consumed: picks.slice(0, Math.min(run.picks.length, picks.length)), pastEnd: run.picks.length > picks.length };
}

/** The lives run so far, found again by what a new start reads. */
class LifeCache {
  private readonly byKey = new Map<string, Node[]>();
  livesRun = 0;

  constructor(private readonly lives: LifeByLife) {}

  get distinctKeys(): number {
    return this.byKey.size;
  }

  find(start: LifeStart): Node | undefined {
    for (const node of this.byKey.get(this.lives.key(start)) ?? []) {
      if (node.pastEnd ? start.picks.length !== node.consumed.length : start.picks.length < node.consumed.length) continue;
      let same = true;
      for (let i = 0; i < node.consumed.length && same; i++) same = node.consumed[i] === start.picks[i];
      if (same) return node;
    }
    return undefined;
  }

  /** Two starts surely read the same before either has run: the same key and the same picks. */
  sameRead(a: LifeStart, b: LifeStart): boolean {
    return this.lives.key(a) === this.lives.key(b) && a.picks.length === b.picks.length && a.picks.every((p, i) => p === b.picks[i]);
  }

  add(start: LifeStart, run: LifeRun): Node {
    const key = this.lives.key(start);
    const node: Node = { id: this.livesRun++, run, ...consumedFrom(start.picks, run), tallies: new Map(), judged: new Map() };
    const nodes = this.byKey.get(key);
    if (nodes === undefined) this.byKey.set(key, [node]);
    else nodes.push(node);
    return node;
  }
}

/** Lives for these starts: those already run are reused, the others asked for in one batch. */
function* livesFor(cache: LifeCache, starts: LifeStart[]): LifePlan<Node[]> {
  const found = starts.map((s) => cache.find(s));
  const missing: number[] = [];
  const asked: LifeStart[] = [];
  for (const [i, node] of found.entries()) {
    if (node !== undefined) continue;
    // Two starts of this batch may read the same: ask once (the first), then find it for the rest.
    if (asked.some((a) => cache.sameRead(a, starts[i]!))) continue;
    missing.push(i);
    asked.push(starts[i]!);
  }
  if (asked.length > 0) {
    const runs = yield asked;
    for (const [j, i] of missing.entries()) cache.add(starts[i]!, runs[j]!);
  }
  return starts.map((s, i) => found[i] ?? cache.find(s)!);
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

export interface EquivalenceResult {
  schedulesExplored: number;
  failures: Record<CheckName, number>;
  /** The earliest schedule breaking a promise: its kills and interleaving's order. */
  minimal: { kills: number[]; order: number } | null;
  reduction: ReductionFigures;
}

/**
 * Every schedule of 1 to `maxKills` kills over the interleavings given, judged; `onCase` sees each
 * schedule (tests compare it with a run from scratch).
 */
export function* equivalencePlan(scenario: Scenario, system: SystemUnderTest, interleavings: readonly InterleavingToExplore[], maxKills: number, onCase?: (c: EquivalenceCase) => void): LifePlan<EquivalenceResult> {
  const lives = system.lives;
  if (lives === undefined) throw new Error(`${system.engine} ${system.name}: it cannot run a life from a durable state`);
  const cache = new LifeCache(lives);
  const known = new Set<string>();
  for (const step of scenario.steps.values()) if (step.kind === 'calls') for (const c of step.calls) known.add(c.id);
  const tallies = new Tallies(known);
  const failures = Object.fromEntries(CHECK_NAMES.map((c) => [c, 0])) as Record<CheckName, number>;
  const promised = system.promised;
  let explored = 0;
  let livesUnreduced = 0;
  let verdictsJudged = 0;
  let minimal: { kills: number[]; order: number } | null = null;

  const killedRecord = (cut: Cut): LifeRecord => ({ events: cut.k < 0 ? [] : cut.node.run.record.events.slice(0, cut.k + 1), end: 'killed', killedAfter: cut.k, error: null, errorKind: null });
  const picksOf = (path: readonly Cut[], last: Node): { picks: number[]; widths: number[] } => {
    const picks: number[] = [];
    const widths: number[] = [];
    for (const cut of path) {
      const n = cut.node.run.after(cut.k).picksTaken;
      for (let i = 0; i < n; i++) {
        picks.push(cut.node.run.picks[i]!);
        widths.push(cut.node.run.widths[i]!);
      }
    }
    picks.push(...last.run.picks);
    widths.push(...last.run.widths);
    return { picks, widths };
  };
  const outcomeOf = (path: readonly Cut[], last: Node, kills: number[], interleaving: number[]): RunOutcome => {
    const { picks, widths } = picksOf(path, last);
    return {
      scenarioId: scenario.id,
      strategy: system.name,
      schedule: { kills, interleaving },
      lives: [...path.map(killedRecord), last.run.record],
      picksTaken: picks,
      pickWidths: widths,
      ...last.run.stores,
      finalConversation: last.run.conversation,
    };
  };

  const visit = (order: number, it: InterleavingToExplore, path: readonly Cut[], last: Node, tally: Tally, kills: number[]): void => {
    let judgement = last.judged.get(tally.id);
    if (judgement === undefined) {
      const outcome = outcomeOf(path, last, kills, it.picks);
      const verdict = judge(scenario, outcome, it.baseline);
      judgement = { verdict, failed: failedChecks({ scenario, outcome, verdict }) };
      last.judged.set(tally.id, judgement);
      verdictsJudged++;
    }
    explored++;
    livesUnreduced += kills.length + 1;
    const { failed } = judgement;
    for (const c of failed) failures[c]++;
    if (failed.some((c) => promised.includes(c)) && (minimal === null || compare({ kills, order }, minimal) < 0)) minimal = { kills, order };
    if (onCase !== undefined) {
      const shared = judgement.verdict;
      onCase({
        kills,
        order,
        failed,
        verdict: () => ({ ...shared, kills, interleaving: picksOf(path, last).picks }),
        outcome: () => outcomeOf(path, last, kills, it.picks),
      });
    }
  };

  // Depth first: a life, then (below the kill limit) each of its kill points and the life after it.
  const descend = function* (order: number, it: InterleavingToExplore, node: Node, picks: readonly number[], path: Cut[], tally: Tally, kills: number[]): LifePlan<void> {
    if (kills.length > 0) visit(order, it, path, node, tally, kills);
    if (kills.length >= maxKills) return;
    const events = node.run.record.events.length;
    const starts: LifeStart[] = [];
    for (let k = -1; k < events; k++) {
      const after = node.run.after(k);
      // The life after the kill: its number is the kills so far (a shared node may have run as another).
      starts.push({ state: after.state, lifeIndex: kills.length + 1, picks: picks.slice(Math.min(after.picksTaken, picks.length)) });
    }
    const next = yield* livesFor(cache, starts);
    let along = node.tallies.get(tally.id);
    if (along === undefined) {
      along = tallies.along(tally, node.run.record.events);
      node.tallies.set(tally.id, along);
    }
    for (let k = -1; k < events; k++) {
      yield* descend(order, it, next[k + 1]!, starts[k + 1]!.picks, [...path, { node, k }], along[k + 1]!, [...kills, k]);
    }
  };

  for (const [order, it] of interleavings.entries()) {
    const [root] = yield* livesFor(cache, [{ state: lives.initial(scenario), lifeIndex: 0, picks: it.picks }]);
    yield* descend(order, it, root!, it.picks, [], tallies.empty, []);
  }
  return {
    schedulesExplored: explored,
    failures,
    minimal,
    reduction: { schedulesCovered: explored, livesRun: cache.livesRun, livesUnreduced, distinctStates: cache.distinctKeys, verdictsJudged },
  };
}

/** Which schedule comes first: fewer kills, then earlier kills, then the earlier interleaving (as explore.ts). */
function compare(a: { kills: number[]; order: number }, b: { kills: number[]; order: number }): number {
  if (a.kills.length !== b.kills.length) return a.kills.length - b.kills.length;
  for (let i = 0; i < a.kills.length; i++) if (a.kills[i] !== b.kills[i]) return a.kills[i]! - b.kills[i]!;
  return a.order - b.order;
}

/** Runs a life plan on an in-process system. */
export function runLifePlan<T>(plan: LifePlan<T>, system: SystemUnderTest, scenario: Scenario): T {
  const lives = system.lives!;
  let step = plan.next([]);
  while (!step.done) {
    const runs: LifeRun[] = [];
    for (const start of step.value) {
      const run = lives.runLife(scenario, start);
      if (run instanceof Promise) throw new Error(`${system.engine} ${system.name}: its lives are processes; use the asynchronous search`);
      runs.push(run);
    }
    step = plan.next(runs);
  }
  return step.value;
}

/** Runs a life plan on any system, the lives of one batch `concurrency` at a time. */
export async function runLifePlanAsync<T>(plan: LifePlan<T>, system: SystemUnderTest, scenario: Scenario, concurrency = 1): Promise<T> {
  const lives = system.lives!;
  let step = plan.next([]);
  while (!step.done) {
    const runs = await inPool(step.value, concurrency, async (start) => lives.runLife(scenario, start));
    step = plan.next(runs);
  }
  return step.value;
}
