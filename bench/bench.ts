// The speed benchmark (not a test): kill-and-resume runs per second with the in-memory stores; the
// time to enumerate every single kill, every one- and two-kill and every one- to three-kill
// schedule of every bundled scenario under every strategy, by equivalence (one recovery per
// distinct durable state, src/harness/search/equivalence.ts) and, in the same run, each schedule from
// scratch; schedules covered per second beside lives run per second; how single kills grow as a
// task doubles in length, up to about 1,000 events. Targets on one core: >= 10,000 runs/s, single
// kills < 2 s, one and two kills >= 10x faster by equivalence than from scratch.
// Then (not with --quick) the full sweep that test/reusable-stores.test.ts samples: the reused
// in-memory stores give exactly what fresh ones give at every single kill of every bundled
// scenario and strategy (exit 1 if any run differs).
// Run: npx tsx bench/bench.ts [--quick]

import { explore } from '../src/harness/search/explore.js';
import { isDeepStrictEqual } from 'node:util';
import { simulateLives, simulate } from '../src/harness/engines/scripted/simulate.js';
import { closeStores, memoryStores } from '../src/model/stores.js';
import { ALL_STRATEGY_NAMES, STRATEGY_NAMES, strategy } from '../src/harness/engines/scripted/strategies.js';
import { judge } from '../src/harness/check/verdict.js';
import { lanternScenarios } from '../src/model/load.js';
import { parseScenario, type Scenario } from '../src/model/scenario.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import type { InProcessLives, InProcessSystem } from '../src/harness/engine.js';
import type { ReductionFigures } from '../src/harness/search/equivalence.js';

const TARGET_RUNS_PER_S = 10_000;
const TARGET_SINGLE_S = 2;
/** Single kills as a task grows: linear time, give or take the noise of runs of a few ms. */
const TARGET_LINEAR_EXPONENT = 1.25;
/** One and two kills by equivalence against each run from scratch, measured in the same run. */
const TARGET_TWO_RATIO = 10;
const quick = process.argv.includes('--quick');

function seconds(f: () => void): number {
  const t0 = performance.now(); // real clock: measuring speed is this script's job
  f();
  return (performance.now() - t0) / 1000; // real clock: measuring speed is this script's job
}

/**
 * The fastest of repeated runs of `f` (at least 3, and at least `totalS` seconds in all), with what
 * that run returned: one run of a few ms is mostly noise.
 */
function fastest<T>(f: () => T, totalS = 0.3): { s: number; value: T } {
  let best: { s: number; value: T } | null = null;
  let spent = 0;
  for (let i = 0; i < 3 || spent < totalS; i++) {
    let value!: T;
    const s = seconds(() => { value = f(); });
    if (best === null || s < best.s) best = { s, value };
    spent += s;
  }
  return best!;
}

/**
 * The fastest of repeated explorations with the system's lives (runLife, runHead) timed apart: the
 * explorer's own work is the rest. Both are taken from the run whose total was the fastest.
 */
