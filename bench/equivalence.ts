// The full soundness sweep of the explorer by equivalence (test/equivalence.test.ts runs a sample):
// every one- and two-kill schedule of every bundled scenario under every strategy and broken
// variant, in the default order of parallel calls, and every order of the parallel-call task T03
// with single kills, each verdict and its failed checks compared with judge() of the same schedule
// run from scratch; then each broken promise's earliest schedule (and the minimal counterexample)
// of every scenario under every strategy, single kills, the reduced explorer against the one that
// runs every schedule from scratch, with the default search beyond the sampled orders. Exit 1 on
// any difference, naming the schedule and the command that replays it.
// npm run equivalence runs it all.
// Run: npx tsx bench/equivalence.ts [--scenarios T01,T03] [--strategies journal,restart]

import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { failedChecks } from '../src/harness/check/checks.js';
import { noKills, type RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { ALL_STRATEGY_NAMES, type AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { lanternScenarios } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { exploreByEquivalence, type InterleavingsToExplore } from '../src/harness/search/equivalence.js';
import { explore } from '../src/harness/search/explore.js';

const { values } = parseArgs({ options: { scenarios: { type: 'string' }, strategies: { type: 'string' } } });
const all = lanternScenarios();
const wanted = values.scenarios?.split(',') ?? null;
const scenarios = wanted === null ? all : all.filter((s) => wanted.some((w) => s.id.startsWith(w)));
const strategies = (values.strategies?.split(',') ?? [...ALL_STRATEGY_NAMES]) as AnyStrategyName[];
for (const name of strategies) if (!(ALL_STRATEGY_NAMES as readonly string[]).includes(name)) {
  console.error(`bench/equivalence.ts: --strategies: expected names among ${ALL_STRATEGY_NAMES.join(', ')}, got "${name}"`);
  process.exit(2);
}
if (scenarios.length === 0) {
  console.error(`bench/equivalence.ts: --scenarios: no bundled scenario starts with ${values.scenarios} (expected ${all.map((s) => s.id).join(', ')})`);
  process.exit(2);
}

let compared = 0;
const differ: string[] = [];

function sweep(scenario: Scenario, name: AnyStrategyName, interleavings: InterleavingsToExplore, maxKills: number): void {
  const system = scripted(name);
  const baselines = new Map<string, RunOutcome>();
  const list = Array.isArray(interleavings) ? interleavings : exploreByEquivalence(scenario, system, interleavings, 1, () => undefined).list;
  exploreByEquivalence(scenario, system, list, maxKills, (c) => {
    const picks = list[c.order]!.picks;
    let baseline = baselines.get(picks.join(','));
    if (baseline === undefined) baselines.set(picks.join(','), (baseline = simulate(scenario, name, noKills(picks))));
    const fresh = simulate(scenario, name, { kills: c.kills, interleaving: picks });
    const verdict = judge(scenario, fresh, baseline);
    compared++;
    if (JSON.stringify(c.verdict()) !== JSON.stringify(verdict) || !isDeepStrictEqual([...c.failed], failedChecks({ scenario, outcome: fresh, verdict }))) {
      const interleaving = picks.length > 0 ? ` --interleaving ${picks.join(',')}` : '';
      differ.push(`${scenario.id} ${name} kills [${c.kills.join(',')}]: replay npx tsx bench/real.ts --scenario ${scenario.id} --strategy '${name}' --kills ${c.kills.join(',')}${interleaving}`);
    }
  });
}

const t0 = performance.now(); // real clock: this script reports how long the sweep took
for (const scenario of scenarios) {
  for (const name of strategies) {
    const baseline = simulate(scenario, name, noKills());
    sweep(scenario, name, [{ picks: baseline.picksTaken, baseline }], 2);
    if (scenario.id.startsWith('T03')) sweep(scenario, name, { search: { kills: 1, interleavingBound: 1_000, seed: 1 } }, 1);
  }
  process.stderr.write(`${scenario.id}: ${compared} schedules compared\n`);
}
const s = (performance.now() - t0) / 1000; // real clock
console.log(`explorer by equivalence against runs from scratch: ${compared.toLocaleString('en-US')} schedules over ${scenarios.length} scenarios x ${strategies.length} strategies in ${s.toFixed(1)} s: ${differ.length === 0 ? 'every verdict the same' : `${differ.length} differ`}`);
for (const d of differ.slice(0, 20)) console.log(`  differs: ${d}`);

// Each broken promise keeps its own earliest schedule, by equivalence as from scratch (the search
// beyond the sampled orders included: test/equivalence.test.ts keeps it to 10 orders).
const t1 = performance.now(); // real clock
const minimaDiffer: string[] = [];
let explorations = 0;
for (const scenario of scenarios) {
  for (const name of strategies) {
    const options = { kills: 1 as const, interleavingBound: 4, seed: 1 };
    const reduced = explore(scenario, scripted(name), options);
    const full = explore(scenario, scripted(name), { ...options, reduce: false });
    explorations++;
    const replay = `replay: npx tsx bench/equivalence.ts --scenarios ${scenario.id} --strategies '${name}'`;
    if (!isDeepStrictEqual(reduced.minimalByCheck, full.minimalByCheck)) minimaDiffer.push(`${scenario.id} ${name}: each broken promise's earliest schedule (minimalByCheck); ${replay}`);
    if (!isDeepStrictEqual(reduced.minimal?.schedule, full.minimal?.schedule)) minimaDiffer.push(`${scenario.id} ${name}: the minimal counterexample; ${replay}`);
  }
}
console.log(`earliest schedules, reduced against from scratch: ${explorations} scenario x strategy explorations in ${((performance.now() - t1) / 1000).toFixed(1)} s: ${minimaDiffer.length === 0 ? 'every one the same' : `${minimaDiffer.length} differ`}`);
for (const d of minimaDiffer.slice(0, 20)) console.log(`  differs: ${d}`);
process.exitCode = differ.length + minimaDiffer.length > 0 ? 1 : 0;
