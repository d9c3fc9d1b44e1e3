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
import { interleavingsSearch, keepCheckMinima, type CheckMinimum, type ExploreOptions, type InterleavingCoverage } from './search-common.js';
import { CHECK_NAMES, failedChecks, type CheckName } from '../check/checks.js';
import type { LifeRecord, RunOutcome } from '../check/outcome.js';
import { judge, modelCallsStarted, type Verdict } from '../check/verdict.js';
import type { LifeByLife, LifeRun, LifeStart, SystemUnderTest } from '../engines/engine.js';
import { inPool } from './plan.js';
import { Tallies, type Tally } from './prefix-tally.js';

/**
 * A plan that asks for lives (from durable states) rather than whole runs; of a process tier it
 * also asks that a life already run be cut (LifeByLife.cutEvery), answered with the same life.
 */
export type LifePlan<T> = Generator<LifeAsk[], T, LifeRun[]>;
export type LifeAsk = LifeStart | CutAsk;
export interface CutAsk {
  cut: LifeRun;
  start: LifeStart;
}

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
  /** Verdicts computed by judge(); the other schedules shared one with their own kills and picks. */
  verdictsJudged: number;
  /** Interleavings of the parallel calls whose schedules were covered (each baseline is its own first life, run once). */
  interleavings: number;
  /** Process tiers: children killed at a kill point (LifeByLife.cutEvery), beside the lives run to their end. */
  childrenKilled?: number;
}

/** A life that ran, kept for every start that reads the same. */
interface Node {
  id: number;
  start: LifeStart;
  run: LifeRun;
  /** A process tier's life whose kill points have been suffered (LifeByLife.cutEvery). */
  cut: boolean;
  /** The picks of its start that it consumed; `pastEnd`: it also found them run out. */
  consumed: readonly number[];
  pastEnd: boolean;
  /** Tallies along its events, by the tally it was entered with. */
  tallies: Map<number, Tally[]>;
  /** As the last life of a schedule: the verdict and failed checks, by the baseline's and the prefix's tallies. */
  judged: Map<string, Judgement>;
  /** The life after a kill at each of its events (k + 1), by the picks this life was given. */
  children: Map<string, { starts: LifeStart[]; nodes: Node[] }>;
}

interface Judgement {
  verdict: Verdict;
  failed: CheckName[];
}

/** The killed lives of a schedule, last first: each a node cut after event k. */
interface Cut {
  parent: Cut | null;
  node: Node;
  k: number;
}

function cutsInOrder(last: Cut | null): Cut[] {
  const cuts: Cut[] = [];
  for (let c = last; c !== null; c = c.parent) cuts.push(c);
  return cuts.reverse();
}

function consumedFrom(picks: readonly number[], run: LifeRun): { consumed: readonly number[]; pastEnd: boolean } {
  return { consumed: picks.slice(0, Math.min(run.picks.length, picks.length)), pastEnd: run.picks.length > picks.length };
}