function fastestTimed<T>(explore1: (system: InProcessSystem) => T, system: InProcessSystem): { totalS: number; livesS: number; value: T } {
  let livesS = 0;
  const timedCall = <R>(f: () => R): R => {
    const t0 = performance.now(); // real clock: measuring speed is this script's job
    try {
      return f();
    } finally {
      livesS += (performance.now() - t0) / 1000; // real clock: measuring speed is this script's job
    }
  };
  const timed = withLives(system, (lives) => ({ ...lives, runLife: (start) => timedCall(() => lives.runLife(start)), runHead: (start, stopAt) => timedCall(() => lives.runHead!(start, stopAt)) }));
  const best = fastest(() => {
    livesS = 0;
    const value = explore1(timed);
    return { livesS, value };
  });
  return { totalS: best.s, livesS: best.value.livesS, value: best.value.value };
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

/** The exponent b of time ~ events^b fitted to the points (least squares on the logs): 1 is linear, 2 quadratic. */
function growthExponent(points: { events: number; s: number }[]): number {
  const xs = points.map((p) => Math.log(p.events));
  const ys = points.map((p) => Math.log(p.s));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * Kill-and-resume runs (a session's run + judge) for every single kill, repeated for about `forS`
 * seconds: one session per scenario and strategy, opened once, as an exploration holds one.
 */
function runsPerSecond(scenarios: Scenario[], forS: number): { runs: number; s: number } {
  const cases = scenarios.flatMap((scenario) => STRATEGY_NAMES.map((name) => {
    const session = scripted(name).open(scenario);
    const baseline = session.run({ kills: [], interleaving: [] });
    return { scenario, session, baseline, events: baseline.lives[0]!.events.length };
  }));
  const pass = (): number => {
    let passRuns = 0;
    for (const c of cases) {
      for (let k = -1; k < c.events; k++) {
        judge(c.scenario, c.session.run({ kills: [k], interleaving: [] }), c.baseline);
        passRuns++;
      }
    }
    return passRuns;
  };
  // One untimed pass first: the figure is the steady rate, not the JIT compiler's first look.
  pass();
  let runs = 0;
  let s = 0;
  while (s < forS) s += seconds(() => (runs += pass()));
  for (const c of cases) c.session.close();
  return { runs, s };
}

interface Enumerated {
  schedules: number;
  s: number;
  /** Lives run (by equivalence) or taken by runs from scratch (kills + 1 per schedule, plus the baselines). */
  lives: number;
}

/** Every schedule of up to `kills` kills of the scenarios under the strategies, by equivalence or each run from scratch. */
function enumerate(scenarios: Scenario[], kills: 1 | 2 | 3, interleavingBound: number, reduce: boolean, names: readonly string[] = STRATEGY_NAMES): Enumerated {
  let schedules = 0;
  let lives = 0;
  const s = seconds(() => {
    for (const scenario of scenarios) {
      for (const name of names) {
        const e = explore(scenario, scripted(name), { kills, interleavingBound, seed: 1, reduce });
        schedules += e.schedulesExplored;
        lives += e.reduction?.livesRun ?? e.schedulesExplored + e.interleavings.explored;
      }
    }
  });
  return { schedules, s, lives };
}

/** One line: the schedules, the time, the rate of schedules (each a full verdict) and of lives run. */
function rates(label: string, e: Enumerated): string {
  return `${label}: ${fmt(e.schedules)} schedules in ${fmt(e.s, 2)} s: ${fmt(e.schedules / e.s)} schedules/s covered, ${fmt(e.lives)} lives run (${fmt(e.lives / e.s)}/s)`;
}

/** A task of `reads` sequential reads before one refund: doubling reads roughly doubles its events. */
function taskOfLength(reads: number): Scenario {
  const steps: Record<string, unknown> = {};
  for (let i = 0; i < reads; i++) steps[`read-${i}`] = { calls: [{ tool: 'get_order', args: { orderId: 'O-1' } }], next: i + 1 < reads ? `read-${i + 1}` : 'refund' };
  steps.refund = { calls: [{ tool: 'refund', args: { orderId: 'O-1', lineId: 'L1', amountCents: 500 } }], next: 'answer' };
  steps.answer = { say: 'Refunded $5.00 for the item on order O-1; it will be back on your card soon.' };
  return parseScenario({
    id: `LEN-${reads}`,
    title: `${reads} reads then a refund`,
    customerMessage: 'Please refund the item.',
    shop: { customers: [{ id: 'C-1', name: 'A', email: 'a@example.com', address: 'x' }], orders: [{ id: 'O-1', customerId: 'C-1', status: 'delivered', lines: [{ lineId: 'L1', item: 'thing', quantity: 1, priceCents: 1000 }] }] },
    model: { start: reads > 0 ? 'read-0' : 'refund', steps },
  }, 'bench');
}

const scenarios = lanternScenarios();
console.log(`killpoint bench: ${scenarios.length} bundled scenarios x ${STRATEGY_NAMES.length} strategies, in-memory stores, one process${quick ? ' (quick)' : ''}`);

const rate = runsPerSecond(scenarios, quick ? 0.5 : 3);
const perS = rate.runs / rate.s;
console.log(`kill-and-resume runs per second: ${fmt(perS)} (${fmt(rate.runs)} runs in ${fmt(rate.s, 2)} s); target >= ${fmt(TARGET_RUNS_PER_S)}: ${fmt(perS / TARGET_RUNS_PER_S, 2)}x of target`);

// Reduced (by equivalence: one recovery per distinct durable state, the baseline's prefix reused)
// against unreduced (every schedule run from scratch), in this one run: these machines are noisy.
const singleReduced = enumerate(scenarios, 1, 1, true);
const singleFull = enumerate(scenarios, 1, 1, false);
console.log(rates('every single kill, by equivalence', singleReduced));
console.log(rates('every single kill, each from scratch', singleFull));
console.log(`  single kills: ${fmt(singleFull.s / singleReduced.s, 1)}x faster by equivalence; target < ${TARGET_SINGLE_S} s: ${fmt(singleReduced.s / TARGET_SINGLE_S, 2)} of the budget`);
const singleAll = enumerate(scenarios, 1, 32, true);
console.log(rates('every single kill, up to 32 interleavings each, by equivalence', singleAll));
ordersJoinedOrNot();

const twoReduced = enumerate(scenarios, 2, 1, true);
console.log(rates('every schedule of 1 or 2 kills, by equivalence', twoReduced));
if (!quick) {
  const twoFull = enumerate(scenarios, 2, 1, false);
  console.log(rates('every schedule of 1 or 2 kills, each from scratch', twoFull));
  const ratio = twoFull.s / twoReduced.s;
  console.log(`  one and two kills: ${fmt(ratio, 1)}x faster by equivalence (target >= ${TARGET_TWO_RATIO}x: ${ratio >= TARGET_TWO_RATIO ? 'met' : 'NOT met'}); ${fmt(twoReduced.schedules / twoReduced.lives, 0)} schedules per life run`);
}
const threeReduced = enumerate(scenarios, 3, 1, true);
console.log(rates('every schedule of 1, 2 or 3 kills, by equivalence', threeReduced));

console.log('single kills as a task doubles in length (journal+keys), by equivalence and from scratch:');
let previous: { events: number; reduced: number; full: number; eventsRun: number } | null = null;
const reducedPoints: { events: number; s: number }[] = [];
const fullPoints: { events: number; s: number }[] = [];
const explorerPoints: { events: number; s: number }[] = [];
const livesPoints: { events: number; s: number }[] = [];
for (const reads of quick ? [5, 10, 20] : [5, 10, 20, 40, 80]) {
  const scenario = taskOfLength(reads);
  const events = simulate(scenario, 'journal+keys', { kills: [], interleaving: [] }).lives[0]!.events.length;
  // The lives timed apart from the explorer's own work (the timing costs a few calls per life run).
  const { totalS: reducedS, livesS, value: reducedE } = fastestTimed((system) => explore(scenario, system, { kills: 1, interleavingBound: 1, seed: 1 }), scripted('journal+keys'));
  const fullS = fastest(() => explore(scenario, scripted('journal+keys'), { kills: 1, interleavingBound: 1, seed: 1, reduce: false }), 0).s;
  reducedPoints.push({ events, s: reducedS });
  explorerPoints.push({ events, s: Math.max(reducedS - livesS, 1e-6) });
  livesPoints.push({ events, s: livesS });
  fullPoints.push({ events, s: fullS });
  const r = reducedE.reduction!;
  const growth = previous ? `; x${fmt(events / previous.events, 1)} events: by equivalence x${fmt(reducedS / previous.reduced, 1)} time, from scratch x${fmt(fullS / previous.full, 1)}` : '';
  const eventGrowth = previous ? `; events the lives ran x${fmt(r.eventsRun / previous.eventsRun, 1)}` : '';
  console.log(`  ${String(events).padStart(4)} events: ${fmt(r.schedulesCovered)} single kills by ${fmt(r.livesRun)} lives (${fmt(r.livesJoined ?? 0)} joined to one run before) of ${fmt(r.eventsRun)} events in ${fmt(reducedS * 1000, 1)} ms (the lives ${fmt(livesS * 1000, 1)} ms of it), from scratch ${fmt(r.eventsUnreduced)} events in ${fmt(fullS * 1000, 1)} ms (${fmt(fullS / reducedS, 1)}x)${growth}${eventGrowth}`);
  previous = { events, reduced: reducedS, full: fullS, eventsRun: r.eventsRun };
}
const exponent = growthExponent(reducedPoints);
const top = reducedPoints.slice(-2);
const topExponent = growthExponent(top);
console.log(`  time ~ events^${fmt(exponent, 2)} by equivalence over the whole range, ^${fmt(topExponent, 2)} over its last doubling; from scratch ^${fmt(growthExponent(fullPoints), 2)} (1 is linear, 2 quadratic; each the fastest of repeated runs)`);
console.log(`  of it, the explorer's own work ~ events^${fmt(growthExponent(explorerPoints.slice(-2)), 2)} and the lives it runs ~ events^${fmt(growthExponent(livesPoints.slice(-2)), 2)} over the last doubling`);
console.log(`  target linear (an exponent below ${fmt(TARGET_LINEAR_EXPONENT, 2)} over the last doubling): ${topExponent < TARGET_LINEAR_EXPONENT ? 'met' : 'NOT met'}`);

/**
 * The orders of the parallel-call task, every single kill of each: with recoveries joined to lives
 * already explored, orders whose calls leave the same state from some point on (a workflow's step
 * records are a set) share everything after it; without joins, each recovery runs to its end.
 */
function ordersJoinedOrNot(): void {
  const t03 = scenarios.find((sc) => sc.id === 'T03')!;
  const options = { kills: 1 as const, interleavingBound: 1000, seed: 1 };
  for (const name of ['journal+keys', 'workflow+keys']) {
    const system = scripted(name);
    const unjoined = withLives(system, ({ runHead: _runHead, ...unjoinedLives }) => unjoinedLives);
    let joinedR: ReductionFigures | null = null;
    let unjoinedR: ReductionFigures | null = null;
    const joinedS = seconds(() => { joinedR = explore(t03, system, options).reduction; });
    const unjoinedS = seconds(() => { unjoinedR = explore(t03, unjoined, options).reduction; });
    const j = joinedR!;
    const u = unjoinedR!;
    console.log(`  T03 ${name}, ${fmt(j.interleavings)} orders, ${fmt(j.schedulesCovered)} single kills: joined ${fmt(j.livesRun)} lives of ${fmt(j.eventsRun)} events, ${fmt(j.verdictsJudged)} verdicts judged, ${fmt(joinedS, 2)} s; not joined ${fmt(u.livesRun)} lives of ${fmt(u.eventsRun)} events, ${fmt(u.verdictsJudged)} verdicts judged, ${fmt(unjoinedS, 2)} s (${fmt(unjoinedS / joinedS, 1)}x)`);
  }
}

/**
 * Every single kill of every bundled scenario under every strategy and broken variant, and a
 * second kill early in the recovery at every fifth, run on the reused stores and on fresh ones.
 */
function reusedAgainstFresh(): { compared: number; differ: string[]; s: number } {
  let compared = 0;
  const differ: string[] = [];
  const s = seconds(() => {
    for (const scenario of scenarios) {
      for (const name of ALL_STRATEGY_NAMES) {
        const events = simulate(scenario, name, { kills: [], interleaving: [] }).lives[0]!.events.length;
        for (let k = -1; k < events; k++) {
          for (const kills of k % 5 === 0 ? [[k], [k, 3]] : [[k]]) {
            const schedule = { kills, interleaving: [] };
            const stores = memoryStores(scenario.shop, strategy(name).journalWrite);
            let fresh;
            try {
              fresh = simulateLives(scenario, name, schedule, stores, new ScriptedModel(scenario));
            } finally {
              closeStores(stores);
            }
            if (!isDeepStrictEqual(simulate(scenario, name, schedule), fresh)) differ.push(`${scenario.id} ${name} kills [${kills.join(',')}]`);
            compared++;
          }
        }
      }
    }
  });
  return { compared, differ, s };
}

if (!quick) {
  const sweep = reusedAgainstFresh();
  console.log(`reused stores against fresh ones, every single kill (and a second kill at every fifth): ${fmt(sweep.compared)} runs compared in ${fmt(sweep.s, 1)} s, ${sweep.differ.length === 0 ? 'all the same' : `${fmt(sweep.differ.length)} differ`}`);
  for (const d of sweep.differ.slice(0, 10)) console.log(`  differs: ${d}`);
  if (sweep.differ.length > 0) process.exitCode = 1;
}
