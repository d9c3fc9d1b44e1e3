// The speed benchmark (not a test): kill-and-resume runs per second with the in-memory stores, the
// time to enumerate every single kill and every two-kill schedule of every bundled scenario under
// every strategy, and how both grow as a task doubles in length. Targets on one core:
// >= 10,000 runs/s, single-kill enumeration < 2 s, two-kill enumeration < 60 s.
// Then (not with --quick) the full sweep that test/reusable-stores.test.ts samples: the reused
// in-memory stores give exactly what fresh ones give at every single kill of every bundled
// scenario and strategy (exit 1 if any run differs).
// Run: npx tsx bench/bench.ts [--quick]

import { explore } from '../src/search/explore.js';
import { isDeepStrictEqual } from 'node:util';
import { runLives, simulate } from '../src/engines/scripted/simulate.js';
import { closeStores, memoryStores } from '../src/engines/scripted/stores.js';
import { ALL_STRATEGY_NAMES, STRATEGY_NAMES, strategy } from '../src/engines/scripted/strategies.js';
import { judge } from '../src/check/verdict.js';
import { lanternScenarios } from '../src/model/load.js';
import { parseScenario, type Scenario } from '../src/model/scenario.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { scripted } from '../src/engines/scripted/engine.js';

const TARGET_RUNS_PER_S = 10_000;
const TARGET_SINGLE_S = 2;
const TARGET_TWO_S = 60;
const quick = process.argv.includes('--quick');

function seconds(f: () => void): number {
  const t0 = performance.now(); // real clock: measuring speed is this script's job
  f();
  return (performance.now() - t0) / 1000; // real clock: measuring speed is this script's job
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Kill-and-resume runs (simulate + judge) for every single kill, repeated for about `forS` seconds. */
function runsPerSecond(scenarios: Scenario[], forS: number): { runs: number; s: number } {
  const cases = scenarios.flatMap((scenario) => STRATEGY_NAMES.map((name) => {
    const model = new ScriptedModel(scenario);
    const baseline = simulate(scenario, name, { kills: [], interleaving: [] }, model);
    return { scenario, name, model, baseline, events: baseline.lives[0]!.events.length };
  }));
  const pass = (): number => {
    let passRuns = 0;
    for (const c of cases) {
      for (let k = -1; k < c.events; k++) {
        judge(c.scenario, simulate(c.scenario, c.name, { kills: [k], interleaving: [] }, c.model), c.baseline);
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
  return { runs, s };
}

function enumerate(scenarios: Scenario[], kills: 1 | 2, interleavingBound: number): { schedules: number; s: number } {
  let schedules = 0;
  const s = seconds(() => {
    for (const scenario of scenarios) for (const name of STRATEGY_NAMES) schedules += explore(scenario, scripted(name), { kills, interleavingBound, seed: 1 }).schedulesExplored;
  });
  return { schedules, s };
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

const single = enumerate(scenarios, 1, 1);
console.log(`every single kill, default interleaving: ${fmt(single.schedules)} schedules in ${fmt(single.s, 2)} s; target < ${TARGET_SINGLE_S} s: ${fmt(single.s / TARGET_SINGLE_S, 2)} of the budget`);
const singleAll = enumerate(scenarios, 1, 32);
console.log(`every single kill, up to 32 interleavings each: ${fmt(singleAll.schedules)} schedules in ${fmt(singleAll.s, 2)} s`);

const two = enumerate(scenarios, 2, 1);
console.log(`every schedule of 1 or 2 kills, default interleaving: ${fmt(two.schedules)} schedules in ${fmt(two.s, 2)} s; target < ${TARGET_TWO_S} s: ${fmt(two.s / TARGET_TWO_S, 2)} of the budget`);

console.log('growth as the task doubles in length (journal+keys):');
let previous: { events: number; one: number; two: number; oneS: number; twoS: number } | null = null;
for (const reads of quick ? [2, 4, 8] : [2, 4, 8, 16, 32]) {
  // Two-kill schedules grow with the square of the events (and each run with its length): stop at 16 reads.
  const withTwo = reads <= 16;
  const scenario = taskOfLength(reads);
  const events = simulate(scenario, 'journal+keys', { kills: [], interleaving: [] }).lives[0]!.events.length;
  let one = 0;
  let twoRuns = 0;
  const oneS = seconds(() => { one = explore(scenario, scripted('journal+keys'), { kills: 1, interleavingBound: 1, seed: 1 }).schedulesExplored; });
  const twoS = withTwo ? seconds(() => { twoRuns = explore(scenario, scripted('journal+keys'), { kills: 2, interleavingBound: 1, seed: 1 }).schedulesExplored; }) : 0;
  const twoGrowth = withTwo && previous ? `, two-kill x${fmt(twoRuns / previous.two, 1)} schedules, x${fmt(twoS / previous.twoS, 1)} time` : '';
  const growth = previous ? `; x${fmt(events / previous.events, 1)} events: single x${fmt(oneS / previous.oneS, 1)} time${twoGrowth}` : '';
  const twoText = withTwo ? `, 1-2 kills ${fmt(twoRuns)} in ${fmt(twoS * 1000, 0)} ms` : ', 1-2 kills not run (too long)';
  console.log(`  ${String(events).padStart(4)} events: single kills ${fmt(one)} in ${fmt(oneS * 1000, 1)} ms${twoText}${growth}`);
  previous = { events, one, two: twoRuns, oneS, twoS };
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
              fresh = runLives(scenario, name, schedule, stores, new ScriptedModel(scenario));
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