/** The lives run so far, found again by what a new start reads. */
class LifeCache {
  private readonly byKey = new Map<string, Node[]>();
  livesRun = 0;
  eventsRun = 0;

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
    this.eventsRun += run.record.events.length;
    const node: Node = { id: this.livesRun++, start, run, cut: false, ...consumedFrom(start.picks, run), tallies: new Map(), judged: new Map(), children: new Map() };
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

/**
 * Every schedule of 1 to `maxKills` kills over the interleavings, judged; `onCase` sees each
 * schedule (tests compare it with a run from scratch).
 */
export function* equivalencePlan(scenario: Scenario, system: SystemUnderTest, interleavings: InterleavingsToExplore, maxKills: number, onCase?: (c: EquivalenceCase) => void): LifePlan<EquivalenceResult & { list: InterleavingToExplore[]; coverage: InterleavingCoverage | null }> {
  const lives = system.lives;
  if (lives === undefined) throw new Error(`${system.engine} ${system.name}: it cannot run a life from a durable state`);
  const cache = new LifeCache(lives);
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
  let minimal: { kills: number[]; order: number } | null = null;
  const minimalByCheck: Partial<Record<CheckName, CheckMinimum>> = {};

  const killedRecord = (cut: Cut): LifeRecord => ({ events: cut.k < 0 ? [] : cut.node.run.record.events.slice(0, cut.k + 1), end: 'killed', killedAfter: cut.k, error: null, errorKind: null });
  const picksOf = (path: Cut | null, last: Node): { picks: number[]; widths: number[] } => {
    const picks: number[] = [];
    const widths: number[] = [];
    for (const cut of cutsInOrder(path)) {
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
  const killsOf = (path: Cut | null): number[] => cutsInOrder(path).map((c) => c.k);
  const outcomeOf = (path: Cut | null, last: Node, interleaving: number[]): RunOutcome => {
    const { picks, widths } = picksOf(path, last);
    const cuts = cutsInOrder(path);
    return {
      scenarioId: scenario.id,
      strategy: system.name,
      schedule: { kills: cuts.map((c) => c.k), interleaving },
      lives: [...cuts.map(killedRecord), last.run.record],
      picksTaken: picks,
      pickWidths: widths,
      ...last.run.stores,
      finalConversation: last.run.conversation,
    };
  };

  const visit = (order: number, it: InterleavingToExplore, path: Cut, depth: number, last: Node, tally: Tally): void => {
    const judgedKey = `${baselines.id(it.baseline)}|${tally.id}`;
    let judgement = last.judged.get(judgedKey);
    if (judgement === undefined) {
      const outcome = outcomeOf(path, last, it.picks);
      const verdict = judge(scenario, outcome, it.baseline);
      judgement = { verdict, failed: failedChecks({ scenario, outcome, verdict }) };
      last.judged.set(judgedKey, judgement);
      verdictsJudged++;
    }
    explored++;
    livesUnreduced += depth + 1;
    for (let c: Cut | null = path; c !== null; c = c.parent) eventsUnreduced += c.k + 1;
    eventsUnreduced += last.run.record.events.length;
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

  /** The lives after a kill at each event of `node` (given `picks`), run once per node and picks. */
  const childrenOf = function* (node: Node, picks: readonly number[], lifeIndex: number): LifePlan<{ starts: LifeStart[]; nodes: Node[] }> {
    const memo = `${lifeIndex}|${picks.join(',')}`;
    const known = node.children.get(memo);
    if (known !== undefined) return known;
    if (lives.cutEvery !== undefined && !node.cut) {
      yield [{ cut: node.run, start: node.start }];
      node.cut = true;
      childrenKilled += node.run.record.events.length; // a kill before the first event needs no child
    }
    const starts: LifeStart[] = [];
    for (let k = -1; k < node.run.record.events.length; k++) {
      const after = node.run.after(k);
      starts.push({ state: after.state, lifeIndex, picks: picks.slice(Math.min(after.picksTaken, picks.length)) });
    }
    const children = { starts, nodes: yield* livesFor(cache, starts) };
    node.children.set(memo, children);
    return children;
  };

  // Depth first: a life, then (below the kill limit) each of its kill points and the life after it.
  const descend = function* (order: number, it: InterleavingToExplore, node: Node, picks: readonly number[], path: Cut | null, depth: number, tally: Tally): LifePlan<void> {
    if (path !== null) visit(order, it, path, depth, node, tally);
    if (depth >= maxKills) return;
    // The life after the kill: its number is the kills so far (a shared node may have run as another).
    const { starts, nodes } = yield* childrenOf(node, picks, depth + 1);
    let along = node.tallies.get(tally.id);
    if (along === undefined) {
      along = tallies.along(tally, node.run.record.events);
      node.tallies.set(tally.id, along);
    }
    for (let k = -1; k < node.run.record.events.length; k++) {
      yield* descend(order, it, nodes[k + 1]!, starts[k + 1]!.picks, { parent: path, node, k }, depth + 1, along[k + 1]!);
    }
  };

  const rootOf = function* (picks: readonly number[]): LifePlan<Node> {
    const [root] = yield* livesFor(cache, [{ state: lives.initial(scenario), lifeIndex: 0, picks }]);
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
    yield* descend(order, it, yield* rootOf(it.picks), it.picks, null, 0, tallies.empty);
  }
  return {
    schedulesExplored: explored,
    failures,
    minimal,
    minimalByCheck,
    reduction: { schedulesCovered: explored, livesRun: cache.livesRun, livesUnreduced, eventsRun: cache.eventsRun, eventsUnreduced, distinctStates: cache.distinctKeys, verdictsJudged, interleavings: list.length, ...(lives.cutEvery === undefined ? {} : { childrenKilled }) },
    list,
    coverage,
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
      if ('cut' in start) throw new Error(`${system.engine} ${system.name}: its lives are cut by processes; use the asynchronous search`);
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
  try {
    let step = plan.next([]);
    while (!step.done) {
      const runs = await inPool(step.value, concurrency, async (ask) => {
        if (!('cut' in ask)) return lives.runLife(scenario, ask);
        await lives.cutEvery!(scenario, ask.start, ask.cut, concurrency);
        return ask.cut;
      });
      step = plan.next(runs);
    }
    return step.value;
  } finally {
    await lives.release?.(scenario);
  }
}
