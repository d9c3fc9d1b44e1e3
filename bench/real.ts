// The real tier against the simulation, all of it: every bundled Lantern scenario, every strategy
// and broken variant, every single kill point, run both ways and compared verdict by verdict.
// Then the figure: kill-and-resume runs per second, real against simulated, from this one run.
//
//   npx tsx bench/real.ts                       everything (exit 1 on any disagreement)
//   npx tsx bench/real.ts --scenario T01 --strategy journal --kills 57 [--interleaving 1,0]
//                                               one case, both verdicts printed
//   options: --scenarios T01,T02  --strategies journal,restart  --concurrency N
//            --shard i/n (this machine's share of the cases, split as vitest --shard splits files)

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { lanternScenarios } from '../src/model/load.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { noKills } from '../src/harness/check/outcome.js';
import { ALL_STRATEGY_NAMES, strategy as strategyNamed, type AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { Baselines, compareTiers, compareTiersByEquivalence, describeCase, everyKillPoint, formatMismatch, inPool, type TierCase } from '../src/harness/differential/real-vs-simulated.js';
import { UsageError } from '../src/harness/usage-error.js';
import { decimalInt, parseShard, shardOf } from '../src/harness/cli/options.js';
import { startProgress } from '../src/harness/cli/progress.js';
import { ProtocolError } from '../src/harness/process/protocol.js';
import { Interrupted, onChildSpawned } from '../src/harness/process/processes.js';
import type { WarmPoolFigures } from '../src/harness/process/warm-pool.js';
import { emptyNodeStartMs } from './floor.js';

function list(raw: string | undefined): string[] | null {
  return raw === undefined ? null : raw.split(',').filter((s) => s !== '');
}

function numbers(raw: string | undefined, option: string, min: number): number[] {
  if (raw === undefined) return [];
  // Strict: Number('') is 0, so an empty entry ('5,') must not become a 0.
  return raw.split(',').map((s) => {
    const n = decimalInt(s);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${option}: expected integers >= ${min} separated by commas, got "${raw}"`);
    return n;
  });
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        scenario: { type: 'string' },
        scenarios: { type: 'string' },
        strategy: { type: 'string' },
        strategies: { type: 'string' },
        kills: { type: 'string' },
        interleaving: { type: 'string' },
        concurrency: { type: 'string' },
        shard: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  const all = lanternScenarios();
  const scenarioIds = list(values.scenario ?? values.scenarios);
  const scenarios = scenarioIds === null ? all : scenarioIds.map((id) => all.find((s) => s.id === id) ?? fail(`--scenario: no bundled scenario "${id}" (expected one of ${all.map((s) => s.id).join(', ')})`));
  const strategies = (list(values.strategy ?? values.strategies) ?? [...ALL_STRATEGY_NAMES]).map((n) => {
    if (!(ALL_STRATEGY_NAMES as readonly string[]).includes(n)) fail(`--strategy: expected one of ${ALL_STRATEGY_NAMES.join(', ')}, got "${n}"`);
    return strategyNamed(n).name as AnyStrategyName;
  });
  const concurrency = values.concurrency !== undefined ? decimalInt(values.concurrency) : availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency: expected a whole number >= 1, got "${values.concurrency}"`);
  const interleaving = numbers(values.interleaving, '--interleaving', 0);
  const killList = values.kills !== undefined ? numbers(values.kills, '--kills', -1) : null;

  const cases: TierCase[] = [];
  for (const scenario of scenarios) {
    for (const strategy of strategies) {
      const kills = killList !== null ? [killList] : everyKillPoint(scenario, strategy, interleaving).map((k) => [k]);
      for (const k of kills) cases.push({ scenario, strategy, schedule: { kills: k, interleaving } });
    }
  }

  const shard = values.shard === undefined ? null : parseShard(values.shard, '--shard');
  const allCases = cases.length;
  cases.splice(0, cases.length, ...shardOf(cases, shard));

  const baselines = new Baselines();
  const progress = startProgress('bench/real.ts', cases.length);
  const realStart = performance.now(); // real clock: measuring the real tier
  const comparisons = await inPool(cases, concurrency, async (c) => {
    const comparison = await compareTiers(c, baselines);
    // All of it takes minutes: a progress line for a person at a terminal, nothing in a log.
    progress.tick(describeCase(c));
    return comparison;
  });
  progress.end();
  const realMs = performance.now() - realStart; // real clock: measuring the real tier

  const failures = comparisons.filter((c) => c.mismatches.length > 0);
  for (const f of failures) console.log(formatMismatch(f));
  if (cases.length === 1) {
    console.log(JSON.stringify({ simulated: comparisons[0]!.simulated, real: comparisons[0]!.real }, null, 2));
  }
  const baselineCount = new Set(cases.map((c) => `${c.scenario.id}|${c.strategy}`)).size;
  if (shard !== null) console.log(`shard ${shard.index}/${shard.count}: ${cases.length} of ${allCases} cases`);
  console.log(`${cases.length} kill-and-resume runs (+${baselineCount} baselines) over ${scenarios.map((s) => s.id).join(', ')} x ${strategies.length} strategies: ` +
    `${cases.length - failures.length} agree, ${failures.length} disagree`);

  // The simulated tier on the same cases, in this process, one after another.
  const simStart = performance.now(); // real clock: measuring the simulated tier
  for (const c of cases) simulate(c.scenario, c.strategy, c.schedule);
  const baselineRuns = new Map(cases.map((c) => [`${c.scenario.id}|${c.strategy}`, c]));
  for (const c of baselineRuns.values()) simulate(c.scenario, c.strategy, noKills(interleaving));
  const simMs = performance.now() - simStart; // real clock: measuring the simulated tier

  const runs = cases.length + baselineCount;
  const realPerSecond = (runs / realMs) * 1000;
  const simPerSecond = (runs / simMs) * 1000;
  console.log(`real tier: ${realPerSecond.toFixed(1)} runs/s (${concurrency} children at a time, ${(realMs / 1000).toFixed(1)} s)`);
  console.log(`simulated: ${simPerSecond.toFixed(0)} runs/s (one thread, ${simMs.toFixed(0)} ms)`);
  console.log(`simulated / real: ${(simPerSecond / realPerSecond).toFixed(0)}x`);
  if (killList !== null || shard !== null) return failures.length > 0 ? 1 : 0;

  // The same kill points by equivalence, in this run: a child killed at every one, one recovery per
  // distinct state of the real files, each verdict compared with the simulation's; once with each
  // process started for its life (cold), once with processes started ahead (warm).
  const byEquivalence = async (warm: boolean) => {
    const spawned: number[] = [];
    const pools: WarmPoolFigures[] = [];
    onChildSpawned((pid) => spawned.push(pid));
    const start = performance.now(); // real clock: measuring the real tier
    let verdicts = 0;
    let disagree = 0;
    for (const scenario of scenarios) {
      for (const strategy of strategies) {
        const { comparisons } = await compareTiersByEquivalence(scenario, strategy, interleaving, concurrency, { warm, onWarmFigures: (f) => pools.push(f) });
        const disagreeing = comparisons.filter((x) => x.mismatches.length > 0);
        for (const c of disagreeing) console.log(formatMismatch(c));
        verdicts += comparisons.length;
        disagree += disagreeing.length;
      }
    }
    const ms = performance.now() - start; // real clock: measuring the real tier
    onChildSpawned(null);
    const pool = pools.reduce((a, f) => ({ started: a.started + f.started, handedWarm: a.handedWarm + f.handedWarm, unused: a.unused + f.unused }), { started: 0, handedWarm: 0, unused: 0 });
    return { lives: spawned.length, verdicts, disagree, ms, pool };
  };
  const cold = await byEquivalence(false);
  const warm = await byEquivalence(true);
  const fromScratchPerSecond = (cases.length / realMs) * 1000;
  const eqDisagree = cold.disagree + warm.disagree;
  for (const [label, e] of [['cold', cold], ['warm', warm]] as const) {
    const perSecond = (e.verdicts / e.ms) * 1000;
    const started = label === 'warm' ? `, ${e.pool.started} started (${e.pool.handedWarm} handed their life already loaded, ${e.pool.unused} spares killed unused)` : '';
    console.log(`by equivalence, ${label}: ${e.verdicts} verdicts, ${e.verdicts - e.disagree} agree, ${e.disagree} disagree; ${e.lives} lives in processes (a child killed at every kill point, one recovery per distinct state)${started} in ${(e.ms / 1000).toFixed(1)} s`);
    console.log(`  ${perSecond.toFixed(1)} verdicts/s against ${fromScratchPerSecond.toFixed(1)} from scratch (${(2 * cases.length + baselineCount)} processes): ${(perSecond / fromScratchPerSecond).toFixed(2)}x`);
  }
  const floor = emptyNodeStartMs();
  const floorS = (cold.lives * floor) / concurrency / 1000;
  console.log(`  floor: an empty node process starts in ${floor.toFixed(0)} ms; those ${cold.lives} processes, ${concurrency} at a time, take ${floorS.toFixed(1)} s doing nothing else (${(cold.verdicts / floorS).toFixed(1)} verdicts/s at most)`);
  return failures.length + eqDisagree > 0 ? 1 : 0;
}


function fail(message: string): never {
  throw new UsageError(message);
}

// Bad input (an option, or a child that breaks the protocol) is one line and exit 2, as in the CLI:
// this is the replay command every tier mismatch prints.
try {
  process.exitCode = await main();
} catch (error) {
  // Ctrl-C: the message is out already, and the process ends by the signal (a shell reads 130).
  if (error instanceof Interrupted) process.exitCode = 130;
  else if (!(error instanceof UsageError || error instanceof ProtocolError)) throw error;
  else {
    console.error(`bench/real.ts: ${error.message}`);
    process.exitCode = 2;
  }
}
